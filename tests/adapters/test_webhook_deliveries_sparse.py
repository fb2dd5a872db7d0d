"""A webhook delivery joins the by_endpoint index at its first recorded attempt, not when it is
opened (one index write a delivery fewer), on moto: the history and the retention sweep read it
from then; a data removal finds one still in flight by key, from the erased event, and its
attempt's record then finds nothing to bring back."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from postline import wiring
from postline.data_removals.holdings import DeliveriesHolding, MessagesHolding
from postline.events.domain import Event, EventType
from postline.shared.dynamo import key
from postline.shared.resources_table import account_pk
from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery, Target, delivery_id
from postline.webhook_delivery.store import DynamoDeliveryStore
from postline.webhooks.store import PREFIX as WEBHOOK_PREFIX
from postline.wiring import events as events_root
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

T0 = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
ADDRESS = "erin.in.flight@example.com"


def _opened(event: Event, target: Target) -> Delivery:
    return Delivery(
        id=delivery_id(event.id, target),
        account_id=event.account_id,
        endpoint_id=target.endpoint_id,
        url=target.url,
        event_id=event.id,
        event_type=str(event.type),
        message_id=event.message_id,
        body=f'{{"event":"delivered","recipient":"{ADDRESS}"}}',
        created_at=T0,
        expires_at=int((T0 + timedelta(days=30)).timestamp()),
    )


def _succeeded(delivery: Delivery) -> Delivery:
    attempt = Attempt(number=1, at=T0, result=AttemptResult.SUCCEEDED, status_code=200, latency_ms=9)
    return delivery.after(attempt)


def _history(store: DynamoDeliveryStore, account_id: str, endpoint_id: str | None) -> list[str]:
    found = store.for_endpoint(account_id, endpoint_id, [f"{T0:%Y-%m}"], since=T0, until=T0)
    return [d.id for d in found]


def test_an_opened_delivery_joins_the_history_at_its_first_attempt(stack: InProcessStack) -> None:
    db, table = stack.client("dynamodb"), stack.env["WEBHOOK_DELIVERIES_TABLE"]
    store = DynamoDeliveryStore(db, table)
    account_id = f"acct_{uuid.uuid4().hex[:12]}"
    opened = _opened(
        Event(
            id="evt_sparse", account_id=account_id, type=EventType.DELIVERED, message_id="msg_sparse",
            recipient=ADDRESS, timestamp=T0, created_at=T0, expires_at=0,
        ),
        Target(endpoint_id="wh_1", url="https://hooks.example/in"),
    )  # fmt: skip
    assert store.create(opened) is True
    stored = db.get_item(TableName=table, Key=key(f"WHD#{opened.id}", "D"))["Item"]
    assert "endpoint_key" not in stored  # not in by_endpoint: the open write writes no index item
    assert store.get(opened.id) == opened  # read by key the same (a redelivered event, the workflow)
    assert _history(store, account_id, "wh_1") == []
    history = store.read_history(
        account_id, "wh_1", [f"{T0:%Y-%m}"], since=T0, until=T0, before=None, statuses=(), event_types=(),
        want=10, budget_seconds=5,
    )  # fmt: skip
    assert history.deliveries == []

    assert store.save(_succeeded(opened), attempts_before=0) is True
    assert _history(store, account_id, "wh_1") == [opened.id]
    assert store.get(opened.id) == _succeeded(opened)
    assert store.create(opened) is False  # a redelivered event still finds it: no second POST


def test_a_removal_erases_a_delivery_whose_first_attempt_is_in_flight(stack: InProcessStack) -> None:
    db, env = wiring.client("dynamodb"), stack.env
    store = DynamoDeliveryStore(db, env["WEBHOOK_DELIVERIES_TABLE"])
    account_id = f"acct_{uuid.uuid4().hex[:12]}"
    for endpoint in ("wh_a", "wh_b"):
        db.put_item(
            TableName=env["RESOURCES_TABLE"],
            Item={"pk": {"S": account_pk(account_id)}, "sk": {"S": WEBHOOK_PREFIX + endpoint}},
        )
    event = Event(
        id=f"evt_{uuid.uuid4().hex}", account_id=account_id, type=EventType.DELIVERED, message_id="msg_flight",
        recipient=ADDRESS, timestamp=T0, created_at=T0, expires_at=int((T0 + timedelta(days=30)).timestamp()),
        webhook_url="https://own.example/hook",
    )  # fmt: skip
    events_root.event_store().put([event])
    in_flight = [
        _opened(event, Target(endpoint_id="wh_a", url="https://hooks.example/a")),
        _opened(event, Target(endpoint_id=None, url="https://own.example/hook")),
    ]
    recorded = _opened(event, Target(endpoint_id="wh_b", url="https://hooks.example/b"))
    for delivery in [*in_flight, recorded]:
        assert store.create(delivery)
    assert store.save(_succeeded(recorded), attempts_before=0)
    other = _opened(event.model_copy(update={"id": "evt_someone_else"}), Target(endpoint_id="wh_a", url="https://a"))
    assert store.create(other)

    # The history's step alone (by_endpoint) sees only the recorded one: the in-flight ones are not indexed.
    by_index = DeliveriesHolding(
        db, resources=env["RESOURCES_TABLE"], deliveries=env["WEBHOOK_DELIVERIES_TABLE"], clock=FixedClock(T0)
    )
    seen: list[list[str]] = []
    cursor = None
    while True:
        batch = by_index.find(account_id, ADDRESS, "hash", cursor)
        seen += batch.work.get("deliveries", [])
        if batch.next is None:
            break
        cursor = batch.next
    assert seen == [[f"WHD#{recorded.id}", "D"]]

    messages = MessagesHolding(
        db, stack.client("s3"), events=env["EVENTS_TABLE"], messages=env["MESSAGES_TABLE"],
        counters=env["COUNTERS_TABLE"], content_bucket=env["CONTENT_BUCKET"],
        resources=env["RESOURCES_TABLE"], deliveries=env["WEBHOOK_DELIVERIES_TABLE"], clock=FixedClock(T0),
    )  # fmt: skip
    found = messages.find(account_id, ADDRESS, "hash", None)
    assert found.tally.get("events") == 1
    messages.apply(account_id, ADDRESS, "hash", found.work)
    assert [store.get(d.id) for d in [*in_flight, recorded]] == [None, None, None]  # by key, in flight or not
    assert store.get(other.id) == other  # another event's delivery stays

    # The in-flight attempts end: their records are refused and bring nothing back.
    for delivery in in_flight:
        assert store.save(_succeeded(delivery), attempts_before=0) is False
        assert store.get(delivery.id) is None

    # Each key holds a tombstone: nothing of the event, gone by TTL two days on (past the stream's 24 hours).
    table = env["WEBHOOK_DELIVERIES_TABLE"]
    erased = [*in_flight, recorded]
    for delivery in erased:
        stored = db.get_item(TableName=table, Key=key(f"WHD#{delivery.id}", "D"), ConsistentRead=True)["Item"]
        assert stored == {
            **key(f"WHD#{delivery.id}", "D"),
            "status": {"S": "erased"},
            "expires_at": {"N": str(int((T0 + timedelta(hours=48)).timestamp()))},
        }
    # A late fan-out's open is refused, and the key still reads as no delivery, one by one or many.
    assert [store.create(delivery) for delivery in erased] == [False] * 3
    assert [store.get(d.id) for d in erased] == [None] * 3
    assert store.get_many([d.id for d in erased] + [other.id]) == {other.id: other}
    assert _history(store, account_id, "wh_a") == [] and _history(store, account_id, "wh_b") == []
    # The event's erasure mark, for an endpoint created since (no tombstone of its own); another's has none.
    assert store.erased(event.id) is True and store.erased("evt_someone_else") is False
    # The store's own erase (a resend's copy of an erased event, at its attempt): a tombstone too.
    store.erase(other.id, T0)
    assert store.get(other.id) is None and store.create(other) is False and store.get_many([other.id]) == {}
