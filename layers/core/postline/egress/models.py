"""GET /.well-known/svc/egress: the one source address of outbound mail and webhook calls.

In the cloud it is the NAT gateway's Elastic IP (infra/template.base.yaml EgressIp, the stack's
OutboundIp output), given to the function as EGRESS_IP from the same resource, so the document and
the output cannot disagree. The embedded runtime has no Elastic IP: its list is empty and `static`
false (its mail leaves from this machine).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from postline.shared.base import Model

USED_FOR: tuple[Literal["smtp_relay", "webhooks"], ...] = ("smtp_relay", "webhooks")


class EgressAddresses(Model):
    """What receivers allowlist: mail from the relay (SMTP to recipients' MX) and webhook calls both
    originate from these addresses. A change is announced in advance (the interface's promise)."""

    ipv4: list[str] = Field(description="The source addresses, one today (one NAT gateway on purpose).")
    static: bool = Field(description="True when the addresses are the deployment's fixed Elastic IPs.")
    used_for: list[Literal["smtp_relay", "webhooks"]] = Field(description="The outbound traffic that uses them.")


def egress_addresses(ip: str) -> EgressAddresses:
    addresses = [ip] if ip else []
    return EgressAddresses(ipv4=addresses, static=bool(addresses), used_for=list(USED_FOR))
