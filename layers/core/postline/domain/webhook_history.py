"""Webhook delivery history (GET /v3/webhooks/{id}/deliveries): filters, window, cursor and views.

Pure: the deliveries table is read by the adapter, one month partition of the endpoint at a
time, newest first by (created_at, id). A page's position is the last delivery it returned, or,
when its time budget ran out first, the last key it read (a filtered page on a busy endpoint may
examine many items to find a few): the cursor carries it with the window of the first page,
HMAC-signed and bound to the filters, like the events cursor.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from postline.domain.errors import ValidationFailed
from postline.domain.event_query import PublicEventType
from postline.domain.signed_cursor import BoundCursor, Signer, seal, unseal
from postline.domain.times import UtcDatetime, utc
from postline.domain.webhook_delivery import Attempt, AttemptResult, Delivery, DeliveryStatus

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
_CURSOR_VERSION = 1


_SORT_KEY_TIME = "%Y-%m-%dT%H:%M:%S.%f"


def sort_key(created_at: datetime, delivery_id: str) -> str:
    """The deliveries index's sort key (created_sk): time to the microsecond, then the id."""
    return f"{utc(created_at):{_SORT_KEY_TIME}}#{delivery_id}"


def month_start_key(month: str) -> str:
    """Sorts before every delivery of the month (yyyy-mm) and after every earlier one."""
    return f"{month}-01T00:00:00.000000#"


def split_sort_key(key: str) -> tuple[datetime, str]:
    """(created_at, delivery id) of a sort key; the id is empty for month_start_key."""
    moment, _, delivery_id = key.partition("#")
    return datetime.strptime(moment, _SORT_KEY_TIME).replace(tzinfo=UTC), delivery_id


def months_between(since: datetime, until: datetime) -> list[str]:
    """The UTC months (yyyy-mm) a window touches, newest first: the endpoint's partitions to read."""
    year, month = until.year, until.month
    months = []
    while (year, month) >= (since.year, since.month):
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return months


class DeliveryFilters(BaseModel):
    """What a history page selects; all given filters combine (AND)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: DeliveryStatus | None = None
    event: PublicEventType | None = None
    since: UtcDatetime | None = None
    until: UtcDatetime | None = None

    @model_validator(mode="after")
    def _ordered(self) -> DeliveryFilters:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError("since must not be later than until")
        return self

    def fingerprint(self, account_id: str, endpoint_id: str) -> str:
        """Identifies the query: a cursor only continues its own."""
        normalized = json.dumps(
            {"account": account_id, "endpoint": endpoint_id, **self.model_dump(mode="json")},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(normalized.encode()).hexdigest()[:32]


def delivery_filters(**fields: object) -> DeliveryFilters:
    """DeliveryFilters from query parameters; ValidationFailed (400) rather than pydantic's error."""
    try:
        return DeliveryFilters.model_validate(fields)
    except ValidationError as error:
        raise ValidationFailed.first_of(error) from error


@dataclass(frozen=True)
class HistoryRead:
    """What one page's reads found: up to the wanted number of deliveries, newest first, and
    `resume_at`, the sort key of the last item read, when the time budget ran out first."""

    deliveries: list[Delivery]
    resume_at: str | None = None


@dataclass(frozen=True)
class HistoryWindow:
    since: datetime
    until: datetime


def history_window(filters: DeliveryFilters, *, now: datetime, retention_days: int) -> HistoryWindow | None:
    """The window to read, or None when it cannot hold a delivery. A since older than the history
    retention is clamped, not an error; so is an until in the future."""
    floor = now - timedelta(days=retention_days)
    since = max(filters.since, floor) if filters.since else floor
    until = min(filters.until, now) if filters.until else now
    return HistoryWindow(since, until) if since <= until else None


# -- the cursor ----------------------------------------------------------------------------------


class HistoryCursor(BoundCursor):
    """next_cursor: the query it belongs to, the first page's window, and the position: the last
    delivery returned or the last key read (split_sort_key)."""

    since: datetime
    until: datetime
    at: datetime
    delivery_id: str

    @property
    def window(self) -> HistoryWindow:
        return HistoryWindow(self.since, self.until)

    @property
    def position(self) -> str:
        return sort_key(self.at, self.delivery_id)


_PURPOSE = f"webhooks.deliveries.cursor.v{_CURSOR_VERSION}"


def encode_cursor(cursor: HistoryCursor, sign: Signer) -> str:
    return seal(cursor, sign, purpose=_PURPOSE)


def decode_cursor(token: str, sign: Signer, *, fingerprint: str) -> HistoryCursor:
    return unseal(token, HistoryCursor, sign, purpose=_PURPOSE, fingerprint=fingerprint)


# -- what the API shows --------------------------------------------------------------------------


class DeliveryAttemptView(BaseModel):
    number: int = Field(description="1 for the first attempt; X-Webhook-Attempt carried this number.")
    at: datetime
    outcome: AttemptResult = Field(
        description="succeeded (a 2xx), retryable (429, 5xx, 3xx, network error), cut_short (timed out or "
        "dropped mid-answer), refused (a 4xx other than 429: no more retries)."
    )
    response_code: int | None = Field(description="The receiver's HTTP status; null when there was no answer.")
    latency_ms: int
    error: str | None = Field(description="What went wrong when there was no usable answer.")


class WebhookDeliveryView(BaseModel):
    """One delivery of one event to one endpoint (or a message's webhook_url), with its attempts.
    The payload itself is not shown."""

    id: str = Field(examples=["whd_3f1c0a9e5b7d4e2f8a6c1b0d9e7f5a3c"])
    endpoint_id: str | None = Field(description="Null for a message's own webhook_url.")
    url: str
    event_id: str
    event: str = Field(description="The event type.", examples=["delivered"])
    message_id: str
    status: DeliveryStatus
    manual: bool = Field(description="True for a resend: one attempt, never retried.")
    resent_from: str | None = Field(description="The delivery this one resent; null unless a resend.")
    created_at: datetime
    next_attempt_at: datetime | None = Field(description="When the next scheduled attempt is due, while retrying.")
    attempts: list[DeliveryAttemptView]


def attempt_view(attempt: Attempt) -> DeliveryAttemptView:
    return DeliveryAttemptView(
        number=attempt.number,
        at=attempt.at,
        outcome=attempt.result,
        response_code=attempt.status_code,
        latency_ms=attempt.latency_ms,
        error=attempt.error,
    )


def delivery_view(delivery: Delivery) -> WebhookDeliveryView:
    return WebhookDeliveryView(
        id=delivery.id,
        endpoint_id=delivery.endpoint_id,
        url=delivery.url,
        event_id=delivery.event_id,
        event=delivery.event_type,
        message_id=delivery.message_id,
        status=delivery.status,
        manual=delivery.manual,
        resent_from=delivery.resent_from,
        created_at=delivery.created_at,
        next_attempt_at=delivery.next_attempt_at,
        attempts=[attempt_view(attempt) for attempt in delivery.attempts],
    )


class WebhookDeliveryPage(BaseModel):
    deliveries: list[WebhookDeliveryView] = Field(description="Newest first.")
    has_more: bool
    next_cursor: str | None = Field(
        description="Pass as cursor, with the same filters, for the next page; null on the last page."
    )
