"""Email address verification: its results (the ValidationResult values), what DNS says about a
recipient's domain, and the simulator's draw for test keys.

Small on purpose: today it serves verify_before_send (the dispatcher checks each recipient before
the hand-over); POST /v3/validate will grow the same model (sub_status, risk, catch-all, SMTP
check) rather than start another.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from postline.delivery.outcomes import SIMULATOR_DOMAIN
from postline.sending.domain import normalize_address


class VerificationResult(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    CATCH_ALL = "catch_all"
    UNKNOWN = "unknown"
    SPAMTRAP = "spamtrap"
    ABUSE = "abuse"
    DO_NOT_MAIL = "do_not_mail"


# What verify_before_send refuses to send to. Unknown passes: a DNS server that does not answer
# says nothing about the address, and refusing on it would drop good mail.
UNDELIVERABLE = frozenset(
    {VerificationResult.INVALID, VerificationResult.DO_NOT_MAIL, VerificationResult.SPAMTRAP, VerificationResult.ABUSE}
)


@dataclass(frozen=True)
class Verification:
    result: VerificationResult
    reason: str

    @property
    def rejects(self) -> bool:
        return self.result in UNDELIVERABLE

    def as_data(self) -> dict[str, Any]:
        """The event's data.verification."""
        return {"result": self.result.value, "reason": self.reason}


@dataclass(frozen=True)
class MailRoute:
    """Where a domain's mail goes, as DNS answered (RFC 5321 section 5.1, RFC 7505)."""

    mx_hosts: tuple[str, ...] = ()  # its MX records, best first
    null_mx: bool = False  # MX 0 "." : the domain takes no mail
    exists: bool = True  # False: NXDOMAIN
    has_address: bool = False  # an A or AAAA record: with no MX, the domain itself is the MX
    lookup_error: str | None = None  # DNS did not answer (timeout, SERVFAIL)


def effective_verify_before_send(key: bool | None, domain: bool | None, account: bool) -> bool:
    """The key's setting when it has one (null = inherit), else the sending domain's, else
    the account's. Sending domains have no setting of their own yet: callers pass None."""
    if key is not None:
        return key
    if domain is not None:
        return domain
    return account


def check_syntax(address: str) -> Verification | None:
    """An invalid result when the address is not one, else None."""
    try:
        normalize_address(address)
    except ValueError as error:
        return Verification(VerificationResult.INVALID, f"invalid syntax: {error}")
    return None


def judge_route(domain: str, route: MailRoute) -> Verification:
    """The verdict on an address whose syntax is good, from its domain's mail route."""
    if route.lookup_error is not None:
        return Verification(VerificationResult.UNKNOWN, f"DNS did not answer for {domain}: {route.lookup_error}")
    if not route.exists:
        return Verification(VerificationResult.INVALID, f"{domain} does not exist")
    if route.null_mx:
        return Verification(VerificationResult.INVALID, f"{domain} accepts no mail (null MX)")
    if route.mx_hosts:
        return Verification(VerificationResult.VALID, f"{domain} has an MX ({route.mx_hosts[0]})")
    if route.has_address:
        return Verification(VerificationResult.VALID, f"{domain} has no MX; its own address takes mail")
    return Verification(VerificationResult.INVALID, f"{domain} has no MX and no A or AAAA record")


def simulate_verification(message_id: str, recipient: str, weights: dict[str, float] | None) -> Verification:
    """A test key's verification of one recipient. A simulator address named after a result
    (invalid@, spamtrap@, ... at simulator.postline.dev) gets it; any other address draws from the
    key's verify weights, seeded by message and recipient (apart from the send draw's seed, so the
    two outcomes are independent) so a repeated step draws the same."""
    local, _, domain = recipient.partition("@")
    if domain.lower() == SIMULATOR_DOMAIN and local.lower() in set(VerificationResult):
        result = VerificationResult(local.lower())
        return Verification(result, f"simulated: {result.value} (simulator address)")
    choices = {name: weight for name, weight in (weights or {"valid": 1.0}).items() if weight > 0}
    seed = int.from_bytes(hashlib.sha256(f"verify|{message_id}|{recipient}".encode()).digest()[:8], "big")
    drawn = random.Random(seed).choices(list(choices), weights=list(choices.values()))[0]
    return Verification(VerificationResult(drawn), f"simulated: {drawn}")
