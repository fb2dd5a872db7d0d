"""Packing rules: a closed day's hour items as one item and back, sums, size bound, which days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

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
