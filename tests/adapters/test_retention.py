"""The daily retention pass against moto: what it deletes (events with their tag items, messages
with their bodies in S3, webhook delivery history), what it keeps, and how a run cut short resumes.

Time is the movable clock the embedded runtime uses, installed in wiring and moved forward.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, audit_entry
from postline.config import Counters, Resources
from postline.events.count_store import DynamoEventCounts
from postline.events.domain import Event, EventType
from postline.events.store import event_pk, tag_pk
from postline.retention.service import RetentionRun
from postline.retention.store import register_existing_accounts
from postline.shared.clock import MovableClock
from postline.shared.dynamo import key, to_attrs
from postline.webhook_delivery.domain import Delivery
from postline.wiring import accounts, events, metrics, operator, webhook_delivery
from postline.wiring import retention as retention_root
from tests.aws_stack import InProcessStack, in_process_stack

DAY = 86_400


@pytest.fixture
def stack() -> Iterator[InProcessStack]:
    """A stack per test: a day's pass is done once per day, whatever accounts a table holds."""
    with in_process_stack() as built:
        yield built


@pytest.fixture
def clock() -> Iterator[MovableClock]:
    movable, previous = MovableClock(), wiring.clock()
    wiring.set_clock(movable)
    yield movable
    wiring.set_clock(previous)  # the worker's embedded runtime, if one started, keeps its own clock


def _account(plan: Plan, created_at: datetime) -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex[:12]}", plan=plan, created_at=created_at)
    entry = audit_entry(
        entry_id=str(uuid.uuid4()), account_id=account.id, actor=Actor(ActorType.USER, "u"),
        action="account.created", target=account.id, now=created_at,
    )  # fmt: skip
    accounts.account_store().create_account(account, entry)
    _registry().register(account.id)  # what the metrics consumer does on the account's first event
    return account


def _registry() -> DynamoEventCounts:
    return DynamoEventCounts(wiring.client("dynamodb"), wiring.settings(Counters).table)


def _history(stack: InProcessStack, account: Account, at: datetime, n: int) -> str:
    """One message sent at `at`: its item and its body's item with the body in S3 (an odd `n`: the
    body named in the message item, as stored before bodies had an item), a tagged event, a webhook
    delivery."""
    message_id = f"msg_{account.id}_{n}"
    stack.client("s3").put_object(Bucket=stack.env["CONTENT_BUCKET"], Key=f"content/{message_id}", Body=b"x")
    item = {"id": message_id, "account_id": account.id, "created_at": at.isoformat()}
    sealed = {"kek": "k", "dek": "d", "s3": f"content/{message_id}"}
    items = [{**key(f"MSG#{message_id}", "MSG"), **to_attrs({**item, "sealed": sealed} if n % 2 else item)}]
    if not n % 2:
        items.append({**key(f"MSG#{message_id}", "BODY"), **to_attrs({"sealed": sealed})})
    for stored in items:
        stack.client("dynamodb").put_item(TableName=stack.env["MESSAGES_TABLE"], Item=stored)
    event = Event(
        id=f"evt_{message_id}", account_id=account.id, type=EventType.DELIVERED, message_id=message_id,
        recipient="ann@example.com", timestamp=at, tags=["welcome", "eu"], created_at=at,
        expires_at=int((at + timedelta(days=400)).timestamp()),
    )  # fmt: skip
    events.event_store().put([event])
    deliveries = webhook_delivery.webhook_deliveries()
    delivery = Delivery(
        id=f"whd_{message_id}",
        account_id=account.id,
        endpoint_id=None,
        url="https://hooks.example/x",
        event_id=event.id,
        event_type="delivered",
        message_id=message_id,
        body="{}",
        created_at=at,
        expires_at=event.expires_at,
    )
    deliveries.create(delivery)
    deliveries.save(delivery, attempts_before=0)  # recorded: in by_endpoint, where the sweep finds it
    return message_id


def _left(stack: InProcessStack, account: Account, message_id: str, at: datetime) -> dict[str, bool]:
    """Which of the message's stored pieces still exist."""
    db, s3 = stack.client("dynamodb"), stack.client("s3")
    sk = f"{at:%Y-%m-%dT%H:%M:%S.%f}Z#evt_{message_id}"
    day = f"{at:%Y-%m-%d}"

    def exists(table: str, item_key: dict[str, Any]) -> bool:
        return "Item" in db.get_item(TableName=stack.env[table], Key=item_key, ConsistentRead=True)

    bodies = s3.list_objects_v2(Bucket=stack.env["CONTENT_BUCKET"], Prefix=f"content/{message_id}")
    return {
        "event": exists("EVENTS_TABLE", key(event_pk(account.id, day), sk)),
        "tags": any(exists("EVENTS_TABLE", key(tag_pk(account.id, day, tag), sk)) for tag in ("welcome", "eu")),
        "message": any(exists("MESSAGES_TABLE", key(f"MSG#{message_id}", sk)) for sk in ("MSG", "BODY")),
        "body": any(o["Key"] == f"content/{message_id}" for o in bodies.get("Contents", [])),
        "delivery": exists("WEBHOOK_DELIVERIES_TABLE", key(f"WHD#whd_{message_id}", "D")),
    }


KEPT = {"event": True, "tags": True, "message": True, "body": True, "delivery": True}
GONE = {"event": False, "tags": False, "message": False, "body": False, "delivery": False}


def _run(**budget: Any) -> RetentionRun:
    return retention_root.retention_service().run(lambda: 900.0, **budget)


def test_a_downgrade_keeps_the_paid_window_for_30_days_then_day_29_stays_and_day_31_goes(
    stack: InProcessStack, clock: MovableClock
) -> None:
    start = clock.now()
    account = _account(Plan.PROFESSIONAL, start - timedelta(days=400))
    old = start - timedelta(days=169)
    at_downgrade = start
    old_id = _history(stack, account, old, 1)
    beyond_paid_id = _history(stack, account, start - timedelta(days=380), 2)  # past even the paid year
    downgrade_id = _history(stack, account, at_downgrade, 3)
    operator.operator_service().set_plan(account.id, Plan.FREE)

    first = _run()
    assert first.complete and first.events == 1 and first.messages == 1 and first.bodies == 1
    assert _left(stack, account, beyond_paid_id, start - timedelta(days=380)) == GONE
    assert _left(stack, account, old_id, old) == KEPT

    clock.advance(2 * DAY)
    later = clock.now()  # traffic goes on after the downgrade: 29 days old when the grace has ended
    later_id = _history(stack, account, later, 4)

    clock.advance(18 * DAY)  # day 20 of the grace: the paid year still holds
    assert _run().events == 0
    assert _left(stack, account, old_id, old) == KEPT
    assert _left(stack, account, downgrade_id, at_downgrade) == KEPT

    clock.advance(11 * DAY)  # day 31 after the downgrade: the free plan's 30 days
    wiring.reset()  # the TTL window is cached per process; a new day's Lambda starts afresh
    wiring.set_clock(clock)
    assert clock.now() - later < timedelta(days=30) < clock.now() - at_downgrade
    ended = _run()
    assert ended.complete and (ended.events, ended.messages, ended.bodies, ended.deliveries) == (2, 2, 2, 2)
    assert _left(stack, account, downgrade_id, at_downgrade) == GONE  # 31 days old
    assert _left(stack, account, old_id, old) == GONE
    assert _left(stack, account, later_id, later) == KEPT  # 29 days old


def test_a_run_cut_short_resumes_where_it_stopped_and_counts_nothing_twice(
    stack: InProcessStack, clock: MovableClock
) -> None:
    now = clock.now()
    account = _account(Plan.FREE, now - timedelta(days=100))
    sent = [(now - timedelta(days=40 + n // 3, hours=n), n) for n in range(12)]
    ids = [_history(stack, account, at, n) for at, n in sent]
    kept_at = now - timedelta(days=3)
    kept_id = _history(stack, account, kept_at, 99)

    cut_short = _run(max_deletes=16)  # the 12 deliveries, then one day of events
    assert not cut_short.complete and 0 < cut_short.events < len(ids)
    assert any(_left(stack, account, i, at)["event"] for i, (at, _) in zip(ids, sent, strict=True))

    rest = _run()
    assert rest.complete
    assert cut_short.events + rest.events == len(ids)
    assert cut_short.messages + rest.messages == len(ids)
    assert cut_short.bodies + rest.bodies == len(ids)
    assert cut_short.deliveries + rest.deliveries == len(ids)
    assert [_left(stack, account, i, at) for i, (at, _) in zip(ids, sent, strict=True)] == [GONE] * len(ids)
    assert _left(stack, account, kept_id, kept_at) == KEPT

    again = _run()
    assert again.complete and again.events == 0  # the day's pass is done: a repeated run does nothing


def test_the_worker_runs_the_pass_within_its_remaining_time(stack: InProcessStack, clock: MovableClock) -> None:
    from functions.workers import retention

    account = _account(Plan.FREE, clock.now() - timedelta(days=90))
    at = clock.now() - timedelta(days=45)
    message_id = _history(stack, account, at, 1)

    class Context:
        function_name = "retention"
        memory_limit_in_mb = 512
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:retention"
        aws_request_id = "req-1"

        def get_remaining_time_in_millis(self) -> int:
            return 300_000

    result = retention.handler({}, Context())  # type: ignore[arg-type]
    assert result["complete"] is True and result["events"] == 1
    assert _left(stack, account, message_id, at) == GONE


def test_the_pass_walks_the_registered_accounts_only_and_the_backfill_registers_the_rest(
    stack: InProcessStack, clock: MovableClock
) -> None:
    """No Scan of the resources table: the pass reads the sparse index of accounts with history.
    An account with history from before that index is found once the backfill registered it."""
    account = Account(id=f"acct_{uuid.uuid4().hex[:12]}", plan=Plan.FREE, created_at=clock.now() - timedelta(days=90))
    entry = audit_entry(
        entry_id=str(uuid.uuid4()), account_id=account.id, actor=Actor(ActorType.USER, "u"),
        action="account.created", target=account.id, now=account.created_at,
    )  # fmt: skip
    accounts.account_store().create_account(account, entry)  # not registered: as before the index
    at = clock.now() - timedelta(days=45)
    message_id = _history(stack, account, at, 1)
    scans: list[str] = []
    db = wiring.client("dynamodb")
    db.meta.events.register("before-call.dynamodb.Scan", lambda **kwargs: scans.append("scan"))
    try:
        assert _run().events == 0 and _left(stack, account, message_id, at) == KEPT
        assert scans == []
    finally:
        db.meta.events.unregister("before-call.dynamodb.Scan")
    clock.advance(DAY)  # the next day's pass
    assert register_existing_accounts(db, wiring.settings(Resources).table, _registry()) >= 1
    assert _run().events == 1 and _left(stack, account, message_id, at) == GONE


def test_the_consumer_registers_an_account_with_its_first_event(stack: InProcessStack, clock: MovableClock) -> None:
    from postline.metrics.ports import Chunk

    account_id = f"acct_{uuid.uuid4().hex[:12]}"
    ids, _ = _registry().accounts_with_history(None, 1000)
    assert account_id not in ids
    chunk = Chunk(firsts={account_id: clock.now()})
    metrics.rollups().apply(chunk)
    found: list[str] = []
    position = None
    while True:
        ids, position = _registry().accounts_with_history(position, 2)
        found += ids
        if position is None:
            break
    assert account_id in found
