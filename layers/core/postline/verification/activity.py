"""Recipients' activity (the ValidationResult's `activity` block): the events table's stream,
counted per recipient as it flows, so POST /v3/validate reads one item instead of scanning events.

A separate stream consumer (functions/workers/recipient_activity.py), beside the webhook fan-out
and the metrics roll-up. Live events only: a test key's simulated events (data.test) are not a
recipient's history. Each event is counted once however often its record is delivered
(DynamoActivity.record); a failing write fails the batch, whose retry skips what was counted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from postline.events.domain import Event
from postline.shared.ports import Clock, Meter

COUNTED_METRIC = "RecipientActivityCounted"


class NewEvents(Protocol):
    def new_events(self, records: list[dict[str, Any]]) -> list[Event]: ...


class ActivityCounters(Protocol):
    def record(self, event: Event, now: datetime) -> bool: ...


class ActivityRecorder:
    def __init__(self, *, stream: NewEvents, counters: ActivityCounters, clock: Clock, meter: Meter) -> None:
        self._stream = stream
        self._counters = counters
        self._clock = clock
        self._meter = meter

    def record_records(self, records: list[dict[str, Any]]) -> int:
        return self.record(self._stream.new_events(records))

    def record(self, events: list[Event]) -> int:
        """Counts each live recipient event; returns how many were new."""
        counted = 0
        now = self._clock.now()
        for event in events:
            if event.recipient is None or event.data.get("test"):
                continue
            if self._counters.record(event, now):
                counted += 1
        if counted:
            self._meter.count(COUNTED_METRIC, counted)
        return counted
