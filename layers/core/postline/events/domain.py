"""Events: one per stage of a message (the interface's Event resource and event types)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from pydantic import Field

from postline.shared.base import Model
from postline.shared.header_text import without_controls


# The one Protocol outside a ports.py (tests/infra/test_layout.py names it): no adapter fills it, it is
# the domain's view of sending's Message, which message_event() below reads. Sending stands above
# events on the ladder, so the fields are named here rather than Message imported; the pure domain
# module keeps its own input type, as ports.py holds what services need from adapters.
class MessageFields(Protocol):
    """What an event copies from its message (sending's Message has these): named here, so the
    events area sits below sending, and a reader of events never builds the message models."""

    @property
    def id(self) -> str: ...
    @property
    def account_id(self) -> str: ...
    @property
    def test(self) -> bool: ...
    @property
    def routed(self) -> bool: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def metadata(self) -> dict[str, str]: ...
    @property
    def headers(self) -> dict[str, str]: ...
    @property
    def webhook_url(self) -> str | None: ...
    @property
    def sender_domain(self) -> str: ...
    @property
    def template_id(self) -> str | None: ...


class EventType(StrEnum):
    QUEUED = "queued"
    SENT = "sent"
    DELIVERED = "delivered"
    OPENED = "opened"
    CLICKED = "clicked"
    BOUNCED = "bounced"
    COMPLAINED = "complained"
    UNSUBSCRIBED = "unsubscribed"
    DELAYED = "delayed"
    REJECTED = "rejected"
    FAILED = "failed"
    DUPLICATE = "duplicate"


class RejectReason(StrEnum):
    ALL_RECIPIENTS_SUPPRESSED = "all_recipients_suppressed"
    FAILED_VERIFICATION = "failed_verification"
    SANDBOX_RECIPIENT_NOT_AUTHORIZED = "sandbox_recipient_not_authorized"
    DOMAIN_NOT_VERIFIED = "domain_not_verified"
    CANCELLED = "cancelled"  # a scheduled send cancelled by its owner before it went out
    INVALID_MEMBER = "invalid_member"  # a list send's member no message could be made for (data.detail: why)


class Event(Model):
    """The stored event. `data` holds the event-specific details webhooks carry (bounce reason, link, ...)."""

    id: str
    account_id: str
    type: EventType
    message_id: str
    recipient: str | None = None  # None for message-level events (storage omits the attribute)
    timestamp: datetime
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    data: dict[str, Any] = Field(default_factory=dict)
    webhook_url: str | None = None
    # The message's sending domain and template, for metrics breakdowns (not shown by the API).
    sending_domain: str | None = None
    template_id: str | None = None
    created_at: datetime
    expires_at: int  # epoch seconds: the account's retention, enforced by the table's TTL


def event_id(message_id: str, event_type: EventType, recipient: str | None, step: int | str = 0) -> str:
    """Deterministic, so a repeated stage writes the same event instead of a second one."""
    digest = hashlib.sha256(f"{message_id}|{event_type}|{recipient or ''}|{step}".encode()).hexdigest()
    return f"evt_{digest[:32]}"


def retention_expiry(now: datetime, retention_days: int) -> int:
    return int((now + timedelta(days=retention_days)).timestamp())


def message_event(
    message: MessageFields,
    event_type: EventType,
    recipient: str | None,
    now: datetime,
    data: dict[str, Any] | None = None,
    *,
    retention_days: int,
    step: int | str = 0,
) -> Event:
    details = {key: _clean(value) for key, value in (data or {}).items()}
    if message.test:
        details["test"] = True  # data.test: every event of a simulated message
    if message.routed:
        details["routed"] = True  # data.routed: simulated because support routed the account or key
    return copied_event(
        message,
        event_type,
        recipient,
        now,
        details,
        ident=event_id(message.id, event_type, recipient, step),
        created_at=now,
        expires_at=retention_expiry(now, retention_days),
    )


def copied_event(
    message: MessageFields,
    event_type: EventType,
    recipient: str | None,
    at: datetime,
    data: dict[str, Any],
    *,
    ident: str,
    created_at: datetime,
    expires_at: int,
) -> Event:
    """An event with what it copies from its message: message_event's, and a recorded step's events
    rebuilt from what the message item kept of them (sending/recorded.py)."""
    return Event(
        id=ident,
        account_id=message.account_id,
        type=event_type,
        message_id=message.id,
        recipient=recipient,
        timestamp=at,
        tags=message.tags,
        metadata=message.metadata or None,
        headers=message.headers,
        data=data,
        webhook_url=message.webhook_url,
        sending_domain=message.sender_domain or None,
        template_id=message.template_id,
        created_at=created_at,
        expires_at=expires_at,
    )


def _clean(value: Any) -> Any:
    """Event data as stored, exported and sent to webhooks: no control characters in any string
    (a link's URL, a user agent, an SMTP reply, an error's reason)."""
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value
