"""GET /v3/events against moto: the events table and its indexes, through the service.

Events are written with the adapter (as the pipeline writes them), then read back through
EventService over DynamoEventStore and compared with a plain-Python filter of what was written.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.events.domain import Event, EventType
from postline.events.models import EventListPage
from postline.events.query import EventFilters, Strategy, Window, event_filters, plan_query, resolve_window
from postline.events.service import EventService
from postline.events.store import DynamoEventStore
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import QueryTimeout
from postline.wiring import events as events_root
from tests.aws_stack import InProcessStack
from tests.fakes.keys import FakeHasher
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 3, 14, 12, 0, 0, 123456, tzinfo=UTC)
TYPES = [EventType.QUEUED, EventType.SENT, EventType.DELIVERED, EventType.OPENED, EventType.BOUNCED]
RECIPIENTS = ["Ann@Example.com", "bob@example.com", "cy@example.org", None]
TAGS: list[list[str]] = [["a"], ["b"], ["a", "b"], []]
METADATA: list[dict[str, str] | None] = [{"order": "1"}, {"order": "2", "plan": "x"}, None]


def _account(plan: Plan = Plan.FREE, age: timedelta = timedelta(days=400)) -> Principal:
    """An account `age` old: no event is older, so its window starts there (or at its retention)."""
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=plan, created_at=NOW - age)
    return Principal(account=account, scope=Scope.READ_ONLY, env=Environment.LIVE)


def _event(account_id: str, n: int, at: datetime, **fields: Any) -> Event:
    values: dict[str, Any] = {
        "id": f"evt_{n:06d}_{uuid.uuid4().hex[:6]}",
        "account_id": account_id,
        "type": TYPES[n % len(TYPES)],
        "message_id": f"msg_{account_id}_{n % 6}",
        "recipient": RECIPIENTS[n % len(RECIPIENTS)],
        "timestamp": at,
        "tags": TAGS[n % len(TAGS)],
        "metadata": METADATA[n % len(METADATA)],
        "data": {"smtp_response": "250 OK"} if n % 2 else {},
        "created_at": at,
        "expires_at": int((at + timedelta(days=30)).timestamp()),
    }
    return Event(**{**values, **fields})


def _service(clock_at: datetime = NOW, budget_ms: int = 30_000) -> EventService:
    return EventService(
        events=events_root.event_store(), hasher=FakeHasher(), clock=FixedClock(clock_at), budget_ms=budget_ms
    )


def _newest_first(events: list[Event]) -> list[str]:
    return [e.id for e in sorted(events, key=lambda e: (e.timestamp, e.id), reverse=True)]


def _matches(event: Event, filters: EventFilters) -> bool:
    metadata = event.metadata or {}
    return (
        (filters.event is None or event.type.value == filters.event)
        and (filters.recipient is None or (event.recipient or "").lower() == filters.recipient)
        and (filters.tag is None or filters.tag in event.tags)
        and (filters.message_id is None or event.message_id == filters.message_id)
        and all(metadata.get(k) == v for k, v in filters.metadata.items())
        and (filters.since is None or event.timestamp >= filters.since)
        and (filters.until is None or event.timestamp <= filters.until)
    )


def _all_pages(service: EventService, principal: Principal, filters: EventFilters, limit: int) -> list[EventListPage]:
    pages, cursor = [], None
    while True:
        page = service.list_page(principal, filters, limit=limit, cursor=cursor)
        pages.append(page)
        assert page.has_more is (page.next_cursor is not None)
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor


@pytest.fixture(scope="module")
def varied(stack: InProcessStack) -> tuple[Principal, list[Event]]:
    """120 events of one account over three UTC days, every filterable field varied."""
    principal = _account()
    events = [_event(principal.account.id, n, NOW - timedelta(minutes=31 * n)) for n in range(120)]
    events_root.event_store().put(events)
    return principal, events


CASES: list[dict[str, Any]] = [
    {},
    {"event": "delivered"},
    {"recipient": "ANN@example.COM"},
    {"tag": "a"},
    {"message_id": "msg_{account}_2"},
    {"metadata": {"order": "2"}},
    {"metadata": {"order": "2", "plan": "x"}},
    {"since": NOW - timedelta(hours=20), "until": NOW - timedelta(hours=5)},
    {"event": "opened", "tag": "b"},
    {"recipient": "bob@example.com", "event": "sent", "metadata": {"order": "1"}},
    {"message_id": "msg_{account}_1", "recipient": "bob@example.com"},
    {"message_id": "msg_{account}_3", "event": "opened", "tag": "b", "since": NOW - timedelta(days=1)},
    {"recipient": "cy@example.org", "tag": "a", "until": NOW - timedelta(days=1)},
    {"event": "bounced", "metadata": {"plan": "x"}, "since": NOW - timedelta(hours=30)},
    {"tag": "a", "metadata": {"order": "1"}, "until": NOW - timedelta(hours=10)},
    {"tag": "nope"},
    # A tag reads its own partitions; the type and the metadata filter the copies it holds.
    {"tag": "b", "event": "delivered"},
    {"tag": "b", "metadata": {"order": "2", "plan": "x"}},
    {"tag": "a", "event": "queued", "metadata": {"order": "1"}, "since": NOW - timedelta(hours=40)},
    {"tag": "b", "since": NOW - timedelta(hours=30), "until": NOW - timedelta(hours=20)},
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: "+".join(case) or "none")
def test_every_filter_alone_and_combined(varied: tuple[Principal, list[Event]], case: dict[str, Any]) -> None:
    principal, events = varied
    fields = {k: v.format(account=principal.account.id) if isinstance(v, str) else v for k, v in case.items()}
    metadata = fields.pop("metadata", {})
    filters = event_filters({f"metadata[{k}]": [v] for k, v in metadata.items()}, **fields)
    expected = _newest_first([e for e in events if _matches(e, filters)])
    assert expected or case == {"tag": "nope"}
    pages = _all_pages(_service(), principal, filters, limit=7)
    assert [item.id for page in pages for item in page.items] == expected
    assert {page.total_count for page in pages} == {len(expected)}


def test_items_are_the_spec_event_shape(varied: tuple[Principal, list[Event]]) -> None:
    principal, events = varied
    by_id = {e.id: e for e in events}
    page = _service().list_page(principal, event_filters(), limit=10, cursor=None)
    for item in page.items:
        stored = by_id[item.id]
        assert (item.type, item.message_id, item.recipient, item.timestamp) == (
            stored.type,
            stored.message_id,
            stored.recipient,
            stored.timestamp,
        )
        assert item.metadata == ({**stored.data, **(stored.metadata or {})} or None)


def test_another_account_sees_nothing(varied: tuple[Principal, list[Event]]) -> None:
    owner, events = varied
    stranger, service = _account(), _service()
    for filters in (
        event_filters(),
        event_filters(message_id=events[0].message_id),
        event_filters(recipient="bob@example.com"),
        event_filters(event="sent"),
    ):
        page = service.list_page(stranger, filters, limit=50, cursor=None)
        assert (page.items, page.total_count, page.has_more) == ([], 0, False)
    # ...nor can it continue the owner's cursor.
    first = service.list_page(owner, event_filters(), limit=5, cursor=None)
    with pytest.raises(Exception, match="cursor"):
        service.list_page(stranger, event_filters(), limit=5, cursor=first.next_cursor)


def test_a_since_older_than_retention_is_clamped(stack: InProcessStack) -> None:
    principal = _account(Plan.FREE)  # 30 days
    account_id = principal.account.id
    kept, expired = _event(account_id, 1, NOW - timedelta(days=29)), _event(account_id, 2, NOW - timedelta(days=31))
    events_root.event_store().put([kept, expired])  # the TTL has not removed the old one yet
    page = _service().list_page(principal, event_filters(since=NOW - timedelta(days=90)), limit=10, cursor=None)
    assert ([item.id for item in page.items], page.total_count) == ([kept.id], 1)


def test_a_query_past_its_budget_times_out(varied: tuple[Principal, list[Event]]) -> None:
    principal, _ = varied
    store: DynamoEventStore = events_root.event_store()
    window = resolve_window(event_filters(), now=NOW, retention_days=30)
    assert window is not None
    with pytest.raises(TimeoutError):
        store.search(principal.account.id, plan_query(event_filters(), window), limit=5, count=True, budget_seconds=0)
    with pytest.raises(QueryTimeout):
        _service(budget_ms=1).list_page(principal, event_filters(tag="a"), limit=5, cursor=None)


class CountingClient:
    """The DynamoDB client, counting Query calls by kind."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.counts: list[str] = []
        self.reads: list[str] = []

    def query(self, **request: Any) -> Any:
        partition = request["ExpressionAttributeValues"][":key"]["S"]
        (self.counts if request.get("Select") == "COUNT" else self.reads).append(partition)
        return self._client.query(**request)


def test_a_year_long_window_counts_every_day_once_then_reads_only_days_with_events(stack: InProcessStack) -> None:
    principal = _account(Plan.PROFESSIONAL)  # 365 days of retention, an account older than that
    account_id = principal.account.id
    days_ago = [0, 3, 200]
    events = [_event(account_id, n, NOW - timedelta(days=d, minutes=n)) for d in days_ago for n in range(3)]
    events_root.event_store().put(events)
    client = CountingClient(wiring.client("dynamodb"))
    service = EventService(
        events=DynamoEventStore(client, stack.env["EVENTS_TABLE"]),
        hasher=FakeHasher(),
        clock=FixedClock(NOW),
        budget_ms=60_000,
    )
    pages = _all_pages(service, principal, event_filters(), limit=2)
    assert [item.id for page in pages for item in page.items] == _newest_first(events)
    assert len(client.counts) == len(set(client.counts)) == 366  # the first page only
    assert {partition[-10:] for partition in client.reads} == {f"{NOW - timedelta(days=d):%Y-%m-%d}" for d in days_ago}
    assert len(client.reads) <= 2 * len(pages)


def _thousands_tags(n: int) -> list[str]:
    return (["rare"] if n % 97 == 0 else []) + (["common", "x"] if n % 3 else [])


@pytest.fixture(scope="module")
def thousands(stack: InProcessStack) -> tuple[Principal, list[Event]]:
    """3,000 events over seven days, in pairs that share a timestamp (ties order by id)."""
    principal = _account(Plan.PROFESSIONAL, age=timedelta(days=8))
    events = [
        _event(principal.account.id, n, NOW - timedelta(seconds=199 * (n // 2)), tags=_thousands_tags(n))
        for n in range(3000)
    ]
    events_root.event_store().put(events)
    return principal, events


@pytest.mark.parametrize(
    ("fields", "limit"),
    [
        ({}, 300),
        ({}, 137),
        ({"event": "sent"}, 50),
        ({"tag": "rare"}, 4),
        ({"tag": "common"}, 300),
        ({"tag": "common"}, 61),
        ({"tag": "x", "event": "opened"}, 45),
        ({"recipient": "ann@example.com"}, 100),
    ],
    ids=["all-300", "all-137", "type", "sparse-tag", "tag-300", "tag-61", "tag+type", "recipient"],
)
def test_paging_yields_each_event_once_in_order(
    thousands: tuple[Principal, list[Event]], fields: dict[str, Any], limit: int
) -> None:
    principal, events = thousands
    filters = event_filters(**fields)
    expected = _newest_first([e for e in events if _matches(e, filters)])
    pages = _all_pages(_service(), principal, filters, limit=limit)
    returned = [item.id for page in pages for item in page.items]
    assert returned == expected
    assert len(set(returned)) == len(returned)
    assert {page.total_count for page in pages} == {len(expected)}
    assert all(len(page.items) == limit for page in pages[:-1])


def test_events_arriving_meanwhile_do_not_shift_later_pages(stack: InProcessStack) -> None:
    principal = _account()
    account_id = principal.account.id
    events = [_event(account_id, n, NOW - timedelta(minutes=n + 1)) for n in range(10)]
    events_root.event_store().put(events)
    service = _service()
    first = service.list_page(principal, event_filters(), limit=4, cursor=None)
    events_root.event_store().put([_event(account_id, 99, NOW - timedelta(seconds=1))])  # newer than page one
    rest = service.list_page(principal, event_filters(), limit=100, cursor=first.next_cursor)
    assert [i.id for i in first.items + rest.items] == _newest_first(events)
    assert rest.total_count == first.total_count == 10


def test_a_tag_is_read_from_its_own_partitions(stack: InProcessStack) -> None:
    """tag= counts and reads only the tag's partitions (a key lookup), never the events' own."""
    principal = _account(Plan.FREE)
    account_id = principal.account.id
    events = [
        _event(account_id, n, NOW - timedelta(hours=5 * n), tags=["t"] if n % 3 == 0 else ["o"]) for n in range(30)
    ]
    events_root.event_store().put(events)
    client = CountingClient(wiring.client("dynamodb"))
    service = EventService(
        events=DynamoEventStore(client, stack.env["EVENTS_TABLE"]),
        hasher=FakeHasher(),
        clock=FixedClock(NOW),
        budget_ms=60_000,
    )
    filters = event_filters(tag="t", event="queued")
    pages = _all_pages(service, principal, filters, limit=1)
    assert [item.id for page in pages for item in page.items] == _newest_first(
        [e for e in events if _matches(e, filters)]
    )
    assert {partition.rsplit("#", 2)[0] for partition in client.counts + client.reads} == {f"TAG#{account_id}"}
    assert all(partition.endswith("#t") for partition in client.counts + client.reads)


def test_tag_items_stay_out_of_the_message_index(varied: tuple[Principal, list[Event]]) -> None:
    principal, events = varied
    store: DynamoEventStore = events_root.event_store()
    for message_id in {e.message_id for e in events}:
        found = [e.id for e in store.for_message(message_id)]
        expected = [e for e in events if e.message_id == message_id]
        assert sorted(found) == sorted(e.id for e in expected)
        assert any(e.tags for e in expected)
    page = _service().list_page(principal, event_filters(recipient="bob@example.com"), limit=300, cursor=None)
    assert len({item.id for item in page.items}) == len(page.items) == page.total_count


def test_an_export_of_a_tag_streams_each_event_once_newest_first(thousands: tuple[Principal, list[Event]]) -> None:
    principal, events = thousands
    store: DynamoEventStore = events_root.event_store()
    window = Window(NOW - timedelta(days=8), NOW)
    for filters in (
        EventFilters(tag="common"),
        EventFilters(tag="x", event="delivered"),
        EventFilters(tag="rare", metadata={"order": "1"}),
    ):
        plan = plan_query(filters, window)
        assert plan.strategy is Strategy.TAG
        streamed = [e.id for e in store.stream(principal.account.id, plan)]
        assert streamed == _newest_first([e for e in events if _matches(e, filters)])
