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

from pydantic import ConfigDict, ValidationError, model_validator

from postline.events.query import PublicEventType
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed
from postline.shared.signed_cursor import BoundCursor, Signer, seal, unseal
from postline.shared.times import UtcDatetime, utc
from postline.webhook_delivery.domain import Delivery, DeliveryStatus

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


class DeliveryFilters(Model):
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
