"""Event shards raised by the metrics roll-up (events/autoshard.py), against moto: records read
back from the events table's real stream, the schedule item in the table, and a raise that never
lowers what another consumer set meanwhile."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from postline import wiring
from postline.events.autoshard import AutoSharder
from postline.events.sharding import RAISE_LEAD
from postline.events.store import DynamoEventStore, ShardDirectory, StreamRecords
from postline.metrics.service import RollupService
from postline.metrics.store import DynamoRollups
from tests.adapters.test_event_search import NOW, _event
from tests.adapters.test_metrics_rollups import Stream
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock


def _directory(stack: InProcessStack, cache_seconds: float = 0) -> ShardDirectory:
    return ShardDirectory(wiring.client("dynamodb"), stack.env["EVENTS_TABLE"], cache_seconds=cache_seconds)


def test_a_raise_keeps_a_higher_count_another_consumer_set_meanwhile(stack: InProcessStack) -> None:
    account_id = f"acct_{uuid.uuid4().hex[:10]}"
    stale = _directory(stack, cache_seconds=600)
    assert stale.schedule(account_id).latest == 1  # cached before the other raise
    _directory(stack).raise_to(account_id, 8, NOW)
    assert stale.raise_to(account_id, 4, NOW).latest == 8  # read again before writing: nothing lowered
    assert _directory(stack).schedule(account_id).latest == 8
    assert stale.schedule(account_id).latest == 8  # and what it read is what it keeps now
    raised = _directory(stack).raise_to(account_id, 12, NOW + timedelta(minutes=10))
    assert [count for _, count in raised.steps] == [8, 12]


def _one_second(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The batch as Lambda hands over a second's writes: moto stamps each record with the second it
    wrote it, and its writes here may straddle a second's boundary."""
    second = min(record["dynamodb"]["ApproximateCreationDateTime"] for record in records)
    return [{**record, "dynamodb": {**record["dynamodb"], "ApproximateCreationDateTime": second}} for record in records]


def test_the_roll_up_raises_the_shards_of_an_account_its_batch_shows_hot(stack: InProcessStack) -> None:
    stream = Stream(stack)
    account_id = f"acct_{uuid.uuid4().hex[:10]}"
    events = [_event(account_id, n, NOW + timedelta(milliseconds=3 * n)) for n in range(550)]
    DynamoEventStore(wiring.client("dynamodb"), stack.env["EVENTS_TABLE"]).put(events)
    records = _one_second(stream.read())
    assert len(StreamRecords().new_events(records)) == len(events)

    clock = FixedClock(NOW)
    sharder = AutoSharder(writes=StreamRecords(), schedules=_directory(stack), clock=clock)
    rollup = RollupService(
        stream=StreamRecords(),
        rollups=DynamoRollups(wiring.client("dynamodb"), stack.env["COUNTERS_TABLE"]),
        clock=clock,
        shards=sharder,
    )
    rollup.consume(records)
    # 550 events in a second on one partition (550 write units): ~183 messages a second, planned
    # for twice that at 800 units a shard.
    schedule = _directory(stack).schedule(account_id)
    assert schedule.latest == 2
    assert schedule.count_at(NOW + RAISE_LEAD + timedelta(minutes=1)) == 2
    assert schedule.count_at(NOW) == 1  # the events already written keep their shard
    rollup.consume(records)  # the batch again (a redelivery): counted once, raised once
    assert [count for _, count in _directory(stack).schedule(account_id).steps] == [2]
