"""The events table at more than one shard (events/sharding.py), against moto: what the pipeline
writes lands in the shards its schedule says, and GET /v3/events, exports, the metrics backfill's
day read, retention and erasure see exactly what one partition would give.

The expected answers are a plain-Python filter of what was written (test_event_search.py's)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Plan
from postline.config import Events
from postline.data_removals.holdings import MessagesHolding
from postline.events.domain import Event
from postline.events.query import event_filters, plan_query, resolve_window
from postline.events.service import EventService
from postline.events.sharding import shard_of, shard_of_key
from postline.events.store import DynamoEventStore, ShardDirectory, event_pk, tag_pk
from postline.keys.identity import Principal
from postline.retention.store import DynamoRetentionStore
from postline.wiring import events as events_root
from tests.adapters.test_event_search import (
    CASES,
    NOW,
    CountingClient,
    _account,
    _all_pages,
    _event,
    _matches,
    _newest_first,
    _service,
)
from tests.aws_stack import InProcessStack
from tests.fakes.keys import FakeHasher
from tests.fakes.shared import FixedClock

SHARDS = 5


def _sharded_event(account_id: str, n: int, at: Any, **fields: Any) -> Event:
    return _event(account_id, n, at, message_id=f"msg_{account_id}_{n % 40}", **fields)


def _stored_pks(account_id: str) -> Counter[str]:
    """Every event item's and tag item's partition key of the account, by a Scan (what the table
    really holds), and each by_tag index key (an event with one tag: the key its tag item would have)."""
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    found: Counter[str] = Counter()
    for page in db.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="begins_with(pk, :evt) OR begins_with(pk, :tag)",
        ExpressionAttributeValues={":evt": {"S": f"EVT#{account_id}#"}, ":tag": {"S": f"TAG#{account_id}#"}},
        ProjectionExpression="pk, tag_key",
    ):
        found.update(item["pk"]["S"] for item in page["Items"])
        found.update(item["tag_key"]["S"] for item in page["Items"] if "tag_key" in item)
    return found


@pytest.fixture(scope="module")
def sharded(stack: InProcessStack) -> tuple[Principal, list[Event]]:
    """120 events over three days of an account at five shards since before the first of them."""
    principal = _account()
    account_id = principal.account.id
    events_root.shard_directory().set_count(account_id, SHARDS, NOW - timedelta(days=4))
    events = [_sharded_event(account_id, n, NOW - timedelta(minutes=31 * n)) for n in range(120)]
    events_root.event_store().put(events)
    return principal, events


@pytest.fixture(scope="module")
def raised_midday(stack: InProcessStack) -> tuple[Principal, list[Event], Any]:
    """An account at one shard raised to four six hours before NOW: events every 10 minutes over a day."""
    principal = _account()
    account_id = principal.account.id
    schedule = events_root.shard_directory().set_count(account_id, 4, NOW - timedelta(hours=6))
    ((start, _),) = schedule.steps
    events = [_sharded_event(account_id, n, NOW - timedelta(minutes=10 * n + 1)) for n in range(144)]
    events_root.event_store().put(events)
    return principal, events, start


def test_events_land_in_the_shard_of_their_message(sharded: tuple[Principal, list[Event]]) -> None:
    principal, events = sharded
    account_id = principal.account.id
    stored = _stored_pks(account_id)
    expected = Counter(
        event_pk(account_id, f"{e.timestamp:%Y-%m-%d}", shard_of(e.message_id, SHARDS)) for e in events
    ) + Counter(
        tag_pk(account_id, f"{e.timestamp:%Y-%m-%d}", tag, shard_of(e.message_id, SHARDS))
        for e in events
        for tag in dict.fromkeys(e.tags)
    )
    assert stored == expected
    assert len({shard_of_key(pk) for pk in stored}) == SHARDS  # every shard used


@pytest.mark.parametrize("case", CASES, ids=lambda case: "+".join(case) or "none")
def test_every_filter_reads_across_shards_exactly(sharded: tuple[Principal, list[Event]], case: dict[str, Any]) -> None:
    principal, events = sharded
    fields = {k: v.format(account=principal.account.id) if isinstance(v, str) else v for k, v in case.items()}
    metadata = fields.pop("metadata", {})
    filters = event_filters({f"metadata[{k}]": [v] for k, v in metadata.items()}, **fields)
    expected = _newest_first([e for e in events if _matches(e, filters)])
    assert expected or case == {"tag": "nope"} or "message_id" in case  # 40 messages here: some combine to none
    for limit in (7, 50):
        pages = _all_pages(_service(), principal, filters, limit=limit)
        returned = [item.id for page in pages for item in page.items]
        assert returned == expected  # newest first, no duplicate, no gap across pages
        assert {page.total_count for page in pages} == {len(expected)}
        assert all(len(page.items) == limit for page in pages[:-1])


def test_a_day_raised_midday_is_read_whole(raised_midday: tuple[Principal, list[Event], Any]) -> None:
    principal, events, start = raised_midday
    account_id = principal.account.id
    stored = _stored_pks(account_id)
    before = [e for e in events if e.timestamp < start]
    after = [e for e in events if e.timestamp >= start]
    assert before and after
    assert {event_pk(account_id, f"{e.timestamp:%Y-%m-%d}") for e in before} <= set(stored)
    assert all(shard_of_key(pk) == 0 for pk in stored if any(pk.endswith(f"{e.timestamp:%Y-%m-%d}") for e in before))
    assert len({shard_of_key(pk) for pk in stored}) == 4
    for fields in ({}, {"tag": "a"}, {"event": "delivered"}, {"tag": "b", "event": "opened"}):
        filters = event_filters(**fields)
        expected = _newest_first([e for e in events if _matches(e, filters)])
        pages = _all_pages(_service(), principal, filters, limit=9)
        assert [item.id for page in pages for item in page.items] == expected
        assert {page.total_count for page in pages} == {len(expected)}


def test_a_sharded_day_costs_one_count_and_one_read_per_shard(
    stack: InProcessStack, sharded: tuple[Principal, list[Event]]
) -> None:
    principal, events = sharded
    client = CountingClient(wiring.client("dynamodb"))
    store = DynamoEventStore(client, stack.env["EVENTS_TABLE"])
    service = EventService(events=store, hasher=FakeHasher(), clock=FixedClock(NOW), budget_ms=60_000)
    since = NOW - timedelta(hours=6)
    page = service.list_page(principal, event_filters(since=since), limit=10, cursor=None)
    assert [item.id for item in page.items] == _newest_first([e for e in events if e.timestamp >= since])[:10]
    assert sorted(client.counts) == sorted(event_pk(principal.account.id, f"{NOW:%Y-%m-%d}", s) for s in range(5))
    assert sorted(client.reads) == sorted(client.counts)  # one first page per shard, side by side


def test_an_export_streams_every_shard_newest_first(sharded: tuple[Principal, list[Event]]) -> None:
    principal, events = sharded
    store: DynamoEventStore = events_root.event_store()
    for fields in ({}, {"tag": "b"}, {"event": "sent"}, {"recipient": "bob@example.com"}):
        filters = event_filters(**fields)
        window = resolve_window(filters, now=NOW, retention_days=30)
        assert window is not None
        streamed = [e.id for e in store.stream(principal.account.id, plan_query(filters, window))]
        assert streamed == _newest_first([e for e in events if _matches(e, filters)])


def test_the_metrics_backfill_reads_every_shard_of_a_day(sharded: tuple[Principal, list[Event]]) -> None:
    principal, events = sharded
    day = f"{NOW:%Y-%m-%d}"
    read = events_root.event_store().day_events(principal.account.id, day)
    assert sorted(e.id for e in read) == sorted(e.id for e in events if f"{e.timestamp:%Y-%m-%d}" == day)


def test_retention_deletes_every_shard_with_its_tag_items(stack: InProcessStack) -> None:
    principal = _account(Plan.FREE)
    account_id = principal.account.id
    events_root.shard_directory().set_count(account_id, 3, NOW - timedelta(days=2))
    events = [_sharded_event(account_id, n, NOW - timedelta(days=1, minutes=7 * n)) for n in range(60)]
    events_root.event_store().put(events)
    env = stack.env
    retention = DynamoRetentionStore(
        wiring.client("dynamodb"),
        stack.client("s3"),
        resources=env["RESOURCES_TABLE"],
        counters=env["COUNTERS_TABLE"],
        events=env["EVENTS_TABLE"],
        messages=env["MESSAGES_TABLE"],
        deliveries=env["WEBHOOK_DELIVERIES_TABLE"],
        content_bucket=env["CONTENT_BUCKET"],
    )
    cut = NOW - timedelta(days=1, minutes=7 * 30)  # the older half goes
    day, deleted = cut.date() - timedelta(days=1), 0
    while day <= cut.date():
        for page in retention.expired_events(account_id, day, cut):
            deleted += retention.delete_events(page)
        day += timedelta(days=1)
    kept = [e for e in events if e.timestamp >= cut]
    assert deleted == len(events) - len(kept)
    left = _stored_pks(account_id)
    assert sum(count for pk, count in left.items() if pk.startswith("EVT#")) == len(kept)
    assert sum(count for pk, count in left.items() if pk.startswith("TAG#")) == sum(len(set(e.tags)) for e in kept)


def test_erasure_deletes_an_events_tag_items_in_its_shard(stack: InProcessStack) -> None:
    principal = _account()
    account_id = principal.account.id
    events_root.shard_directory().set_count(account_id, 4, NOW - timedelta(days=2))
    events = [_sharded_event(account_id, n, NOW - timedelta(minutes=n), tags=["a", "b"]) for n in range(12)]
    events_root.event_store().put(events)
    assert len({shard_of_key(pk) for pk in _stored_pks(account_id)}) > 1
    env = stack.env
    holding = MessagesHolding(
        wiring.client("dynamodb"),
        stack.client("s3"),
        events=env["EVENTS_TABLE"],
        messages=env["MESSAGES_TABLE"],
        counters=env["COUNTERS_TABLE"],
        content_bucket=env["CONTENT_BUCKET"],
    )
    doomed = events[:6]
    work = {
        "events": [
            [
                event_pk(account_id, f"{e.timestamp:%Y-%m-%d}", shard_of(e.message_id, 4)),
                f"{e.timestamp:%Y-%m-%dT%H:%M:%S.%f}Z#{e.id}",
            ]
            for e in doomed
        ]
    }
    holding.apply(account_id, "nobody@example.com", "hash", work)
    left = _stored_pks(account_id)
    assert sum(left.values()) == 3 * (len(events) - len(doomed))  # each kept event and its two tag items


def test_a_schedule_raised_elsewhere_is_seen_after_the_cache(stack: InProcessStack) -> None:
    principal = _account()
    account_id = principal.account.id
    table = stack.env["EVENTS_TABLE"]
    reader = ShardDirectory(wiring.client("dynamodb"), table, cache_seconds=0)
    assert reader.count_at(account_id, NOW) == 1
    ShardDirectory(wiring.client("dynamodb"), table).set_count(account_id, 6, NOW - timedelta(hours=1))
    assert reader.count_at(account_id, NOW) == 6
    assert reader.count_at(account_id, NOW - timedelta(hours=2)) == 1
