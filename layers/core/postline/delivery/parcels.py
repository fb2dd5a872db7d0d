"""What travels through the send queue, and what the dispatcher hands to a transport."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import Field

from postline.domains.domain import SendingDomain
from postline.shared.base import Model

# The tag naming our message on a relay's copy (SES echoes message tags on every feedback event).
MESSAGE_TAG = "postline_message_id"


class DispatchJob(Model):
    """One queue message: deliver `message_id` (only `recipients` when set) as attempt `attempt`.

    Attempts only grow, and a recipient is worked on only when its last recorded attempt is older
    than the job's: a redelivered or duplicated job finds nothing left to do.
    """

    message_id: str
    account_id: str
    attempt: int = Field(default=1, ge=1)
    recipients: list[str] | None = None
    enqueued_at: datetime | None = None


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
