"""The events table's later keys, against moto on a table of their own: the backfill that gives
events stored before the by_recipient/by_type indexes and the tag items their keys, and the by_tag
index that replaced a one-tag event's tag item, read beside tag items stored before it. (Apart from
test_event_search.py's module, whose thousands of events every index Query on moto walks.)"""

from __future__ import annotations

from datetime import timedelta

from postline import wiring
from postline.config import Events
from postline.events.query import Window, event_filters, plan_query
from postline.events.store import Backfilled, DynamoEventStore, event_put, tag_pk
from postline.shared.dynamo import key
from postline.wiring import events as events_root
from tests.adapters.test_event_search import NOW, _account, _all_pages, _event, _matches, _newest_first, _service
from tests.aws_stack import InProcessStack


def test_the_backfill_gives_older_events_their_index_keys_once(stack: InProcessStack) -> None:
    """Events written before the by_recipient/by_type indexes: invisible to those filters until
    the backfill runs; a second run finds nothing left to do."""
    principal = _account()
    events = [_event(principal.account.id, n, NOW - timedelta(hours=n)) for n in range(12)]
    store = events_root.event_store()
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    for event in events:  # as the writer stored them before the indexes existed
        item = event_put(event)
        item.pop("type_key")
        item.pop("recipient_key", None)
        item.pop("tag_key", None)  # by_tag came later still
        db.put_item(TableName=table, Item=item)
    delivered = event_filters(event="delivered")
    assert _service().list_page(principal, delivered, limit=50, cursor=None).items == []

    done = sum((store.backfill_index_keys(segment=n, segments=3) for n in range(3)), Backfilled())

    assert done.events >= len(events)  # other tests' events may have been written without keys too
    assert done.tag_items >= sum(len(e.tags) for e in events)
    expected = _newest_first([e for e in events if _matches(e, delivered)])
    assert [item.id for item in _service().list_page(principal, delivered, limit=50, cursor=None).items] == expected
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
