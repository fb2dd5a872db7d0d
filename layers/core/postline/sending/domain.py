"""Messages: what a send request may contain, what is stored, and what the API shows (README, Sending)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints, field_validator

from postline.shared.addresses import Address, domain_of
from postline.shared.base import Model
from postline.shared.errors import ApiError, ValidationFailed
from postline.shared.header_text import check_header_text
from postline.shared.message_fields import METADATA_KEY
from postline.shared.times import UtcDatetime

MAX_RECIPIENTS = 1_000  # the interface's limit: combined across to, cc and bcc, and in any one field
MAX_ATTACHMENT_BYTES = 7 * 1024 * 1024  # decoded, all attachments together: base64 of it fits API Gateway's 10 MB
MAX_TAGS = 10
MAX_METADATA_KEYS = 20
MAX_CUSTOM_HEADERS = 50
MAX_SCHEDULE_DAYS = 30  # send_at at most this far ahead
HEADER_NAME = re.compile(r"^[Xx]-[A-Za-z0-9-]{1,74}$")
# Headers the service itself sets on X-*: a sender may not forge them.
RESERVED_HEADERS = {"x-postline-message-id", "x-webhook-attempt", "x-svc-signature"}


class RecipientLimitExceeded(ApiError):
    status, code = 400, "recipient_limit_exceeded"


class AttachmentTooLarge(ApiError):
    status, code = 400, "attachment_too_large"


class MessageStatus(StrEnum):
    QUEUED = "queued"
    SENT = "sent"
    DELIVERED = "delivered"
    BOUNCED = "bounced"
    COMPLAINED = "complained"
    DEFERRED = "deferred"
    REJECTED = "rejected"
    FAILED = "failed"


Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]
# Not capped here: more than 1,000 answers recipient_limit_exceeded, not validation_error.
Recipients = list[Address]


def _check_headers(headers: dict[str, str]) -> dict[str, str]:
    if len(headers) > MAX_CUSTOM_HEADERS:
        raise ValueError(f"at most {MAX_CUSTOM_HEADERS} custom headers")
    for name, value in headers.items():
        if not HEADER_NAME.fullmatch(name):
            raise ValueError(f"{name!r}: only custom X-* headers may be set (letters, digits and dashes)")
        if name.lower() in RESERVED_HEADERS:
            raise ValueError(f"{name!r} is set by the service")
        check_header_text(value, f"header {name!r}")
        if len(value) > 998:
            raise ValueError(f"{name!r}: a header value is at most 998 characters")
    return headers


def _check_metadata(metadata: dict[str, str]) -> dict[str, str]:
    if len(metadata) > MAX_METADATA_KEYS:
        raise ValueError(f"at most {MAX_METADATA_KEYS} metadata keys")
    for name, value in metadata.items():
        if not METADATA_KEY.fullmatch(name):
            raise ValueError(f"metadata key {name!r}: 1-64 letters, digits, dots, dashes or underscores")
        if len(value) > 200:
            raise ValueError(f"metadata {name!r}: values are at most 200 characters")
    return metadata


Headers = Annotated[dict[str, str], AfterValidator(_check_headers)]
Metadata = Annotated[dict[str, str], AfterValidator(_check_metadata)]


class Attachment(Model):
    model_config = ConfigDict(extra="forbid")

    filename: Annotated[
        str,
        StringConstraints(min_length=1, max_length=255, pattern=r"^[^/\\]+$"),
        AfterValidator(lambda value: check_header_text(value, "the filename")),  # Content-Disposition's
    ]
    content: str = Field(description="The file, base64-encoded.")
    content_type: Annotated[str, StringConstraints(pattern=r"^[\w.+-]+/[\w.+-]+$")] = "application/octet-stream"

    @field_validator("content")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as error:
            raise ValueError("content must be base64") from error
        return value

    @property
    def size(self) -> int:
        return len(base64.b64decode(self.content))


class Content(Model):
    """The parts of a message stored encrypted (envelope encryption), never in a queryable item."""

    html: str | None = None
    text: str | None = None
    vars: dict[str, Any] = Field(default_factory=dict)
    attachments: list[Attachment] = Field(default_factory=list)
    reply_to: str | None = None
    # A message submitted over SMTP, delivered as submitted (Bcc and X-Svc-* already taken out): its
    # bytes as Latin-1 text, one character per byte, so the sealed JSON is about its size, not 4/3 of it.
    mime: str | None = None

    @property
    def mime_bytes(self) -> bytes | None:
        return self.mime.encode("latin-1") if self.mime is not None else None


class RecipientState(StrEnum):
    """Where one recipient of a message is. `sending` is a claim: a worker is handing it over."""

    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"
    DEFERRED = "deferred"
    DELIVERED = "delivered"
    BOUNCED = "bounced"
    COMPLAINED = "complained"
    REJECTED = "rejected"
    FAILED = "failed"


PENDING = {RecipientState.QUEUED, RecipientState.SENDING, RecipientState.DEFERRED}
FINAL = {
    RecipientState.DELIVERED,
    RecipientState.BOUNCED,
    RecipientState.COMPLAINED,
    RecipientState.REJECTED,
    RecipientState.FAILED,
}


def message_status(states: list[RecipientState]) -> MessageStatus:
    """The message's status from its recipients': the furthest stage any of them reached, with a
    message still in progress while any recipient is (deferred when one waits for a retry)."""
    present = set(states)
    if not present:
        return MessageStatus.QUEUED
    if present <= {RecipientState.REJECTED}:
        return MessageStatus.REJECTED
    if RecipientState.DEFERRED in present:
        return MessageStatus.DEFERRED
    if present & {RecipientState.QUEUED, RecipientState.SENDING}:
        # Some still waiting: "sent" once any other has been handed over, whatever became of it.
        progressed = present - {RecipientState.QUEUED, RecipientState.SENDING, RecipientState.REJECTED}
        return MessageStatus.SENT if progressed else MessageStatus.QUEUED
    for state, status in (
        (RecipientState.COMPLAINED, MessageStatus.COMPLAINED),
        (RecipientState.DELIVERED, MessageStatus.DELIVERED),
        (RecipientState.SENT, MessageStatus.SENT),
        (RecipientState.BOUNCED, MessageStatus.BOUNCED),
        (RecipientState.FAILED, MessageStatus.FAILED),
    ):
        if state in present:
            return status
    return MessageStatus.REJECTED


class Schedule(StrEnum):
    """Whether a message waits for its send_at, and whether its owner cancelled it meanwhile."""

    NOW = "now"
    SCHEDULED = "scheduled"
    CANCELLED = "cancelled"


class Message(Model):
    """The stored message: what queries need, plus references to the sealed content."""

    id: str
    account_id: str
    key_id: str
    test: bool  # simulated: a test key's, or a live send the operator routed to the sandbox
    routed: bool = False  # the latter
    batch_id: str | None = None
    list_id: str | None = None  # a list send's message: its one-click unsubscribe is the list's (tracking)
    from_: str = Field(alias="from")
    to: list[str]
    cc: list[str] = Field(default_factory=list)
    bcc: list[str] = Field(default_factory=list)
    subject: str
    tags: list[str] = Field(default_factory=list)
    headers: dict[str, str] = Field(default_factory=dict)
    metadata: dict[str, str] = Field(default_factory=dict)
    template_id: str | None = None
    webhook_url: str | None = None
    track_opens: bool = True
    track_clicks: bool = True
    ip_pool: str | None = None  # the IP pool named by the send (id or name), else the account's default
    send_outcomes: dict[str, float] | None = None  # the test key's weights, for the simulator
    verify_before_send: bool = False  # each recipient is verified before its first hand-over
    verify_outcomes: dict[str, float] | None = None  # the test key's verify weights, for the simulator
    status: MessageStatus = MessageStatus.QUEUED
    recipients: dict[str, RecipientState] = Field(default_factory=dict)
    attempts: dict[str, int] = Field(default_factory=dict)  # recipient -> delivery attempts made
    schedule: Schedule = Schedule.NOW
    send_at: UtcDatetime | None = None  # also in UTC when an item stored before it was normalized is read
    created_at: datetime
    delivered_at: datetime | None = None
    opened_at: datetime | None = None
    clicked_at: datetime | None = None
    expires_at: int | None = None  # epoch seconds: the account's retention (the table's TTL)
    content_check: dict[str, Any] | None = None  # a test-mode message's content check (content_checks)

    model_config = ConfigDict(populate_by_name=True)

    @property
    def all_recipients(self) -> list[str]:
        """Each address once, as first named (to, then cc, then bcc): addresses are compared in any
        letter case, as mailbox providers and the suppression lists compare them."""
        return list(_first_spellings(self).values())

    def duplicates(self) -> list[Duplicate]:
        """Every occurrence of an address after its first, across to, cc and bcc: sent no copy of its
        own, each is recorded as a `duplicate` event."""
        first = _first_spellings(self)
        seen: set[str] = set()
        found: list[Duplicate] = []
        for field_name, addresses in (("to", self.to), ("cc", self.cc), ("bcc", self.bcc)):
            for position, address in enumerate(addresses):
                key = address.lower()
                if key in seen:
                    found.append(Duplicate(first[key], field_name, position, address))
                seen.add(key)
        return found

    @property
    def sender_domain(self) -> str:
        return domain_of(self.from_)


@dataclass(frozen=True)
class Duplicate:
    """An address named again: the recipient it repeats (as first named) and where it was repeated."""

    recipient: str
    field: str  # to, cc or bcc
    position: int  # zero-based, in that field
    address: str  # as given there

    def data(self) -> dict[str, str | int]:
        return {"field": self.field, "position": self.position, "address": self.address}


def _first_spellings(message: Message) -> dict[str, str]:
    """Lowercased address -> the address as first named, in to, cc, bcc order."""
    first: dict[str, str] = {}
    for address in (*message.to, *message.cc, *message.bcc):
        first.setdefault(address.lower(), address)
    return first


MAX_IDEMPOTENCY_KEY_LENGTH = 255


@dataclass(frozen=True)
class IdempotentCall:
    """A send made under an Idempotency-Key: its replays return the first result, and the key
    reused with another body is refused. `body` is the request as the client sent it."""

    key: str
    body: Any
    remaining_ms: Callable[[], int] | None = None  # the invocation's time left: an in-progress claim ends with it

    def __post_init__(self) -> None:
        if not 1 <= len(self.key) <= MAX_IDEMPOTENCY_KEY_LENGTH or not self.key.isprintable():
            raise ValidationFailed(f"Idempotency-Key: 1-{MAX_IDEMPOTENCY_KEY_LENGTH} printable characters.")


@dataclass(frozen=True)
class StoredMessage:
    """What a retry of a keyed send needs of a message an earlier try of it stored."""

    created_at: datetime
    recipients: dict[str, RecipientState]
