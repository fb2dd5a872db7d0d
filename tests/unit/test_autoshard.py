"""An account's event shards raised from its partitions' write rate (events/autoshard.py): when a
partition runs hot, to what count, and that a count only goes up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline.events.autoshard import MIN_EVENTS, AutoSharder, busiest_seconds, wanted_count
from postline.events.sharding import MAX_SHARDS, RAISE_LEAD, ShardSchedule
from postline.events.store import StreamRecords
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 11, 28, 12, 0, 30, tzinfo=UTC)
SECOND = int(NOW.timestamp())


class Schedules:
    """The accounts' schedules in memory, as ShardDirectory keeps them."""

    def __init__(self) -> None:
        self.held: dict[str, ShardSchedule] = {}
        self.reads = 0

    def schedule(self, account_id: str) -> ShardSchedule:
        self.reads += 1
        return self.held.get(account_id, ShardSchedule())

    def raise_to(self, account_id: str, count: int, now: datetime) -> ShardSchedule:
        current = self.schedule(account_id)
        if current.latest < count:
            self.held[account_id] = current.raised(count, now)
        return self.held.get(account_id, current)


def _records(partition: str, per_second: dict[int, int]) -> list[dict[str, Any]]:
    """Stream records of new events as Lambda hands them over: `per_second[s]` in second s."""
    return [
        {
            "eventName": "INSERT",
            "dynamodb": {
                "Keys": {"pk": {"S": partition}, "sk": {"S": f"{second}#{n}"}},
                "ApproximateCreationDateTime": float(second),
            },
        }
        for second, count in per_second.items()
        for n in range(count)
    ]


def _sharder(schedules: Schedules) -> AutoSharder:
    return AutoSharder(writes=StreamRecords(), schedules=schedules, clock=FixedClock(NOW))


def test_the_busiest_second_of_each_partition_is_its_rate() -> None:
    writes = [("EVT#a#d", SECOND)] * 3 + [("EVT#a#d", SECOND + 1)] * 5 + [("EVT#b#d", SECOND)] * 2
    assert busiest_seconds(writes) == {"EVT#a#d": 5, "EVT#b#d": 2}


@pytest.mark.parametrize(
    ("events_per_second", "in_force", "wanted"),
    [
        (499, 1, None),  # 499 write units a second: under half a partition
        (500, 1, 2),  # 500: ~167 messages a second, planned for ~333 (1,000 units) at 800 units a shard
        (1_000, 1, 3),
        (500, 4, 5),  # the account runs at four times what one of its four shards shows
        (30_000, 1, MAX_SHARDS),  # beyond what the table spreads: as far as it goes
    ],
)
def test_the_count_wanted_carries_twice_the_accounts_rate(
    events_per_second: int, in_force: int, wanted: int | None
) -> None:
    assert wanted_count(events_per_second, in_force) == wanted


def test_a_hot_partition_raises_its_accounts_shards_from_the_lead_on() -> None:
    schedules = Schedules()
    raised = _sharder(schedules).after_batch(_records("EVT#acct_hot#2026-11-28", {SECOND: 750, SECOND + 1: 120}))
    assert raised == {"acct_hot": 2}  # 450 events/s: 150 messages/s, carried twice at 800 units a shard
    schedule = schedules.held["acct_hot"]
    assert schedule.count_at(NOW + RAISE_LEAD) == 1  # not before the first whole minute past the lead
    assert schedule.count_at(NOW + RAISE_LEAD + timedelta(seconds=30)) == 2


def test_a_quiet_batch_reads_no_schedule_and_a_hot_one_never_lowers_a_count() -> None:
    schedules = Schedules()
    sharder = _sharder(schedules)
    assert sharder.after_batch(_records("EVT#acct_q#2026-11-28", {SECOND: MIN_EVENTS - 1})) == {}
    assert schedules.reads == 0
    schedules.held["acct_q"] = ShardSchedule().raised(16, NOW - timedelta(hours=1))
    # 250 events a second on one of 16 shards (250 write units): the 16 carry it.
    assert sharder.after_batch(_records("EVT#acct_q#2026-11-28.3", {SECOND: 250})) == {}
    assert schedules.held["acct_q"].latest == 16
    # A count already pending above what a batch asks for stays (another consumer raised it).
    schedules.held["acct_q"] = schedules.held["acct_q"].raised(40, NOW)
    assert sharder.after_batch(_records("EVT#acct_q#2026-11-28.3", {SECOND: 600})) == {}  # wants 24
    assert schedules.held["acct_q"].latest == 40


def test_tag_items_and_changes_are_not_counted() -> None:
    records = _records("TAG#acct_t#2026-11-28#welcome", {SECOND: 900})
    records += [{**record, "eventName": "MODIFY"} for record in _records("EVT#acct_t#2026-11-28", {SECOND: 900})]
    schedules = Schedules()
    assert _sharder(schedules).after_batch(records) == {}
    assert schedules.reads == 0
