"""What the events query and exports need from the events table.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.events.counts import CountItems, Coverage, KnownCount
    from postline.events.domain import Event
    from postline.events.query import QueryPlan, SearchResult
    from postline.events.sharding import ShardSchedule


class EventStore(Protocol):
    def put(self, events: list[Event]) -> None: ...


class EventSearch(Protocol):
    def search(
        self,
        account_id: str,
        plan: QueryPlan,
        *,
        limit: int,
        count: bool,
        budget_seconds: float,
        known: KnownCount | None = None,
    ) -> SearchResult:
        """Up to `limit` events of the plan, newest first, whether more match, and (when `count`)
        the number of all matches: `known` already counts its part of the window, so only the rest
        is counted. Raises TimeoutError when that takes longer than the budget."""
        ...


class EventCounts(Protocol):
    def read(
        self, account_id: str, series: str, first: date, last: date, partial: list[date], *, budget_seconds: float
    ) -> tuple[Coverage, CountItems]:
        """The account's coverage, a series' days from `first` to `last` (summed from their hour
        items) and the hour items of the `partial` days (events/counts.py). Raises TimeoutError
        past the budget."""
        ...


class EventStream(Protocol):
    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        """Every event of the plan, newest first, read a page at a time."""
        ...


class NewEvents(Protocol):
    def new_events(self, records: list[dict[str, Any]]) -> list[Event]:
        """The events newly written, from a batch of the events table's stream records (what the
        table stores beside them, such as tag items, and other changes are skipped)."""
        ...


class WrittenPartitions(Protocol):
    def write_seconds(self, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
        """(events partition key, epoch second it entered the stream) of each new event of a batch
        of the events table's stream records."""
        ...


class ShardSchedules(Protocol):
    def schedule(self, account_id: str) -> ShardSchedule:
        """The account's schedule, as writers read it (cached for at most sharding.CACHE_SECONDS)."""
        ...

    def raise_to(self, account_id: str, count: int, now: datetime) -> ShardSchedule:
        """At least `count` from RAISE_LEAD on: a higher count already set or pending stays."""
        ...
