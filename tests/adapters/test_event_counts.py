"""GET /v3/events' total_count from the roll-ups' event counters, against moto.

A scripted week of events (several days, both modes, duplicates, bots' opens, repeated and shared
tags, events in the last minutes) is written to the events table, its real stream counted by the
metrics roll-up consumer, then every filter's total_count from a service with the counters equals
the one from a service without them (a full count of the stored events), while the counting only
touches the open edges. Then: a replayed batch, the backfill of the first day, a retention cut and
an event whose TTL already passed each keep the figure equal to a full count."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from postline.accounts.domain import Account, Plan
from postline.events.count_store import DynamoEventCounts, count_pk, count_sk
from postline.events.domain import Event, EventType
from postline.events.query import QueryPlan, event_filters
from postline.events.service import EventService
from postline.events.store import DynamoEventStore, StreamRecords
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.metrics.service import RollupService
from postline.metrics.store import DynamoRollups
from postline.retention.store import DynamoRetentionStore
from tests.adapters.test_metrics_rollups import Stream
from tests.aws_stack import InProcessStack
from tests.fakes.keys import FakeHasher
from tests.fakes.shared import FixedClock

TYPES = [EventType.QUEUED, EventType.SENT, EventType.DELIVERED, EventType.OPENED, EventType.DUPLICATE]
TAGS: list[list[str]] = [["a"], ["b"], ["a", "b"], [], ["a", "a"]]
BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
FILTERS: list[dict[str, Any]] = [
    {},
    {"event": "sent"},
    {"event": "opened"},
    {"tag": "a"},
    {"tag": "b", "event": "queued"},
]


class CountingStore(DynamoEventStore):
    """The events adapter, noting which day partitions a first page counted."""

    counted: list[date | None]

    def _count(self, account_id: str, plan: QueryPlan, day: date | None, *args: Any) -> int:
        self.counted.append(day)
        return super()._count(account_id, plan, day, *args)


@pytest.fixture(scope="module")
def stream(stack: InProcessStack) -> Stream:
    return Stream(stack)


def _now() -> datetime:
    """A runtime-relative 'now' on a fixed minute past the hour (the test moves it by hand)."""
    return datetime.now(UTC).replace(minute=40, second=0, microsecond=0)


def _event(account_id: str, n: int, at: datetime, **fields: Any) -> Event:
    kind = TYPES[n % len(TYPES)]
    values: dict[str, Any] = {
        "id": f"evt_{n:06d}_{uuid.uuid4().hex[:6]}",
        "account_id": account_id,
        "type": kind,
        "message_id": f"msg_{n // 3}",
        "recipient": f"user{n % 7}@example.com",
        "timestamp": at,
        "tags": TAGS[n // 2 % len(TAGS)],
        "data": {"test": True} if n % 3 == 0 else ({"user_agent": BOT} if kind is EventType.OPENED else {}),
        "created_at": at,
        "expires_at": int((at + timedelta(days=30)).timestamp()),
    }
    return Event(**{**values, **fields})


def _week(account_id: str, now: datetime) -> list[Event]:
    """Events over the last 6 days at uneven hours, and some in the last hour and minutes."""
    events: list[Event] = []
    start = (now - timedelta(days=6)).replace(hour=0, minute=5)
    for n in range(150):
        events.append(_event(account_id, n, start + timedelta(minutes=57 * n + n % 11)))
    for n in range(150, 170):  # the open edge: this hour, the last 15 minutes
        events.append(_event(account_id, n, now - timedelta(minutes=n - 145)))
    return events


class Harness:
    def __init__(self, stack: InProcessStack, stream: Stream, now: datetime, **account: Any) -> None:
        self.db, self.stack, self.stream = stack.client("dynamodb"), stack, stream
        self.clock = FixedClock(now)
        self.principal = Principal(
            account=Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, **account),
            scope=Scope.READ_ONLY,
            env=Environment.LIVE,
        )
        self.rollups = DynamoRollups(self.db, stack.env["COUNTERS_TABLE"])
        self.consumer = RollupService(stream=StreamRecords(), rollups=self.rollups, clock=self.clock)
        self.store = CountingStore(self.db, stack.env["EVENTS_TABLE"])
        self.store.counted = []
        self.records: list[dict[str, Any]] = []

    def write(self, events: list[Event]) -> int:
        self.stream.read()  # what earlier tests left
        self.store.put(events)
        records = self.stream.read()
        self.records += records
        return sum(self.consumer.consume(records[n : n + 40]) for n in range(0, len(records), 40))

    def total(self, counters: bool, **params: Any) -> int:
        service = EventService(
            events=self.store,
            hasher=FakeHasher(),
            clock=self.clock,
            budget_ms=30_000,
            counts=DynamoEventCounts(self.db, self.stack.env["COUNTERS_TABLE"]) if counters else None,
        )
        self.store.counted = []
        page = service.list_page(self.principal, event_filters(**params), limit=10, cursor=None)
        return page.total_count

    def agree(self, **params: Any) -> tuple[int, list[date | None]]:
        """(the total, the partitions the counted service still counted); fails unless both agree."""
        full = self.total(False, **params)
        counted = self.total(True, **params)
        assert counted == full, params
        return counted, list(self.store.counted)


@pytest.fixture
def week(stack: InProcessStack, stream: Stream) -> tuple[Harness, list[Event]]:
    now = _now()
    harness = Harness(stack, stream, now, created_at=now - timedelta(days=20))
    events = _week(harness.principal.account.id, now)
    harness.write(events)
    return harness, events


def test_every_filter_s_total_equals_a_full_count_and_only_the_edges_are_counted(
    week: tuple[Harness, list[Event]],
) -> None:
    harness, events = week
    now = harness.clock.now()
    first_day = min(e.timestamp for e in events).date()
    for params in FILTERS:
        total, counted = harness.agree(**params)
        assert total > 0, params
        # counted: the days up to the first one the consumer saw (it may hold earlier, uncounted
        # events) and today's open edge (its last hour and minutes); never the closed days between
        assert all(day is not None and (day <= first_day or day == now.date()) for day in counted), counted
    assert harness.agree()[0] == len(events)  # every stored event, both modes, duplicates and bots
    since, until = now - timedelta(days=4, hours=5, minutes=13), now - timedelta(days=1, minutes=2)
    total, counted = harness.agree(since=since, until=until, tag="a")
    assert total == sum(1 for e in events if "a" in e.tags and since <= e.timestamp <= until)
    assert set(counted) <= {since.date(), until.date()}  # only the partial hours at both ends


def test_a_replayed_batch_changes_nothing(week: tuple[Harness, list[Event]]) -> None:
    harness, _ = week
    before = [harness.agree(**params)[0] for params in FILTERS]
    assert harness.consumer.consume(harness.records) == 0
    assert [harness.agree(**params)[0] for params in FILTERS] == before


def test_the_backfill_marks_the_first_day_complete(week: tuple[Harness, list[Event]]) -> None:
    harness, events = week
    first_day = min(e.timestamp for e in events).date()
    assert first_day in harness.agree()[1]
    harness.consumer.rebuild_day(harness.principal.account.id, first_day, harness.store)
    assert harness.consumer.mark_complete(harness.principal.account.id, first_day, first_day)
    total, counted = harness.agree()
    assert total == len(events) and first_day not in counted
    for params in FILTERS:
        harness.agree(**params)


def test_a_retention_cut_and_an_expired_ttl_fall_back_to_counting(
    stack: InProcessStack, week: tuple[Harness, list[Event]]
) -> None:
    harness, events = week
    account_id = harness.principal.account.id
    now = harness.clock.now()
    cut = now - timedelta(days=3, hours=7)
    env = stack.env
    retention = DynamoRetentionStore(
        harness.db,
        stack.client("s3"),
        resources=env["RESOURCES_TABLE"],
        counters=env["COUNTERS_TABLE"],
        events=env["EVENTS_TABLE"],
        messages=env["MESSAGES_TABLE"],
        deliveries=env["WEBHOOK_DELIVERIES_TABLE"],
        content_bucket=env["CONTENT_BUCKET"],
    )
    retention.save_cut(account_id, cut)
    day = min(e.timestamp for e in events).date()
    while day <= cut.date():
        for page in retention.expired_events(account_id, day, cut):
            retention.delete_events(page)
        day += timedelta(days=1)
    kept = [e for e in events if e.timestamp >= cut]
    total, counted = harness.agree()
    assert total == len(kept) and cut.date() in counted
    for params in FILTERS:
        harness.agree(**params)
    # an event whose TTL has passed (written under a shorter window) may go any time: its day is counted
    stale_day = now - timedelta(days=2)
    harness.write([_event(account_id, 500, stale_day, expires_at=int((now - timedelta(hours=1)).timestamp()))])
    total, counted = harness.agree()
    assert total == len(kept) + 1 and stale_day.date() in counted


def test_an_account_the_consumer_never_saw_is_counted_in_full(stack: InProcessStack, stream: Stream) -> None:
    now = _now()
    harness = Harness(stack, stream, now, created_at=now - timedelta(days=10))
    events = _week(harness.principal.account.id, now)
    harness.store.put(events)  # written, never consumed: no coverage
    total, counted = harness.agree()
    assert total == len(events) and len(counted) == 11  # every day of the window


def test_only_hour_items_are_written_and_a_day_item_from_before_still_says_its_ttl(
    week: tuple[Harness, list[Event]],
) -> None:
    """The consumer writes one hour item per series and day (a day is the sum of its hours). A day
    counted before that change has a day item too, and hour items from before their TTL classes
    (`e<hh>_<k>`) none: its day item's `x<k>` still keeps a day whose events' TTL may have passed
    out of the counters' answer, and the totals come from the hours."""
    harness, events = week
    account_id = harness.principal.account.id
    table = harness.stack.env["COUNTERS_TABLE"]
    pk = count_pk(account_id, "*")
    query = {"TableName": table, "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {":pk": {"S": pk}}}
    sks = [item["sk"]["S"] for item in harness.db.query(**query)["Items"]]
    assert sks and all(sk.startswith("H#") for sk in sks), sks
    assert harness.agree()[0] == len(events)
    old_day = (harness.clock.now() - timedelta(days=3)).date()
    hour_item = {"pk": {"S": pk}, "sk": {"S": count_sk(f"{old_day}", True)}}
    attrs = harness.db.get_item(TableName=table, Key=hour_item)["Item"]
    ttl_classes = [name for name in attrs if name.startswith("e")]
    assert ttl_classes
    harness.db.update_item(TableName=table, Key=hour_item, UpdateExpression="REMOVE " + ", ".join(ttl_classes))
    total, counted = harness.agree()
    assert total == len(events) and old_day not in counted  # the hours' totals, no class: trusted
    day_item = {"pk": {"S": pk}, "sk": {"S": count_sk(f"{old_day}", False)}}
    harness.db.put_item(TableName=table, Item={**day_item, "t_sent": {"N": "1000"}, "x0": {"N": "1"}})
    total, counted = harness.agree()
    assert total == len(events) and old_day in counted  # a class whose TTL passed: counted again
