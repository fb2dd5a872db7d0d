"""What the metrics services need from storage and from the events table's stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from postline.events.counts import CountKey
from postline.events.domain import Event

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry
    from postline.ip_pools.domain import Pool
    from postline.metrics.reputation import Snapshot

# A message+recipient's first open ("open") or click ("click"): (account, message, kind, recipient).
Pair = tuple[str, str, str, str]


@dataclass(frozen=True)
class ItemKey:
    """One roll-up item: an account's series in one UTC hour, for one mode (live or test)."""

    account_id: str
    mode: str
    day: str
    series: str
    hour: int


# One stream record's additions to one item: (events partition, padded sequence number, additions).
Entry = tuple[str, str, dict[str, int]]


@dataclass
class Chunk:
    """A run of item writes: counter additions per item (merged, and by the stream record each part
    comes from, which the item's marks skip on a redelivery: shared/stream_marks.py), and the
    accounts' first counted events."""

    adds: dict[ItemKey, dict[str, int]] = field(default_factory=dict)
    expires: dict[ItemKey, int] = field(default_factory=dict)
    counts: dict[CountKey, dict[str, int]] = field(default_factory=dict)  # the events query's counters
    entries: dict[ItemKey | CountKey, list[Entry]] = field(default_factory=dict)  # each item's, by record
    firsts: dict[str, datetime] = field(default_factory=dict)  # account -> earliest event counted

    @property
    def actions(self) -> int:
        return len(self.adds) + len(self.counts) + len(self.firsts)


@dataclass(frozen=True)
class RollupItem:
    day: str
    series: str
    hour: int
    values: dict[str, int]


@dataclass
class PackedDay:
    """What packing one day partition did: series packed, hour items folded into them, series
    left as they were because a write reached them meanwhile or their day would not fit one item."""

    series: int = 0
    hour_items: int = 0
    changed: int = 0
    too_large: int = 0


class DayEvents(Protocol):
    def day_events(self, account_id: str, day: str) -> list[Event]: ...


class PositionedEvents(Protocol):
    def positioned_events(self, records: list[dict[str, Any]]) -> list[tuple[str, str, Event]]:
        """(events partition key, sequence number, event) of each new event of a stream batch."""
        ...


class Rollups(Protocol):
    def watermarks(self, partitions: list[str]) -> dict[str, str]: ...

    def packed_through(self, account_id: str) -> date | None:
        """The last day packing has closed for the account (its hour items, and their marks, gone)."""
        ...

    def claim_pairs(self, pairs: dict[Pair, tuple[str, int]]) -> dict[Pair, str]:
        """Claims each pair for its event (pair -> (event id, TTL)) where no event holds it yet;
        returns the event holding each pair afterwards."""
        ...

    def pair_events(self, pairs: list[Pair]) -> dict[Pair, str]:
        """The event each pair's marker says was counted (markers written before a backfill)."""
        ...

    def replace_day(
        self, account_id: str, day: str, items: dict[ItemKey, dict[str, int]], expires: dict[ItemKey, int]
    ) -> int:
        """Makes the day's roll-up items (both modes) exactly `items`; returns how many it wrote."""
        ...

    def put_pairs(self, pairs: dict[Pair, tuple[str, int]]) -> None: ...

    def replace_counts(self, account_id: str, day: str, items: dict[CountKey, dict[str, int]]) -> int:
        """Puts the day's event counters (events/counts.py) whole; returns how many items."""
        ...

    def extend_complete_from(self, account_id: str, day: date) -> None: ...

    def first_counted(self, account_id: str) -> datetime | None: ...

    def apply(self, chunk: Chunk) -> set[tuple[str, str]]:
        """Writes the chunk's additions each item lacks; returns the (partition, sequence number)
        of the records whose additions it wrote now."""
        ...

    def note_lag(self, now: datetime, lag_seconds: float) -> None:
        """Keeps how far behind the stream the consumer is (the largest of the minute)."""
        ...

    def read(
        self,
        account_id: str,
        mode: str,
        days: list[str],
        *,
        series: str | None = None,
        dimension: str | None = None,
        span: tuple[str, str] | None = None,
        budget_seconds: float,
    ) -> list[RollupItem]: ...


class PackingStore(Protocol):
    def pack_day(self, account_id: str, mode: str, day: str) -> PackedDay: ...

    def consumer_lag(self, now: datetime) -> float:
        """The largest lag (seconds) the roll-up consumer noted lately; 0 when it noted none (an
        idle stream is not behind)."""
        ...

    def packed_through(self, account_id: str) -> date | None: ...

    def save_packed_through(self, account_id: str, day: date) -> None: ...

    def pass_position(self, day: date) -> tuple[dict[str, Any] | None, bool]: ...

    def save_pass_position(self, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime) -> None: ...

    def accounts_with_history(self, position: dict[str, Any] | None, limit: int) -> tuple[list[str], Any]: ...

    def history_from(self, account_id: str) -> date | None: ...


class Workspaces(Protocol):
    """An organisation's subaccounts: the rows of the breakdown by subaccount."""

    def list_subaccounts(self, parent_id: str, *, page: int, per_page: int) -> tuple[list[Account], int]: ...


class ReputationStore(Protocol):
    """Reputation snapshots (metrics/reputation_store.py)."""

    def claim(self, account_id: str, mode: str, now: datetime, every: timedelta) -> bool:
        """Whether the caller evaluates the account now: true at most once per `every`."""
        ...

    def snapshot(self, account_id: str, mode: str) -> Snapshot | None: ...

    def save(
        self,
        account_id: str,
        mode: str,
        snapshot: Snapshot,
        *,
        read_version: int,
        audits: list[AuditEntry],
        expires_at: int | None = None,
    ) -> bool:
        """The snapshot and the audit entries in one write; False (nothing written) when another
        save happened since `read_version`."""
        ...


class PoolNames(Protocol):
    def list_pools(self, account_id: str | None) -> list[Pool]:
        """The account's own IP pools (ip_pools/ports.py IpPoolStore)."""
        ...


class OwnerNotices(Protocol):
    def email_owner(self, account_id: str, subject: str, text: str) -> None:
        """A notice to the account's owner; never raises."""
        ...


class AfterBatch(Protocol):
    def after_batch(self, touched: list[tuple[str, str]]) -> int:
        """Called with the (account, mode) pairs whose sends, bounces or complaints a batch counted,
        once it is committed; never raises (reputation_service.py ReputationService)."""
        ...
