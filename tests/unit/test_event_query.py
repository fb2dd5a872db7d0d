"""GET /v3/events in the domain and the service: filters, the cursor, the window and the plan."""

from __future__ import annotations

import base64
import json
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, get_args

import pytest

from postline.accounts.domain import Account, Plan
from postline.events.counts import KnownCount
from postline.events.domain import Event, EventType
from postline.events.models import event_view
from postline.events.query import (
    DAY_READ_TYPES,
    TYPE_SPREAD,
    EventCursor,
    EventFilters,
    Position,
    PublicEventType,
    QueryPlan,
    SearchResult,
    Strategy,
    Window,
    decode_cursor,
    encode_cursor,
    event_filters,
    pack_days,
    plan_query,
    resolve_window,
    unpack_days,
)
from postline.events.service import QUERY_RETRY_AFTER_SECONDS, EventService
from postline.events.store import _spread
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import QueryTimeout, ValidationFailed
from tests.fakes.keys import FakeHasher
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
SIGN = FakeHasher().hash


# -- filters ---------------------------------------------------------------------------------------


def test_every_public_type_is_a_filter_but_duplicate() -> None:
    assert set(get_args(PublicEventType)) == {t.value for t in EventType} - {"duplicate"}
    with pytest.raises(ValidationFailed, match="event"):
        event_filters(event="duplicate")


@pytest.mark.parametrize(
    ("fields", "params", "message"),
    [
        ({"event": "sparkled"}, {}, "event"),
        ({}, {f"metadata[k{n}]": ["v"] for n in range(4)}, "at most 3"),
        ({}, {"metadata[bad key]": ["v"]}, "metadata key"),
        ({}, {"metadata[]": ["v"]}, "metadata key"),
        ({}, {"metadata[" + "k" * 65 + "]": ["v"]}, "metadata key"),
        ({}, {"metadata[k]": ["v" * 201]}, "200"),
        ({}, {"metadata[k]": ["a", "b"]}, "once"),
        ({"since": NOW, "until": NOW - timedelta(seconds=1)}, {}, "since"),
        ({"recipient": " "}, {}, "recipient"),
    ],
)
def test_invalid_filters_are_a_validation_error(
    fields: dict[str, Any], params: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(ValidationFailed, match=message):
        event_filters(params, **fields)


def test_metadata_filters_come_from_metadata_brackets_only() -> None:
    params = {"metadata[order.id]": ["A-1"], "metadata[plan_2]": [""], "limit": ["5"], "tag": ["x"]}
    assert event_filters(params).metadata == {"order.id": "A-1", "plan_2": ""}
    assert event_filters({f"metadata[k{n}]": ["v" * 200] for n in range(3)}).metadata["k0"] == "v" * 200


def test_recipients_compare_lowercased_and_times_are_utc() -> None:
    naive = datetime(2026, 3, 1, 8, 0)  # a time without a zone is taken as UTC
    paris = datetime(2026, 3, 1, 10, 0, tzinfo=timezone(timedelta(hours=1)))
    filters = event_filters(recipient=" Ann@Example.COM ", since=naive, until=paris)
    assert filters.recipient == "ann@example.com"
    assert (filters.since, filters.until) == (datetime(2026, 3, 1, 8, tzinfo=UTC), datetime(2026, 3, 1, 9, tzinfo=UTC))
    assert filters.since is not None and filters.since.tzinfo is UTC


def test_the_fingerprint_is_of_the_account_and_the_normalized_filters() -> None:
    first = event_filters(recipient="Ann@example.com", tag="x").fingerprint("acct_1")
    assert event_filters(recipient="ann@EXAMPLE.com", tag="x").fingerprint("acct_1") == first
    assert event_filters(recipient="ann@example.com", tag="y").fingerprint("acct_1") != first
    assert event_filters(recipient="ann@example.com", tag="x").fingerprint("acct_2") != first


# -- the cursor ------------------------------------------------------------------------------------


def _cursor(**changes: Any) -> EventCursor:
    fields: dict[str, Any] = {
        "fingerprint": "f" * 32,
        "total_count": 1234,
        "since": NOW - timedelta(days=30),
        "until": NOW,
        "at": NOW - timedelta(hours=1, microseconds=7),
        "event_id": "evt_1",
    }
    return EventCursor(**{**fields, **changes})


def test_a_cursor_round_trips() -> None:
    cursor = _cursor()
    token = encode_cursor(cursor, SIGN)
    assert decode_cursor(token, SIGN, fingerprint="f" * 32) == cursor
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")  # URL-safe


def _edit(token: str, **changes: Any) -> str:
    payload, _, mac = token.partition(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    edited = base64.urlsafe_b64encode(json.dumps({**data, **changes}).encode()).rstrip(b"=").decode()
    return f"{edited}.{mac}"


@pytest.mark.parametrize(
    "token",
    [
        "",
        "garbage",
        "not.base64!",
        "e30.0000",  # {} with a made-up MAC
        _edit(encode_cursor(_cursor(), SIGN), total_count=1),
        encode_cursor(_cursor(), SIGN)[:-1] + "0",
        encode_cursor(_cursor(), FakeHasher("another pepper").hash),
    ],
)
def test_a_garbage_or_tampered_cursor_is_refused(token: str) -> None:
    with pytest.raises(ValidationFailed, match="cursor"):
        decode_cursor(token, SIGN, fingerprint="f" * 32)


def test_a_cursor_of_other_filters_is_refused() -> None:
    with pytest.raises(ValidationFailed, match="other filters"):
        decode_cursor(encode_cursor(_cursor(), SIGN), SIGN, fingerprint="e" * 32)


# -- the window and the plan -----------------------------------------------------------------------


def test_since_is_clamped_to_retention_and_the_account_until_to_now() -> None:
    filters = event_filters(since=NOW - timedelta(days=400), until=NOW + timedelta(days=1))
    assert resolve_window(filters, now=NOW, retention_days=30) == Window(NOW - timedelta(days=30), NOW)
    created = NOW - timedelta(days=2)
    assert resolve_window(filters, now=NOW, retention_days=30, account_created=created) == Window(created, NOW)
    assert resolve_window(event_filters(), now=NOW, retention_days=365).since == NOW - timedelta(days=365)


def test_a_window_that_cannot_hold_events_is_none() -> None:
    assert resolve_window(event_filters(since=NOW + timedelta(seconds=1)), now=NOW, retention_days=30) is None
    old = event_filters(until=NOW - timedelta(days=31))
    assert resolve_window(old, now=NOW, retention_days=30) is None


def test_the_window_days_are_utc_days_newest_first() -> None:
    window = Window(datetime(2026, 2, 27, 23, 59, tzinfo=UTC), datetime(2026, 3, 2, 0, 1, tzinfo=UTC))
    assert window.days == [date(2026, 3, 2), date(2026, 3, 1), date(2026, 2, 28), date(2026, 2, 27)]


WINDOW = Window(datetime(2026, 3, 10, tzinfo=UTC), NOW)


@pytest.mark.parametrize(
    ("fields", "strategy", "key"),
    [
        ({"message_id": "msg_1", "recipient": "a@x.test", "event": "sent"}, Strategy.MESSAGE, "msg_1"),
        ({"recipient": "A@x.test", "event": "sent", "tag": "t"}, Strategy.RECIPIENT, "a@x.test"),
        ({"event": "sent", "tag": "t"}, Strategy.TAG, "t"),
        ({"tag": "t", "metadata": {"k": "v"}}, Strategy.TAG, "t"),
        ({"event": "bounced", "metadata": {"k": "v"}}, Strategy.TYPE, "bounced"),
        # the types the sparse by_type index does not hold: the day partitions, filtered by type
        ({"event": "sent", "metadata": {"k": "v"}}, Strategy.DAY, None),
        ({"event": "delivered"}, Strategy.DAY, None),
        ({"event": "queued", "tag": "t"}, Strategy.TAG, "t"),
        ({"metadata": {"k": "v"}}, Strategy.DAY, None),
    ],
)
def test_the_plan_reads_by_the_most_selective_filter(fields: dict[str, Any], strategy: Strategy, key: str) -> None:
    filters = EventFilters(**fields)
    plan = plan_query(filters, WINDOW)
    assert (plan.strategy, plan.key) == (strategy, key)
    # The rest narrow what is read; the window is the key range, not a filter.
    residual = plan.residual.model_dump(exclude_defaults=True)
    assert residual == {
        name: value
        for name, value in filters.model_dump(exclude_defaults=True).items()
        if name
        != {"message": "message_id", "recipient": "recipient", "tag": "tag", "type": "event"}.get(strategy.value)
    }


def test_day_plans_walk_the_window_newest_first_and_resume_at_the_cursor_day() -> None:
    plan = plan_query(EventFilters(event="sent"), WINDOW)
    assert plan.days == tuple(date(2026, 3, d) for d in (14, 13, 12, 11, 10))
    resumed = plan_query(EventFilters(), WINDOW, Position(datetime(2026, 3, 12, 5, tzinfo=UTC), "evt_9"))
    assert resumed.days == tuple(date(2026, 3, d) for d in (12, 11, 10))
    assert plan_query(EventFilters(message_id="msg_1"), WINDOW).days == ()
    assert plan_query(EventFilters(tag="t"), WINDOW).days == plan.days


def test_days_known_to_be_empty_are_not_walked() -> None:
    busy = {date(2026, 3, 13), date(2026, 3, 10)}
    assert plan_query(EventFilters(), WINDOW, days_with_events=busy).days == (date(2026, 3, 13), date(2026, 3, 10))
    assert plan_query(EventFilters(), WINDOW, days_with_events=set()).days == ()


@pytest.mark.parametrize("busy_days", [set(), {0}, {365}, {0, 7, 8, 200, 365}, set(range(366))])
def test_the_days_with_events_pack_into_a_short_bitmap(busy_days: set[int]) -> None:
    window = Window(NOW - timedelta(days=365), NOW)
    busy = {window.days[n] for n in busy_days}
    packed = pack_days(window, busy)
    assert len(packed) <= 62
    assert unpack_days(window, packed) == busy


# -- what the API shows ----------------------------------------------------------------------------


def _event(n: int = 0, **fields: Any) -> Event:
    at = NOW - timedelta(minutes=n)
    values: dict[str, Any] = {
        "id": f"evt_{n}",
        "account_id": "acct_1",
        "type": EventType.BOUNCED,
        "message_id": "msg_1",
        "recipient": "ann@example.com",
        "timestamp": at,
        "tags": ["invoice"],
        "created_at": at,
        "expires_at": 0,
    }
    return Event(**{**values, **fields})


def test_metadata_is_send_metadata_merged_with_provider_details_or_null() -> None:
    view = event_view(
        _event(metadata={"order": "A-1", "reason": "mine"}, data={"reason": "mailbox full", "test": True})
    )
    assert view.metadata == {"order": "A-1", "reason": "mine", "test": True}
    assert event_view(_event()).metadata is None
    assert set(view.model_dump()) == {
        "id",
        "type",
        "message_id",
        "recipient",
        "timestamp",
        "tags",
        "metadata",
        "created_at",
    }


# -- the service -----------------------------------------------------------------------------------


class FakeSearch:
    """Serves a fixed, newest-first list the way the adapter would: window, position, limit."""

    def __init__(self, events: list[Event], *, timeout: bool = False) -> None:
        self.events = events
        self.timeout = timeout
        self.calls: list[tuple[QueryPlan, int, bool]] = []

    def search(
        self,
        account_id: str,
        plan: QueryPlan,
        *,
        limit: int,
        count: bool,
        budget_seconds: float,
        known: KnownCount | None = None,
    ) -> SearchResult:
        assert known is None  # no counters given to the service
        self.calls.append((plan, limit, count))
        if self.timeout:
            raise TimeoutError
        matches = [e for e in self.events if plan.window.since <= e.timestamp <= plan.window.until]
        after = plan.after
        if after is not None:
            matches = [e for e in matches if (e.timestamp, e.id) < (after.timestamp, after.event_id)]
        return SearchResult(matches[:limit], len(matches) > limit, len(matches) if count else None)


def _principal() -> Principal:
    account = Account(id="acct_1", plan=Plan.FREE, created_at=NOW - timedelta(days=90))
    return Principal(account=account, scope=Scope.READ_ONLY, env=Environment.LIVE)


def _service(search: FakeSearch) -> EventService:
    return EventService(events=search, hasher=FakeHasher(), clock=FixedClock(NOW), budget_ms=5000)


def test_pages_walk_every_event_once_and_count_only_on_the_first() -> None:
    search = FakeSearch([_event(n) for n in range(7)])
    service, filters = _service(search), event_filters()
    seen, cursor, totals = [], None, set()
    while True:
        page = service.list_page(_principal(), filters, limit=3, cursor=cursor)
        seen += [item.id for item in page.items]
        totals.add(page.total_count)
        cursor = page.next_cursor
        assert page.has_more is (cursor is not None)
        if cursor is None:
            break
    assert seen == [f"evt_{n}" for n in range(7)]
    assert totals == {7}
    assert [count for _, _, count in search.calls] == [True, False, False]
    assert search.calls[0][0].window == Window(NOW - timedelta(days=30), NOW)  # Free: 30 days


def test_a_cursor_with_other_filters_is_refused_by_the_service() -> None:
    service = _service(FakeSearch([_event(n) for n in range(3)]))
    first = service.list_page(_principal(), event_filters(tag="invoice"), limit=1, cursor=None)
    assert first.next_cursor is not None
    with pytest.raises(ValidationFailed, match="cursor"):
        service.list_page(_principal(), event_filters(tag="other"), limit=1, cursor=first.next_cursor)


def test_an_empty_window_answers_without_reading() -> None:
    search = FakeSearch([_event()])
    page = _service(search).list_page(_principal(), event_filters(since=NOW + timedelta(days=1)), limit=5, cursor=None)
    assert (page.items, page.has_more, page.next_cursor, page.total_count) == ([], False, None, 0)
    assert search.calls == []


def test_a_query_past_its_budget_is_a_503_with_retry_after() -> None:
    with pytest.raises(QueryTimeout) as raised:
        _service(FakeSearch([], timeout=True)).list_page(_principal(), event_filters(), limit=5, cursor=None)
    assert (raised.value.status, raised.value.code) == (503, "query_timeout")
    assert raised.value.retry_after == QUERY_RETRY_AFTER_SECONDS


def test_a_common_type_s_day_read_is_sized_for_its_share() -> None:
    """A type the sparse by_type index does not hold reads TYPE_SPREAD events a match from the day
    partitions; other filters on a day read (unknown selectivity) keep the batch read."""
    assert {"queued", "sent", "delivered", "duplicate"} == DAY_READ_TYPES
    assert _spread(plan_query(EventFilters(event="delivered"), WINDOW), filtered=True) == TYPE_SPREAD
    assert _spread(plan_query(EventFilters(event="sent", metadata={"k": "v"}), WINDOW), filtered=True) is None
    assert _spread(plan_query(EventFilters(event="bounced"), WINDOW), filtered=False) == 1
    assert _spread(plan_query(EventFilters(metadata={"k": "v"}), WINDOW), filtered=True) is None
