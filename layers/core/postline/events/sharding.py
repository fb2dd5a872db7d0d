"""Write sharding of an account's event partitions: how many, which one an event goes to, and
how reads fan back in.

A DynamoDB partition takes about 1,000 write units a second. Every event of an account's UTC day
would go to one partition (`EVT#<account>#<day>`, and the tag and by_type partitions beside it),
so one account would top out near that whatever the rest of the stack does. Each of those keys is
therefore split into `count` shards: shard 0 keeps today's key exactly (no migration: data written
before sharding is shard 0 of a one-shard day), shard s > 0 appends `.<s>` to the day
(`EVT#<account>#<day>.<s>`, `TAG#<account>#<day>.<s>#<tag>`, by_type `<account>#<day>.<s>#<type>`).

Which shard: a hash of the event's message id, modulo the count in force at the event's
timestamp. A message's events share a shard, so the stream still hands them to the webhooks'
fan-out in order (the stream orders records per partition key), and a repeated step (the same
event id, message and timestamp) lands on the same key as the first write.

How many (`ShardSchedule`): every account starts at one shard (nothing changes, in keys or in
cost). The metrics roll-up raises it when a partition runs hot (autoshard.py), and an operator
may set it (`postline events set-shards <account> <count>`, or to the count `shards_for(rate)`
gives for a rate): the new count applies from the first whole minute at least
RAISE_LEAD ahead, never to a past instant. Writers and readers keep an account's schedule for at
most CACHE_SECONDS (< RAISE_LEAD), so every writer knows a count before any event it covers is
stamped, and a stored event's shard is a function of the event and the schedule forever after.

Reads: a day is read over every shard any step in force during it had (`ShardSchedule.shards_on`:
the maximum; a day raised at noon is read at its new count, whose extra shards hold only the
afternoon). Each shard is one Query in the same sort-key range; `merge_newest` merges them by sort
key (timestamp, event id: unique), so a page, its cursor (the last event's sort key, as before)
and total_count (a COUNT per shard, summed) are exactly what one partition would give.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TypeVar

MAX_SHARDS = 64  # 64 partitions: ~51,000 write units a second for one account's events
PARTITION_WRITE_UNITS = 1_000  # what one DynamoDB partition takes a second
HEADROOM = 0.8  # plan for 80% of a partition: hashing messages is not perfectly even
# A delivered message's write units on its events partition, as bench section h measures them
# (cloud.partition_write_units on the recorded calls): `queued`, `sent` and `delivered` 1 each (batch
# writes; 5 while the dispatcher recorded in transactions, which consume twice); its tag partition
# takes as much; the by_type key none (the sparse index holds none of those three types).
WRITE_UNITS_PER_MESSAGE = 3.0
RAISE_LEAD = timedelta(minutes=2)  # a new count applies from a whole minute at least this far ahead
CACHE_SECONDS = 60.0  # how long writers and readers keep a schedule (< RAISE_LEAD)
MAX_STEPS = 64  # the schedule's length: the oldest steps go first (they cover days long expired)
T = TypeVar("T")


def shard_of(message_id: str, count: int) -> int:
    """The shard (0 to count - 1) of a message's events under `count` shards."""
    if count <= 1:
        return 0
    return int.from_bytes(hashlib.blake2b(message_id.encode(), digest_size=8).digest(), "big") % count


def day_part(day: str, shard: int) -> str:
    """The day as it appears in a shard's keys: shard 0 keeps the bare day (today's keys)."""
    return day if shard == 0 else f"{day}.{shard}"


def shard_of_key(value: str) -> int:
    """The shard a partition key names (`EVT#<account>#<day>[.<s>]`)."""
    _, _, last = value.rpartition("#")
    _, dot, shard = last.partition(".")
    return int(shard) if dot else 0


def shards_for(messages_per_second: float, write_units_per_message: float) -> int:
    """The count an account sending `messages_per_second` needs: its events' write units on the
    busiest of the keys (the events partition) spread so that each shard stays under HEADROOM of a
    partition. Above MAX_SHARDS: ValueError (the table's design, not a setting, would have to change)."""
    needed = max(1, math.ceil(messages_per_second * write_units_per_message / (PARTITION_WRITE_UNITS * HEADROOM)))
    if needed > MAX_SHARDS:
        raise ValueError(f"{messages_per_second:,.0f} messages/s need {needed} shards; at most {MAX_SHARDS}")
    return needed


def _ceil_minute(moment: datetime) -> datetime:
    floored = moment.replace(second=0, microsecond=0)
    return floored if floored == moment else floored + timedelta(minutes=1)


@dataclass(frozen=True)
class ShardSchedule:
    """An account's shard counts over time: (from, count) steps, oldest first. Before the first
    step, and with none, one shard."""

    steps: tuple[tuple[datetime, int], ...] = ()

    def count_at(self, moment: datetime) -> int:
        """The count writers use for an event stamped at `moment`."""
        count = 1
        for start, value in self.steps:
            if start > moment:
                break
            count = value
        return count

    @property
    def latest(self) -> int:
        """The count the schedule ends at: a raise still pending included."""
        return self.steps[-1][1] if self.steps else 1

    def shards_on(self, day: date) -> int:
        """How many shards a read of `day` walks: the most any count in force during it had."""
        start = datetime.combine(day, time(0), tzinfo=UTC)
        end = start + timedelta(days=1)
        counts = [self.count_at(start)] + [value for at, value in self.steps if start <= at < end]
        return max(counts)

    def raised(self, count: int, now: datetime) -> ShardSchedule:
        """The schedule with `count` in force from the first whole minute RAISE_LEAD ahead of `now`
        (a lower count too: reads keep walking a day's largest). Past instants never change."""
        if not 1 <= count <= MAX_SHARDS:
            raise ValueError(f"a shard count is 1 to {MAX_SHARDS}")
        start = _ceil_minute(now.astimezone(UTC) + RAISE_LEAD)
        kept = tuple(step for step in self.steps if step[0] < start)  # a pending change is replaced
        return ShardSchedule((*kept, (start, count))[-MAX_STEPS:])

    def encode(self) -> list[str]:
        return [f"{start.astimezone(UTC).isoformat()}|{count}" for start, count in self.steps]

    @classmethod
    def decode(cls, values: Iterable[str]) -> ShardSchedule:
        steps = []
        for value in values:
            start, _, count = value.partition("|")
            steps.append((datetime.fromisoformat(start), int(count)))
        return cls(tuple(sorted(steps)))


ONE_SHARD = ShardSchedule()


def merge_newest(sources: Iterable[Iterator[T]], sort_key: Callable[[T], str]) -> Iterator[T]:
    """Sources each newest first by `sort_key` (disjoint: an event is in one shard), as one, newest first."""
    return heapq.merge(*sources, key=sort_key, reverse=True)


def merge_oldest(sources: Iterable[Iterator[T]], sort_key: Callable[[T], str]) -> Iterator[T]:
    return heapq.merge(*sources, key=sort_key)
