"""Querying events (GET /v3/events): filters, the opaque cursor and the query plan.

Pure: the storage adapter executes the plan. Events are ordered newest first by (timestamp, id),
which is also the sort key of the table and of each index, so a page's position is the last
event it returned and the next page starts just after it, however the events are partitioned.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from postline.events.domain import Event
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed
from postline.shared.message_fields import METADATA_KEY
from postline.shared.signed_cursor import BoundCursor, Signer, from_urlsafe_b64, seal, unseal, urlsafe_b64
from postline.shared.times import UtcDatetime, utc

DEFAULT_LIMIT = 25
MAX_LIMIT = 300
MAX_METADATA_FILTERS = 3
MAX_METADATA_VALUE = 200
# Every public type may be a filter (the interface's list); `duplicate` is only ever a record.
PublicEventType = Literal[
    "queued",
    "sent",
    "delivered",
    "opened",
    "clicked",
    "bounced",
    "complained",
    "unsubscribed",
    "delayed",
    "rejected",
    "failed",
]
# The types the sparse by_type index does not hold (events/store.py writes them no `type_key`): a
# delivered message's `queued`, `sent` and `delivered`, each about a third of an account's events
# (a quarter once opens, clicks and bounces join), and `duplicate`, never a type filter. A filter
# on one reads the day partitions with a type filter (about 3-4 items read for each it returns)
# and saves the index write of every such event: 3 write units a delivered message with its send.
# Every other type is a few percent of the traffic at most: its index partition keeps its reads
# proportional to what it returns.
DAY_READ_TYPES: frozenset[str] = frozenset({"queued", "sent", "delivered", "duplicate"})
TYPE_SPREAD = 4  # events of the day partitions read for each of a DAY_READ_TYPES type, at most
_METADATA_PARAM = re.compile(r"^metadata\[(.*)\]$")
_CURSOR_VERSION = 1


def _check_metadata_filters(metadata: dict[str, str]) -> dict[str, str]:
    if len(metadata) > MAX_METADATA_FILTERS:
        raise ValueError(f"at most {MAX_METADATA_FILTERS} metadata filters")
    for name, value in metadata.items():
        if not METADATA_KEY.fullmatch(name):
            raise ValueError(f"metadata key {name!r}: 1-64 letters, digits, dots, dashes or underscores")
        if len(value) > MAX_METADATA_VALUE:
            raise ValueError(f"metadata {name!r}: values are at most {MAX_METADATA_VALUE} characters")
    return metadata


MetadataFilters = Annotated[
    dict[str, str],
    AfterValidator(_check_metadata_filters),
    Field(
        description="Exact match on metadata attached at send: at most 3 keys (1-64 letters, digits, "
        "dots, dashes, underscores), values at most 200 characters.",
        json_schema_extra={
            "maxProperties": MAX_METADATA_FILTERS,
            "propertyNames": {"pattern": METADATA_KEY.pattern},
            "additionalProperties": {"type": "string", "maxLength": MAX_METADATA_VALUE},
        },
    ),
]


class EventFilters(Model):
    """What GET /v3/events and an export select. All given filters combine (AND)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: PublicEventType | None = Field(default=None, description="One event type.")
    recipient: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=320)] | None = Field(
        default=None, description="Exact address, compared case-insensitively."
    )
    tag: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = Field(
        default=None, description="Events carrying this tag."
    )
    message_id: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        default=None, description="All events of one message."
    )
    metadata: MetadataFilters = Field(default_factory=dict)
    ip_pool: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        default=None, description="Events of copies sent through this IP pool (its id; data.ip_pool)."
    )
    ip: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        default=None, description="Events of copies sent from this source address (data.ip)."
    )
    since: UtcDatetime | None = Field(default=None, description="Events at or after (ISO 8601).")
    until: UtcDatetime | None = Field(default=None, description="Events at or before (ISO 8601).")

    @field_validator("recipient")
    @classmethod
    def _lowercase(cls, value: str | None) -> str | None:
        return value.lower() if value is not None else None

    @model_validator(mode="after")
    def _ordered(self) -> EventFilters:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError("since must not be later than until")
        return self

    def fingerprint(self, account_id: str) -> str:
        """Identifies the query (account and normalized filters): a cursor only continues its own."""
        normalized = json.dumps(
            {"account": account_id, **self.model_dump(mode="json")}, sort_keys=True, separators=(",", ":")
        )
        return hashlib.sha256(normalized.encode()).hexdigest()[:32]


def event_filters(metadata_params: Mapping[str, Sequence[str]] | None = None, **fields: Any) -> EventFilters:
    """EventFilters from query parameters: `fields` by name, and the raw query's `metadata[key]`s.

    Raises ValidationFailed (400) rather than pydantic's error, which a route would answer with 500.
    """
    metadata: dict[str, str] = {}
    for name, values in (metadata_params or {}).items():
        found = _METADATA_PARAM.fullmatch(name)
        if found is None:
            continue
        if len(values) != 1:
            raise ValidationFailed(f"{name}: give each metadata filter once")
        metadata[found.group(1)] = values[0]
    try:
        return EventFilters(**fields, metadata=metadata)
    except ValidationError as error:
        raise ValidationFailed.first_of(error) from error


# -- the window ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """The closed time range a query reads: [since, until] clamped to what can exist."""

    since: datetime
    until: datetime

    @property
    def days(self) -> list[date]:
        """UTC days the window touches, newest first."""
        first, last = self.since.date(), self.until.date()
        return [last - timedelta(days=n) for n in range((last - first).days + 1)]


def resolve_window(
    filters: EventFilters, *, now: datetime, retention_days: int, account_created: datetime | None = None
) -> Window | None:
    """The window to read, or None when it cannot hold an event.

    A since older than the retention (or than the account) is clamped, not an error, as the interface asks;
    so is an until in the future: no event is newer than now.
    """
    floor = now - timedelta(days=retention_days)
    if account_created is not None:
        floor = max(floor, utc(account_created) if account_created is not None else floor)
    since = max(filters.since, floor) if filters.since else floor
    until = min(filters.until, now) if filters.until else now
    return Window(since, until) if since <= until else None


# -- the plan ------------------------------------------------------------------------------------


class Strategy(StrEnum):
    """Which key a query reads by, most selective first."""

    MESSAGE = "message"  # the message's events: one index partition
    RECIPIENT = "recipient"  # one recipient's events across days: one index partition
    TAG = "tag"  # one tag, one table partition of tag items per day
    TYPE = "type"  # one type the by_type index holds, one index partition per day
    DAY = "day"  # every event (or one of DAY_READ_TYPES, filtered), one table partition per day


@dataclass(frozen=True)
class Position:
    """The last event a page returned; the next page holds strictly older ones."""

    timestamp: datetime
    event_id: str


@dataclass(frozen=True)
class QueryPlan:
    strategy: Strategy
    key: str | None  # the message id, lowercased recipient, tag or type the strategy reads by
    days: tuple[date, ...]  # partitions to walk, newest first; empty for single-partition strategies
    window: Window
    after: Position | None
    residual: EventFilters  # what the key does not select: applied as filters on what is read

    @property
    def single_partition(self) -> bool:
        return self.strategy in (Strategy.MESSAGE, Strategy.RECIPIENT)


def plan_query(
    filters: EventFilters,
    window: Window,
    after: Position | None = None,
    days_with_events: Collection[date] | None = None,
) -> QueryPlan:
    """Reads by the most selective filter given; the others narrow what it reads. Day partitions
    known to hold no match (counted on the first page) are left out.

    A tag goes before a type: a type is one of a few values, each a large share of the traffic,
    where a tag is the sender's own label of some of its mail. A type the sparse by_type index
    does not hold (DAY_READ_TYPES) is read from the day partitions and filtered: those partitions
    hold every such event, those stored before the index went sparse (with a `type_key`) too, so
    each is read once."""
    strategy, key, used = Strategy.DAY, None, None
    if filters.message_id is not None:
        strategy, key, used = Strategy.MESSAGE, filters.message_id, "message_id"
    elif filters.recipient is not None:
        strategy, key, used = Strategy.RECIPIENT, filters.recipient, "recipient"
    elif filters.tag is not None:
        strategy, key, used = Strategy.TAG, filters.tag, "tag"
    elif filters.event is not None and filters.event not in DAY_READ_TYPES:
        strategy, key, used = Strategy.TYPE, filters.event, "event"
    # The window is the key condition's range; what remains are filters on what is read.
    cleared = {"since": None, "until": None, **({used: None} if used else {})}
    residual = filters.model_copy(update=cleared)
    days: tuple[date, ...] = ()
    if strategy in (Strategy.TAG, Strategy.TYPE, Strategy.DAY):
        newest = after.timestamp.date() if after is not None else window.until.date()
        days = tuple(
            day for day in window.days if day <= newest and (days_with_events is None or day in days_with_events)
        )
    return QueryPlan(strategy, key, days, window, after, residual)


# -- the cursor ----------------------------------------------------------------------------------


class EventCursor(BoundCursor):
    """What next_cursor carries: the query it belongs to, its window, its total, the position, and
    which of the window's days hold matches (a bitmap: later pages skip the empty ones unread)."""

    total_count: int = Field(ge=0)
    since: datetime
    until: datetime
    at: datetime
    event_id: str
    days: str | None = None

    @property
    def window(self) -> Window:
        return Window(self.since, self.until)

    @property
    def position(self) -> Position:
        return Position(self.at, self.event_id)


def pack_days(window: Window, days: Collection[date]) -> str:
    """The window's days (newest first) as a bitmap, base64url: 366 days take 62 characters."""
    bits = bytearray((len(window.days) + 7) // 8)
    for index, day in enumerate(window.days):
        if day in days:
            bits[index // 8] |= 0x80 >> index % 8
    return urlsafe_b64(bytes(bits))


def unpack_days(window: Window, packed: str) -> frozenset[date]:
    bits = from_urlsafe_b64(packed)
    return frozenset(
        day for index, day in enumerate(window.days) if index // 8 < len(bits) and bits[index // 8] & 0x80 >> index % 8
    )


_PURPOSE = f"events.cursor.v{_CURSOR_VERSION}"


def encode_cursor(cursor: EventCursor, sign: Signer) -> str:
    return seal(cursor, sign, purpose=_PURPOSE)


def decode_cursor(token: str, sign: Signer, *, fingerprint: str) -> EventCursor:
    return unseal(token, EventCursor, sign, purpose=_PURPOSE, fingerprint=fingerprint)


# -- what the API shows --------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """A page the store read: up to `limit` events, whether more match, and the count if asked."""

    events: list[Event]
    has_more: bool
    total_count: int | None
    days_with_events: tuple[date, ...] | None = None  # of a day plan's partitions, when counted
