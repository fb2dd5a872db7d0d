"""What the metrics services need from storage and from the events table's stream."""

from __future__ import annotations

from typing import Any, Protocol

from postline.events.domain import Event
from postline.metrics.store import Chunk, RollupItem


class PositionedEvents(Protocol):
    def positioned_events(self, records: list[dict[str, Any]]) -> list[tuple[str, str, Event]]:
        """(events partition key, sequence number, event) of each new event of a stream batch."""
        ...


class Rollups(Protocol):
    def watermarks(self, partitions: list[str]) -> dict[str, str]: ...

    def seen_pairs(self, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]: ...

    def apply(self, chunk: Chunk, now_epoch: int) -> None: ...

    def read(
        self,
        account_id: str,
        mode: str,
        days: list[str],
        *,
        series: str | None = None,
        dimension: str | None = None,
        budget_seconds: float,
    ) -> list[RollupItem]: ...
