"""Recipients' activity (the ValidationResult's `activity` block): the events table's stream,
counted per recipient as it flows, so POST /v3/validate reads one item instead of scanning events.

A separate stream consumer (functions/workers/recipient_activity.py), beside the webhook fan-out
and the metrics roll-up. Live events only: a test key's simulated events (data.test) are not a
recipient's history.

Aggregated per stream batch, like the metrics roll-up: a batch's events become one conditional
update per recipient, no transaction: the recipient's item keeps the last stream record of each
events partition it added (its marks, shared/stream_marks.py), so each event counts once however
often its record is delivered, at one write unit per recipient and batch. First and last seen
move only outwards: each update sets them from the batch's earliest and latest event only where
that widens what the item held when read, conditional on it still holding that; when a concurrent
run for the same recipient (another shard) or an earlier try of this batch changed the item, the
write is rebuilt from the item it failed on and tried again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from postline.events.domain import Event
from postline.shared import stream_watermarks
from postline.shared.ports import Clock, Meter
from postline.verification.ports import ActivityCounters, PositionedEvents

COUNTED_METRIC = "RecipientActivityCounted"
MAX_ACTIONS = 100  # recipients written per run of writes (a chunk)
# Event type -> the activity counter it adds one to (every event of the recipient counts in `events`).
COUNTED = {
    "sent": "total_sends",
    "delivered": "delivered",
    "bounced": "bounced",
    "opened": "opened",
    "clicked": "clicked",
    "complained": "complained",
    "unsubscribed": "unsubscribed",
}

Recipient = tuple[str, str]  # (account id, address lowercased)


@dataclass(frozen=True)
class Seen:
    """A recipient's first and last seen as its item held them when read (ISO strings, or None)."""

    first: str | None = None
    last: str | None = None


@dataclass
class Tally:
    """One recipient's additions from a run of events."""

    first_seen: datetime
    last_seen: datetime
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, event: Event) -> None:
        for name in ("events", COUNTED.get(event.type.value)):
            if name is not None:
                self.counts[name] = self.counts.get(name, 0) + 1
        self.first_seen = min(self.first_seen, event.timestamp)
        self.last_seen = max(self.last_seen, event.timestamp)


@dataclass
class ActivityChunk:
    """A run of writes: each recipient's events, by the stream record each comes from."""

    events: dict[Recipient, list[tuple[str, str, Event]]] = field(default_factory=dict)  # (partition, seq, event)

    @property
    def actions(self) -> int:
        return len(self.events)

    def tally(self, recipient: Recipient) -> Tally:
        """The recipient's additions from all of its events in the chunk."""
        return tally_of([event for _, _, event in self.events[recipient]])


def tally_of(events: list[Event]) -> Tally:
    tally = Tally(events[0].timestamp, events[0].timestamp)
    for event in events:
        tally.add(event)
    return tally


def widens(held: str | None, candidate: datetime, *, earlier: bool) -> bool:
    """Whether `candidate` moves a first (earlier=True) or last seen outwards from `held`."""
    if held is None:
        return True
    was = datetime.fromisoformat(held)
    return candidate < was if earlier else candidate > was


def recipient_of(event: Event) -> Recipient:
    assert event.recipient is not None
    return event.account_id, event.recipient.lower()


class ActivityRecorder:
    def __init__(self, *, stream: PositionedEvents, counters: ActivityCounters, clock: Clock, meter: Meter) -> None:
        self._stream = stream
        self._counters = counters
        self._clock = clock
        self._meter = meter

    def record_records(self, records: list[dict[str, Any]]) -> int:
        """Counts each live recipient event of a stream batch; returns how many were new."""
        countable = [
            (partition, stream_watermarks.padded(seq), event)
            for partition, seq, event in self._stream.positioned_events(records)
            if event.recipient is not None and not event.data.get("test")
        ]
        if not countable:
            return 0
        # The watermark items of the transactional consumer this one replaced: what they say was
        # counted was (they expire three days after their last write).
        marks = self._counters.watermarks([p for p, _, _ in countable])
        fresh = [(p, seq, event) for p, seq, event in countable if seq > (marks.get(p) or "")]
        if not fresh:
            return 0
        seen = self._counters.seen(list(dict.fromkeys(recipient_of(event) for _, _, event in fresh)))
        chunk, counted = ActivityChunk(), 0
        for partition, seq, event in fresh:
            recipient = recipient_of(event)
            if chunk.actions + (recipient not in chunk.events) > MAX_ACTIONS:
                counted += self._counters.apply(chunk, seen)
                chunk = ActivityChunk()
            chunk.events.setdefault(recipient, []).append((partition, seq, event))
        counted += self._counters.apply(chunk, seen)
        self._meter.count(COUNTED_METRIC, counted)
        return counted
