"""The events query's counters (events/counts.py): what an event adds, which part of a window
they answer, and what is left for the events query to count (events/store.py _uncounted)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from postline.events.counts import (
    SETTLE,
    CountItems,
    CountKey,
    CountQuestion,
    Coverage,
    KnownCount,
    candidate_span,
    count_additions,
    count_question,
    covered_span,
    day_values,
    known_count,
    partial_days,
    smallest_hour_classes,
    smallest_ttl_classes,
)
from postline.events.domain import Event, EventType
from postline.events.query import EventFilters, Window, plan_query
from postline.events.store import _uncounted, sort_key

NOW = datetime(2026, 3, 14, 12, 40, tzinfo=UTC)


def _event(at: datetime, tags: list[str], kind: EventType = EventType.SENT, ttl_days: int = 30) -> Event:
    return Event(
        id="evt_1",
        account_id="acct_1",
        type=kind,
        message_id="msg_1",
        timestamp=at,
        tags=tags,
        created_at=at,
        expires_at=int((at + timedelta(days=ttl_days)).timestamp()),
    )


def test_an_event_adds_to_its_hour_item_once_per_distinct_tag() -> None:
    adds = count_additions(_event(datetime(2026, 3, 10, 7, 59, tzinfo=UTC), ["a", "b", "a"], EventType.DUPLICATE))
    assert set(adds) == {CountKey("acct_1", series, "2026-03-10", True) for series in ("*", "tag#a", "tag#b")}
    assert adds[CountKey("acct_1", "tag#a", "2026-03-10", True)] == {"h07_duplicate": 1, "e07_720": 1}
    assert day_values(adds[CountKey("acct_1", "*", "2026-03-10", True)]) == {"t_duplicate": 1, "x30": 1}


def test_a_day_is_the_sum_of_its_hours_and_its_ttl_classes_those_of_the_day_item_it_had() -> None:
    """What the day item held (`t_<type>`, `x<k>`: k whole days from the day's start to the TTL),
    summed from the hour item, for every hour and TTL; an old day item only adds its classes."""
    day = date(2026, 3, 10)
    hours: dict[str, int] = {}
    expected: dict[str, int] = {}
    moments = [
        (0, 0, timedelta(days=30)),
        (7, 59, timedelta(days=2, hours=16, minutes=1)),  # its TTL falls on a day's start
        (23, 59, timedelta(hours=1)),
    ]
    for n, (hour, minute, ttl) in enumerate(moments):
        at = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=hour, minutes=minute)
        event = _event(at, [], EventType.SENT if n else EventType.OPENED).model_copy(
            update={"expires_at": int((at + ttl).timestamp())}
        )
        for name, value in count_additions(event)[CountKey("acct_1", "*", f"{day}", True)].items():
            hours[name] = hours.get(name, 0) + value
        day_class = (event.expires_at - int(datetime.combine(day, datetime.min.time(), UTC).timestamp())) // 86_400
        for name in (f"t_{event.type.value}", f"x{day_class}"):
            expected[name] = expected.get(name, 0) + 1
    assert day_values(hours) == expected == {"t_opened": 1, "t_sent": 2, "x30": 1, "x3": 1, "x1": 1}
    assert day_values(hours, {"t_sent": 99, "x0": 4})["x0"] == 4  # a day item's classes, never its totals
    assert day_values(hours, {"t_sent": 99, "x0": 4})["t_sent"] == 2
    assert day_values(None, {"t_sent": 5, "x3": 5}) == {"x3": 5}


def test_only_type_and_tag_filters_are_answered() -> None:
    window = Window(NOW - timedelta(days=3), NOW)

    def question(**filters: str) -> CountQuestion | None:
        return count_question(plan_query(EventFilters.model_validate(filters), window))

    assert question() == CountQuestion("*", None)
    assert question(event="sent") == CountQuestion("*", "sent")  # read from the day partitions, filtered
    assert question(event="delivered") == CountQuestion("*", "delivered")
    assert question(event="bounced") == CountQuestion("*", "bounced")  # from its by_type partitions
    assert question(tag="a") == CountQuestion("tag#a", None)
    assert question(tag="a", event="opened") == CountQuestion("tag#a", "opened")
    assert question(recipient="ann@example.com") is None
    assert question(message_id="msg_1") is None
    assert count_question(plan_query(EventFilters(metadata={"order": "1"}), window)) is None
    assert count_question(plan_query(EventFilters(event="sent", metadata={"order": "1"}), window)) is None


def test_the_candidate_is_whole_hours_settled_for_fifteen_minutes() -> None:
    window = Window(datetime(2026, 3, 10, 5, 20, tzinfo=UTC), NOW)
    assert candidate_span(window, NOW) == (datetime(2026, 3, 10, 6, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC))
    early = NOW.replace(minute=10)  # 12:10 - SETTLE = 11:55: the hour from 11:00 is not settled
    assert candidate_span(Window(window.since, early), early)[1] == datetime(2026, 3, 14, 11, tzinfo=UTC)  # type: ignore[index]
    assert (now := NOW - SETTLE + timedelta(minutes=1)).minute == 26  # 12:26: 11:00-12:00 is settled
    assert candidate_span(Window(window.since, now), now)[1] == NOW.replace(minute=0)  # type: ignore[index]
    assert candidate_span(Window(NOW - timedelta(minutes=30), NOW), NOW) is None


def test_coverage_cut_and_ttl_move_the_start_to_a_later_day() -> None:
    low, high = datetime(2026, 3, 1, 6, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC)
    assert covered_span(low, high, Coverage(), {}, NOW) is None  # the consumer never counted this account
    first = Coverage(first_counted=datetime(2026, 3, 3, 23, 59, tzinfo=UTC))
    assert covered_span(low, high, first, {}, NOW) == (datetime(2026, 3, 4, tzinfo=UTC), high)
    backfilled = Coverage(first_counted=first.first_counted, complete_from=date(2026, 2, 1))
    assert covered_span(low, high, backfilled, {}, NOW) == (low, high)
    cut = Coverage(complete_from=date(2026, 2, 1), cut=datetime(2026, 3, 5, 3, tzinfo=UTC))
    assert covered_span(low, high, cut, {}, NOW) == (datetime(2026, 3, 6, tzinfo=UTC), high)
    # an event of 3-08 expires 6 days after the day starts: 3-14 is past that, 3-08 is counted
    assert covered_span(low, high, backfilled, {date(2026, 3, 8): 6, date(2026, 3, 9): 30}, NOW) == (
        datetime(2026, 3, 9, tzinfo=UTC),
        high,
    )
    assert covered_span(low, high, backfilled, {date(2026, 3, 13): 1}, NOW) == (datetime(2026, 3, 14, tzinfo=UTC), high)
    assert covered_span(low, high, backfilled, {date(2026, 3, 14): 0}, NOW) is None


def test_the_known_count_sums_whole_days_and_the_hours_of_partial_ones() -> None:
    since, until = datetime(2026, 3, 10, 22, tzinfo=UTC), datetime(2026, 3, 12, 3, tzinfo=UTC)
    assert partial_days((since, until)) == [date(2026, 3, 10), date(2026, 3, 12)]
    items = CountItems(
        days={
            date(2026, 3, 10): {"t_sent": 50, "x30": 50},
            date(2026, 3, 11): {"t_sent": 7, "t_opened": 3, "x30": 10},
            date(2026, 3, 12): {"t_sent": 40, "x31": 40},
        },
        hours={
            date(2026, 3, 10): {"h21_sent": 9, "h22_sent": 2, "h23_opened": 1},
            date(2026, 3, 12): {"h02_sent": 4, "h03_sent": 30},
        },
    )
    everything = known_count(CountQuestion("*", None), (since, until), items)
    assert everything == KnownCount(since, until, 2 + 1 + 10 + 4, frozenset(items.days))
    sent = known_count(CountQuestion("*", "sent"), (since, until), items)
    assert sent.total == 2 + 7 + 4
    inside = known_count(CountQuestion("*", None), (since.replace(hour=21), since.replace(hour=22)), items)
    assert inside.total == 9 and inside.days == {date(2026, 3, 10)}
    assert smallest_ttl_classes(items) == {date(2026, 3, 10): 30, date(2026, 3, 11): 30, date(2026, 3, 12): 31}


def test_the_events_query_counts_only_outside_the_known_part() -> None:
    window = Window(datetime(2026, 3, 10, 5, 20, tzinfo=UTC), NOW)
    plan = plan_query(EventFilters(), window)
    known = KnownCount(datetime(2026, 3, 10, 6, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC), 5, frozenset())
    tick = timedelta(microseconds=1)
    assert _uncounted(plan, date(2026, 3, 10), known) == [
        (sort_key(window.since, ""), sort_key(known.since - tick, "~"))
    ]
    assert _uncounted(plan, date(2026, 3, 12), known) is None
    assert _uncounted(plan, date(2026, 3, 14), known) == [(sort_key(known.until, ""), sort_key(NOW, "~"))]
    assert _uncounted(plan, date(2026, 3, 12), None) == []  # no counters: the whole window's part
    same_day = KnownCount(datetime(2026, 3, 14, 6, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC), 1, frozenset())
    assert _uncounted(plan, date(2026, 3, 14), same_day) == [
        (sort_key(datetime(2026, 3, 14, tzinfo=UTC), ""), sort_key(same_day.since - tick, "~")),
        (sort_key(same_day.until, ""), sort_key(NOW, "~")),
    ]


def test_on_a_partial_first_day_the_hours_ttl_classes_keep_the_hours_after_since() -> None:
    """A Free account's window starts 30 days back, mid-day: that day's oldest events reach their
    30-day TTL first, but the hours after `since` hold none that can have expired."""
    since = NOW - timedelta(days=30)  # 02-12 12:40
    day = since.date()
    low, high = datetime(2026, 2, 12, 13, tzinfo=UTC), datetime(2026, 3, 14, 12, tzinfo=UTC)
    coverage = Coverage(complete_from=date(2026, 1, 1))
    hours = {}
    for hour in range(24):
        adds = count_additions(_event(datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=hour), []))
        hours.update(adds[CountKey("acct_1", "*", f"{day}", True)])
    items = CountItems(days={day: {"t_sent": 24, "x30": 24}}, hours={day: hours})
    classes = smallest_hour_classes(items)
    assert classes[day][13] == 720 and smallest_ttl_classes(items) == {day: 30}
    assert covered_span(low, high, coverage, {day: 30}, NOW, classes) == (low, high)
    assert covered_span(low, high, coverage, {day: 30}, NOW) == (datetime(2026, 2, 13, tzinfo=UTC), high)
    classes[day][15] = 48  # an hour written under a 2-day TTL: past it, so up to its end is counted
    assert covered_span(low, high, coverage, {day: 2}, NOW, classes) == (datetime(2026, 2, 12, 16, tzinfo=UTC), high)
