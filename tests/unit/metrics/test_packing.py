"""Packing rules: a closed day's hour items as one item and back, sums, size bound, which days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from postline.metrics.domain import (
    Counter,
    Latency,
    counter_attribute,
    item_bytes,
    last_closed_day,
    merge,
    pack,
    parse_attribute,
    sketch_attribute,
    unpack,
)
from postline.metrics.packing import PackingService
from postline.metrics.ports import PackedDay
from tests.fakes.shared import FixedClock


def _hours() -> dict[int, dict[str, int]]:
    return {
        0: {counter_attribute(0, Counter.SENT): 3, sketch_attribute(0, Latency.DELIVERY, 412): 2},
        5: {counter_attribute(3, Counter.BOUNCE_HARD): 1, sketch_attribute(1, Latency.PROCESSING, -3): 7},
        23: {counter_attribute(3, Counter.UNIQUE_OPENS): 12_345_678, sketch_attribute(2, Latency.TOTAL, None): 1},
    }


def test_a_packed_day_unpacks_to_the_same_hours_and_attributes() -> None:
    hours = _hours()
    packed = pack(hours)
    assert packed["h05q3_bounce_hard"] == 1 and packed["h23q2_t_z"] == 1 and packed["h05q1_p_m3"] == 7
    assert unpack(packed) == hours
    for values in unpack(packed).values():
        assert all(parse_attribute(name) is not None for name in values)  # readers parse them as before


def test_unpack_ignores_what_is_not_a_packed_counter() -> None:
    assert unpack({**pack(_hours()), "v": 3, "expires_at": 1, "hxxq0_sent": 1}) == _hours()


def test_zeros_are_not_packed_and_hours_are_checked() -> None:
    assert pack({4: {"q0_sent": 0, "q1_sent": 2}}) == {"h04q1_sent": 2}
    with pytest.raises(ValueError, match="not an hour"):
        pack({24: {"q0_sent": 1}})


def test_merge_adds_a_packed_day_and_later_hour_items() -> None:
    earlier = pack({1: {"q0_sent": 2, "q1_sent": 1}})
    later = pack({1: {"q0_sent": 3}, 2: {"q3_delivered": 1}})
    assert merge(earlier, later) == {"h01q0_sent": 5, "h01q1_sent": 1, "h02q3_delivered": 1}
    assert merge({"h01q0_sent": 1}, {"h01q0_sent": -1}) == {}


def test_item_bytes_bounds_dynamodbs_size_of_the_numbers() -> None:
    """DynamoDB's size of a number attribute: name bytes + (significant digits / 2, rounded up) + 1."""
    values = pack(_hours())
    exact = sum(len(name) + (len(str(v).lstrip("-")) + 1) // 2 + 1 for name, v in values.items())
    assert exact <= item_bytes(values) <= exact + len(values)


@pytest.mark.parametrize(
    ("now", "last"),
    [
        (datetime(2026, 3, 12, 2, 0, 1, tzinfo=UTC), date(2026, 3, 10)),  # 03-10 closed 26 h ago
        (datetime(2026, 3, 12, 1, 59, tzinfo=UTC), date(2026, 3, 9)),
        (datetime(2026, 3, 12, 5, 0, tzinfo=UTC) + timedelta(hours=5, minutes=30), date(2026, 3, 10)),
    ],
)
def test_the_last_packable_day_is_closed_for_26_hours(now: datetime, last: date) -> None:
    assert last_closed_day(now) == last


class _Store:
    """The packing pass's store in memory: accounts in pages of 2, days packed recorded."""

    def __init__(self, accounts: dict[str, date]) -> None:
        self.history = accounts
        self.packed: list[tuple[str, str, str]] = []
        self.through: dict[str, date] = {}
        self.positions: dict[date, tuple[dict[str, Any] | None, bool]] = {}
        self.changed_on: set[tuple[str, str]] = set()  # (account, day) a write reaches during packing
        self.lag = 0.0  # the roll-up consumer's, as it noted it

    def pack_day(self, account_id: str, mode: str, day: str) -> PackedDay:
        self.packed.append((account_id, mode, day))
        if (account_id, day) in self.changed_on and mode == "live":
            self.changed_on.discard((account_id, day))
            return PackedDay(series=1, hour_items=3, changed=1)
        return PackedDay(series=1, hour_items=4)

    def packed_through(self, account_id: str) -> date | None:
        return self.through.get(account_id)

    def consumer_lag(self, now: datetime) -> float:
        return self.lag

    def save_packed_through(self, account_id: str, day: date) -> None:
        self.through[account_id] = day

    def pass_position(self, day: date) -> tuple[dict[str, Any] | None, bool]:
        return self.positions.get(day, (None, False))

    def save_pass_position(self, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime) -> None:
        self.positions[day] = (position, done)

    def accounts_with_history(self, position: dict[str, Any] | None, limit: int) -> tuple[list[str], Any]:
        ids = sorted(self.history)
        start = 0 if position is None else position["at"]
        following = {"at": start + 2} if start + 2 < len(ids) else None
        return ids[start : start + 2], following

    def history_from(self, account_id: str) -> date | None:
        return self.history[account_id]


NOW = datetime(2026, 3, 12, 12, 0, tzinfo=UTC)  # the last day packable: 03-10


def test_the_pass_packs_each_accounts_closed_days_once_and_resumes_where_it_stopped() -> None:
    store = _Store({"a": date(2026, 3, 9), "b": date(2026, 3, 10), "c": date(2026, 3, 8)})
    store.changed_on.add(("b", "2026-03-10"))
    service = PackingService(store=store, clock=FixedClock(NOW))
    seconds = iter([100.0, 100.0, 5.0])  # time for two days, then out of time: stops before a third
    first = service.run(lambda: next(seconds, 5.0))
    assert not first.complete and first.days == 2 and first.accounts == 1
    assert store.through == {"a": date(2026, 3, 10)}
    second = service.run(lambda: 100.0)  # the same page again: a is done, costs nothing
    assert second.complete and second.accounts == 3 and second.changed == 1
    days = [(account, day) for account, mode, day in store.packed if mode == "live"]
    assert days == [("a", "2026-03-09"), ("a", "2026-03-10"), ("b", "2026-03-10"),
                    ("c", "2026-03-08"), ("c", "2026-03-09"), ("c", "2026-03-10")]  # fmt: skip
    assert "b" not in store.through  # written to meanwhile: its day is packed again next time
    assert service.run(lambda: 100.0).complete and len(store.packed) == 12  # the day's pass is done
    tomorrow = PackingService(store=store, clock=FixedClock(NOW + timedelta(days=1)))
    assert tomorrow.run(lambda: 100.0).complete
    later = [(account, day) for account, mode, day in store.packed[12:] if mode == "live"]
    assert later == [("a", "2026-03-11"), ("b", "2026-03-10"), ("b", "2026-03-11"), ("c", "2026-03-11")]


def test_a_day_the_consumer_still_lags_behind_is_not_packed() -> None:
    """At NOW 03-10 is closed for 26 hours; a consumer 30 hours behind stands at 03-11 06:00, where
    only 03-09 is: 03-10 waits until it has caught up."""
    store = _Store({"a": date(2026, 3, 9)})
    store.lag = 30 * 3600.0
    service = PackingService(store=store, clock=FixedClock(NOW))
    assert service.run(lambda: 100.0).complete
    assert [day for _, mode, day in store.packed if mode == "live"] == ["2026-03-09"]
    assert store.through == {"a": date(2026, 3, 9)}
    store.lag = 0.0  # caught up: the next pass (tomorrow's, or the operator's pack_account) packs it
    assert service.pack_account("a")
    assert [day for _, mode, day in store.packed if mode == "live"] == ["2026-03-09", "2026-03-10"]
    assert store.through == {"a": date(2026, 3, 10)}
