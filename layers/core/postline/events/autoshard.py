"""An account's event shards raised by themselves, from the rate its partitions are written at.

An operator can set an account's count (`postline events set-shards`), but an account whose sending
grows should not wait for one: DynamoDB would throttle its events partition first. The metrics
roll-up already reads every new event from the table's stream, and Lambda hands it all the records
of one partition key in one lane (the stream's order per key), with the second each record entered
the stream (ApproximateCreationDateTime). The most records one partition took in one second of a
batch is a lower bound on its write rate then: no extra write, no extra read on the hot path.

When a partition runs at AUTO_RAISE_AT of what one takes, the account's rate is estimated as that
partition's times the count in force (messages hash evenly over shards), and the count is raised
to carry GROWTH times that rate at sharding's HEADROOM, from RAISE_LEAD ahead as an operator's
raise would be. Until then the partition may throttle, which the writers retry (nothing is lost).
Counts only go up here: more shards cost a day's reads one Query each, and a lower count would
save nothing on days already written (their reads walk the day's largest count); an operator may
lower one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from postline.events.sharding import (
    MAX_SHARDS,
    PARTITION_WRITE_UNITS,
    WRITE_UNITS_PER_MESSAGE,
    shards_for,
)

if TYPE_CHECKING:
    from postline.events.ports import ShardSchedules, WrittenPartitions
    from postline.shared.ports import Clock

AUTO_RAISE_AT = 0.5  # of a partition's write units a second: well before it throttles
GROWTH = 2.0  # room for the rate to double before the next raise can apply
EVENTS_PER_MESSAGE = 3  # queued, sent, delivered: WRITE_UNITS_PER_MESSAGE is spread over these
# Fewer records of one partition in one second than this run far below AUTO_RAISE_AT (500 events a
# second at the constants above); skipping them keeps quiet batches from reading any schedule.
MIN_EVENTS = 100


def busiest_seconds(writes: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The most records each partition took in one second, from (partition key, epoch second) pairs."""
    per_second = Counter(writes)
    busiest: dict[str, int] = {}
    for (partition, _), count in per_second.items():
        busiest[partition] = max(busiest.get(partition, 0), count)
    return busiest


def wanted_count(events_per_second: int, count_in_force: int) -> int | None:
    """The count an account needs when one of its partitions takes `events_per_second` under
    `count_in_force` shards; None while that partition runs below AUTO_RAISE_AT."""
    units = events_per_second * WRITE_UNITS_PER_MESSAGE / EVENTS_PER_MESSAGE
    if units < AUTO_RAISE_AT * PARTITION_WRITE_UNITS:
        return None
    account_messages = events_per_second * max(1, count_in_force) / EVENTS_PER_MESSAGE
    try:
        return shards_for(GROWTH * account_messages, WRITE_UNITS_PER_MESSAGE)
    except ValueError:  # beyond what the table's design spreads: as far as it goes
        return MAX_SHARDS


def account_of(partition: str) -> str:
    """The account an events partition key (`EVT#<account>#<day>[.<s>]`) belongs to."""
    return partition.split("#")[1]


class AutoSharder:
    """After each stream batch: raises the shards of the accounts whose partitions ran hot in it."""

    def __init__(self, *, writes: WrittenPartitions, schedules: ShardSchedules, clock: Clock) -> None:
        self._writes = writes
        self._schedules = schedules
        self._clock = clock

    def after_batch(self, records: list[dict[str, Any]]) -> dict[str, int]:
        """Raises what the batch shows needs it; returns {account: new count} for what it raised."""
        raised: dict[str, int] = {}
        hottest: dict[str, int] = {}
        for partition, count in busiest_seconds(self._writes.write_seconds(records)).items():
            if count >= MIN_EVENTS:
                account = account_of(partition)
                hottest[account] = max(hottest.get(account, 0), count)
        now = self._clock.now()
        for account, events_per_second in hottest.items():
            schedule = self._schedules.schedule(account)
            wanted = wanted_count(events_per_second, schedule.count_at(now))
            if wanted is not None and wanted > schedule.latest:
                raised[account] = self._schedules.raise_to(account, wanted, now).latest
        return raised
