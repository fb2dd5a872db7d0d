"""Write sharding of the events partitions (events/sharding.py): the shard an event goes to, the
schedule of counts over time, and the merge of a day's shards back into one order."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest

from postline.events.sharding import (
    MAX_SHARDS,
    RAISE_LEAD,
    ShardSchedule,
    day_part,
    merge_newest,
    merge_oldest,
    shard_of,
    shard_of_key,
    shards_for,
)
from postline.events.store import event_pk, tag_pk, type_key

NOW = datetime(2026, 3, 14, 12, 0, 30, tzinfo=UTC)


def test_one_shard_keeps_the_keys_of_before_sharding() -> None:
    assert shard_of("msg_1", 1) == 0
    assert event_pk("acct_1", "2026-03-14") == event_pk("acct_1", "2026-03-14", 0) == "EVT#acct_1#2026-03-14"
    assert tag_pk("acct_1", "2026-03-14", "news", 0) == "TAG#acct_1#2026-03-14#news"
    assert type_key("acct_1", "2026-03-14", "sent", 0) == "acct_1#2026-03-14#sent"


def test_a_shard_names_itself_in_every_key_and_is_read_back_from_it() -> None:
    assert event_pk("acct_1", "2026-03-14", 5) == "EVT#acct_1#2026-03-14.5"
    assert tag_pk("acct_1", "2026-03-14", "a#b", 5) == "TAG#acct_1#2026-03-14.5#a#b"
    assert type_key("acct_1", "2026-03-14", "sent", 5) == "acct_1#2026-03-14.5#sent"
    for shard in (0, 1, 5, 63):
        assert shard_of_key(event_pk("acct_1", "2026-03-14", shard)) == shard
        assert day_part("2026-03-14", shard).startswith("2026-03-14")


def test_a_message_always_goes_to_the_same_shard_and_messages_spread_evenly() -> None:
    counts = Counter(shard_of(f"msg_{n}", 16) for n in range(16_000))
    assert set(counts) == set(range(16))
    assert max(counts.values()) < 1.15 * 1_000 and min(counts.values()) > 0.85 * 1_000
    assert all(shard_of(f"msg_{n}", 16) == shard_of(f"msg_{n}", 16) for n in range(100))
    assert all(0 <= shard_of(f"msg_{n}", 7) < 7 for n in range(1_000))


def test_every_account_starts_at_one_shard() -> None:
    schedule = ShardSchedule()
    assert schedule.count_at(NOW) == 1
    assert schedule.shards_on(NOW.date()) == 1


def test_a_raise_applies_from_a_whole_minute_ahead_never_to_the_past() -> None:
    raised = ShardSchedule().raised(8, NOW)
    ((start, count),) = raised.steps
    assert count == 8
    assert start >= NOW + RAISE_LEAD and start.second == start.microsecond == 0
    assert start - (NOW + RAISE_LEAD) < timedelta(minutes=1)
    assert raised.count_at(NOW) == raised.count_at(start - timedelta(microseconds=1)) == 1
    assert raised.count_at(start) == raised.count_at(start + timedelta(days=3)) == 8


def test_a_day_is_read_over_the_most_shards_any_count_in_force_during_it_had() -> None:
    raised = ShardSchedule().raised(8, NOW).raised(2, NOW + timedelta(hours=3))
    assert raised.count_at(NOW + timedelta(hours=4)) == 2
    assert raised.shards_on(NOW.date()) == 8  # raised at noon, lowered in the afternoon: 8 all day
    assert raised.shards_on(NOW.date() - timedelta(days=1)) == 1
    assert raised.shards_on(NOW.date() + timedelta(days=1)) == 2


def test_a_pending_change_is_replaced_and_earlier_steps_kept() -> None:
    first = ShardSchedule().raised(4, NOW)
    again = first.raised(6, NOW)  # within the lead: the same minute, the new count
    assert again.steps == ((first.steps[0][0], 6),)
    later = first.raised(16, NOW + timedelta(hours=1))
    assert [count for _, count in later.steps] == [4, 16]


def test_counts_are_bounded() -> None:
    for count in (0, MAX_SHARDS + 1):
        with pytest.raises(ValueError, match="shard count"):
            ShardSchedule().raised(count, NOW)


def test_the_schedule_survives_its_encoding() -> None:
    schedule = ShardSchedule().raised(4, NOW).raised(12, NOW + timedelta(days=2))
    assert ShardSchedule.decode(schedule.encode()) == schedule


def test_the_count_a_rate_needs() -> None:
    assert shards_for(10, 3) == 1  # a small account: one shard, today's keys and costs
    assert shards_for(1_000, 3) == 4  # 3,000 units/s at 80% of 1,000 a partition
    assert shards_for(10_000, 3) == 38
    with pytest.raises(ValueError, match="at most"):
        shards_for(100_000, 3)


def test_merging_a_days_shards_gives_one_newest_first_order() -> None:
    rng = random.Random(7)
    day = date(2026, 3, 14)
    keys = sorted({f"{day}T{rng.randrange(86_400):05d}Z#evt_{n}" for n in range(500)})
    shards: list[list[str]] = [[] for _ in range(5)]
    for sort_key in keys:
        shards[shard_of(sort_key, 5)].append(sort_key)
    newest = list(merge_newest((iter(sorted(s, reverse=True)) for s in shards), lambda k: k))
    assert newest == sorted(keys, reverse=True)
    oldest = list(merge_oldest((iter(sorted(s)) for s in shards), lambda k: k))
    assert oldest == keys
