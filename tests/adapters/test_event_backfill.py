"""The events table's later keys, against moto on a table of their own: the backfill that gives
events stored before the by_recipient/by_type indexes and the tag items their keys, and the by_tag
index that replaced a one-tag event's tag item, read beside tag items stored before it. (Apart from
test_event_search.py's module, whose thousands of events every index Query on moto walks.)"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from postline import wiring
from postline.config import Events
from postline.events.domain import Event, EventType
from postline.events.query import DAY_READ_TYPES, Window, event_filters, plan_query, resolve_window
from postline.events.service import EventService
from postline.events.store import Backfilled, DynamoEventStore, event_put, tag_pk, tag_puts, type_key
from postline.shared.dynamo import key
from postline.wiring import events as events_root
from tests.adapters.test_event_search import (
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


def test_the_backfill_gives_older_events_their_index_keys_once(stack: InProcessStack) -> None:
    """Events written before the by_recipient/by_type indexes: invisible to those filters until
    the backfill runs; a second run finds nothing left to do."""
    principal = _account()
    events = [_event(principal.account.id, n, NOW - timedelta(hours=n)) for n in range(12)]
    store = events_root.event_store()
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    for event in events:  # as the writer stored them before the indexes existed
        item = event_put(event)
        item.pop("type_key", None)
        item.pop("recipient_key", None)
        item.pop("tag_key", None)  # by_tag came later still
        db.put_item(TableName=table, Item=item)
    opened = event_filters(event="opened")  # a type the sparse by_type index holds
    assert _service().list_page(principal, opened, limit=50, cursor=None).items == []
    delivered = event_filters(event="delivered")  # one it does not: read from the day partitions
    delivered_ids = _newest_first([e for e in events if _matches(e, delivered)])
    assert [i.id for i in _service().list_page(principal, delivered, limit=50, cursor=None).items] == delivered_ids

    done = sum((store.backfill_index_keys(segment=n, segments=3) for n in range(3)), Backfilled())

    # each event that has a key to get (other tests' events may have been written without keys too)
    assert done.events >= sum(1 for e in events if e.recipient is not None or e.type.value not in DAY_READ_TYPES)
    assert done.tag_items >= sum(len(e.tags) for e in events)
    expected = _newest_first([e for e in events if _matches(e, opened)])
    assert [item.id for item in _service().list_page(principal, opened, limit=50, cursor=None).items] == expected
    assert [i.id for i in _service().list_page(principal, delivered, limit=50, cursor=None).items] == delivered_ids
    ann = event_filters(recipient="ann@example.com")
    assert [i.id for i in _service().list_page(principal, ann, limit=50, cursor=None).items] == _newest_first(
        [e for e in events if _matches(e, ann)]
    )
    tagged = event_filters(tag="b")
    assert [i.id for i in _service().list_page(principal, tagged, limit=50, cursor=None).items] == _newest_first(
        [e for e in events if _matches(e, tagged)]
    )
    assert sum((store.backfill_index_keys(segment=n, segments=3) for n in range(3)), Backfilled()) == Backfilled()


def test_the_backfill_gives_events_stored_before_tag_items_their_tag_items_once(stack: InProcessStack) -> None:
    """Events that already have their index keys (stored between the two changes) but no tag items."""
    principal = _account()
    events = [
        _event(principal.account.id, n, NOW - timedelta(hours=n), tags=["t", "u"] if n % 2 else []) for n in range(8)
    ]
    store, db, table = events_root.event_store(), wiring.client("dynamodb"), wiring.settings(Events).table
    for event in events:
        db.put_item(TableName=table, Item=event_put(event))
    tagged = event_filters(tag="u")
    assert _service().list_page(principal, tagged, limit=50, cursor=None).total_count == 0

    done = sum((store.backfill_index_keys(segment=n, segments=2) for n in range(2)), Backfilled())

    assert done.tag_items >= 8  # four tagged events, two tags each (other tests' events may count too)
    page = _service().list_page(principal, tagged, limit=50, cursor=None)
    assert [item.id for item in page.items] == _newest_first([e for e in events if "u" in e.tags])
    assert page.total_count == 4
    assert sum((store.backfill_index_keys(segment=n, segments=2) for n in range(2)), Backfilled()) == Backfilled()
    for event in events:
        day = f"{event.timestamp:%Y-%m-%d}"
        for tag in event.tags:
            found = db.query(
                TableName=table,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": tag_pk(principal.account.id, day, tag)}},
            )["Items"]
            assert [item["sk"] for item in found].count(event_put(event)["sk"]) == 1


def test_an_event_with_one_tag_is_in_the_by_tag_index_instead_of_a_tag_item(stack: InProcessStack) -> None:
    """One distinct tag: the event's own item carries tag_key and no tag item is written; several:
    tag items as before. Events stored before by_tag (a tag item for every tag, no tag_key) sit in
    the same days: a tag's pages, counts and exports read each event exactly once, newest first."""
    principal = _account()
    account_id = principal.account.id
    tag_sets = [["t"], ["t", "u"], ["t", "t"], ["u"], []]
    events = [
        _event(account_id, n, NOW - timedelta(minutes=47 * n), tags=tag_sets[n % len(tag_sets)]) for n in range(40)
    ]
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    older, newer = events[20:], events[:20]
    for event in older:  # as the writer stored them before by_tag
        item = event_put(event)
        item.pop("tag_key", None)
        day = f"{event.timestamp:%Y-%m-%d}"
        copies = [
            {
                **key(tag_pk(account_id, day, tag, 0), item["sk"]["S"]),
                "event": {"M": {k: v for k, v in item.items() if k not in ("pk", "sk", "type_key", "recipient_key")}},
                "expires_at": item["expires_at"],
            }
            for tag in dict.fromkeys(event.tags)
        ]
        for stored in (item, *copies):
            db.put_item(TableName=table, Item=stored)
    events_root.event_store().put(newer)
    for event in newer:
        item = event_put(event)
        day = f"{event.timestamp:%Y-%m-%d}"
        tag_items = [
            db.get_item(TableName=table, Key=key(tag_pk(account_id, day, tag, 0), item["sk"]["S"])).get("Item")
            for tag in dict.fromkeys(event.tags)
        ]
        if len(set(event.tags)) == 1:
            assert item["tag_key"]["S"] == tag_pk(account_id, day, event.tags[0], 0) and tag_items == [None]
        else:
            assert "tag_key" not in item and all(found is not None for found in tag_items)
    store: DynamoEventStore = events_root.event_store()
    window = Window(NOW - timedelta(days=3), NOW)
    for filters in (
        event_filters(tag="t"),
        event_filters(tag="u"),
        event_filters(tag="t", event="delivered"),
        event_filters(tag="t", metadata_params={"metadata[order]": ["1"]}),
    ):
        expected = _newest_first([e for e in events if _matches(e, filters)])
        pages = _all_pages(_service(), principal, filters, limit=3)
        assert [item.id for page in pages for item in page.items] == expected, filters
        assert {page.total_count for page in pages} == {len(expected)}
        assert [e.id for e in store.stream(account_id, plan_query(filters, window))] == expected


def test_the_common_types_have_no_by_type_key_and_the_rarer_ones_keep_theirs(stack: InProcessStack) -> None:
    """`queued`, `sent`, `delivered` (and `duplicate`): no type_key, so no by_type index write; the
    others as before. The backfill gives none of them one, and a rerun writes nothing."""
    principal = _account()
    account_id = principal.account.id
    kinds = [EventType.QUEUED, EventType.SENT, EventType.DELIVERED, EventType.DUPLICATE, EventType.BOUNCED]
    events = [_event(account_id, n, NOW - timedelta(minutes=n + 1), type=kind) for n, kind in enumerate(kinds)]
    events_root.event_store().put(events)
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    stored = {e.type: db.get_item(TableName=table, Key=_key_of(e))["Item"] for e in events}
    assert [kind for kind, item in stored.items() if "type_key" in item] == [EventType.BOUNCED]
    assert all(kind.value in DAY_READ_TYPES for kind, item in stored.items() if "type_key" not in item)
    store = events_root.event_store()
    sum((store.backfill_index_keys(segment=n, segments=2) for n in range(2)), Backfilled())
    assert [e.type for e in events if "type_key" in db.get_item(TableName=table, Key=_key_of(e))["Item"]] == [
        EventType.BOUNCED
    ]
    assert sum((store.backfill_index_keys(segment=n, segments=2) for n in range(2)), Backfilled()) == Backfilled()


def _key_of(event: Event) -> dict[str, Any]:
    item = event_put(event)
    return {"pk": item["pk"], "sk": item["sk"]}


def test_a_common_type_lists_events_stored_with_and_without_by_type_keys_exactly_once(stack: InProcessStack) -> None:
    """Events stored before by_type went sparse (a type_key on every type) beside those stored
    since: a common type's pages, counts and exports read the day partitions, each event once,
    newest first, whatever the page size; a rarer type reads its index partition, as before."""
    principal = _account()
    account_id = principal.account.id
    events = [_event(account_id, n, NOW - timedelta(minutes=41 * n)) for n in range(90)]
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    older, newer = events[45:], events[:45]
    for event in older:  # as the writer stored them before: every type in by_type
        item = event_put(event)
        day = f"{event.timestamp:%Y-%m-%d}"
        item["type_key"] = {"S": type_key(account_id, day, event.type.value)}
        db.put_item(TableName=table, Item=item)
        for copy in tag_puts(event):
            db.put_item(TableName=table, Item=copy)
    events_root.event_store().put(newer)
    assert any("type_key" not in event_put(e) for e in newer)
    client = CountingClient(db)
    service = EventService(
        events=DynamoEventStore(client, table), hasher=FakeHasher(), clock=FixedClock(NOW), budget_ms=60_000
    )
    store = events_root.event_store()
    cases: list[dict[str, Any]] = [
        {"event": "delivered"},
        {"event": "queued"},
        {"event": "sent", "metadata": {"order": "1"}},
        {"event": "delivered", "since": NOW - timedelta(hours=40), "until": NOW - timedelta(hours=7)},
        {"event": "bounced"},
    ]
    for fields in cases:
        metadata = fields.pop("metadata", {})
        filters = event_filters({f"metadata[{k}]": [v] for k, v in metadata.items()}, **fields)
        expected = _newest_first([e for e in events if _matches(e, filters)])
        assert expected and any(e.id in expected for e in older) and any(e.id in expected for e in newer)
        for limit in (2, 5, 300):
            client.counts.clear()
            client.reads.clear()
            pages = _all_pages(service, principal, filters, limit=limit)
            assert [item.id for page in pages for item in page.items] == expected, (filters, limit)
            assert {page.total_count for page in pages} == {len(expected)}
            assert all(len(page.items) == limit for page in pages[:-1])
            indexed = filters.event not in DAY_READ_TYPES  # bounced: its by_type partitions only
            assert all(key.startswith("EVT#") != indexed for key in client.counts + client.reads), filters
        exported = resolve_window(filters, now=NOW, retention_days=30)
        assert exported is not None
        assert [e.id for e in store.stream(account_id, plan_query(filters, exported))] == expected
