"""What the dispatcher hands to a transport: one recipient's copy of a message."""

from __future__ import annotations

from dataclasses import dataclass

from postline.domains.domain import SendingDomain

# The tag naming our message on a relay's copy (SES echoes message tags on every feedback event).
MESSAGE_TAG = "postline_message_id"


@dataclass(frozen=True)
class Parcel:
    """One recipient's copy of a message, ready for the wire."""

    message_id: str
    sender: str  # envelope sender (MAIL FROM)
    recipient: str
    mime: bytes
    domain: SendingDomain | None  # signs it (DKIM) when the transport signs
    test: bool
    send_outcomes: dict[str, float] | None
    attempt: int
    # MAIL FROM on the sending domain's return-path subdomain (SMTP), so bounces come to the service
    # and SPF is checked there; None: the From address. SES sets its own MAIL FROM.
    return_path: str | None = None
    # The IP pool (its id) and the address of it the copy leaves from (ip_pools/); None: the host's own.
    ip_pool: str | None = None
    source_ip: str | None = None
    ip_pool_overflow: str | None = None  # the warming pool whose day's cap sent it to the shared pool
    # With SES: the pool's configuration set (its SES dedicated IP pool); None: the deployment's own.
    ses_configuration_set: str | None = None
