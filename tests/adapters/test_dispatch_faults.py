"""Every step of delivery killed or repeated: nothing is sent twice, nothing is lost.

The dispatcher runs with the real stores (moto, tables from template.yaml), the real vault and
queue, a movable clock, and a transport that records what it was handed. A "kill" is an
exception that no `except Exception` catches, raised at a chosen step, after which the worker's
lease is left behind as a dead worker would leave it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Plan
from postline.delivery.outcomes import Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.ports import Transport
from postline.delivery.service import (
    DELIVERY_OUTCOMES,
    LAST_RECEIVE,
    LEASE_SECONDS,
    MISSING_GRACE,
    Dispatcher,
    RetryLater,
)
from postline.events.domain import EventType
from postline.keys.access import Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import RecipientState
from postline.sending.models import SendRequest
from postline.sending.store import BODY_SK, MESSAGE_SK, DynamoMessageStore, body_key, message_key
from postline.shared.clock import MovableClock
from postline.shared.dynamo import from_attrs
from postline.tracking.domain import LinkMaker
from postline.verification.service import Verifier
from postline.wiring import auth, events, sending
from postline.wiring import domains as domains_root
from postline.wiring import operator as operator_root
from postline.wiring import suppressions as suppressions_root
from tests.aws_stack import InProcessStack, in_process_stack
from tests.fakes.shared import RecordingMeter, dims
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes


class Killed(BaseException):
    """A worker dying: not an error any handler in the code catches."""


class RecordingTransport:
    """Delivers by the script (recipient -> outcomes, one per call), remembering every hand-over."""

    def __init__(self, script: dict[str, list[OutcomeKind]] | None = None, *, kill_on_call: int = 0) -> None:
        self.handed: list[str] = []
        self._script = {r: list(kinds) for r, kinds in (script or {}).items()}
        self._kill_on_call = kill_on_call

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            if self._kill_on_call and len(self.handed) + 1 == self._kill_on_call:
                self._kill_on_call = 0
                raise Killed  # dies before the server said anything
            self.handed.append(parcel.recipient)
            kinds = self._script.get(parcel.recipient) or [OutcomeKind.DELIVERED]
            kind = kinds.pop(0) if len(kinds) > 1 else kinds[0]
            yield Outcome(kind, smtp_response="250 ok" if kind is OutcomeKind.DELIVERED else "451 later")


class DyingStore(DynamoMessageStore):
    """The real store, except that it can die on the Nth record and then leaves its lease behind."""

    def __init__(self, inner: DynamoMessageStore, *, die_on_record: int = 0) -> None:
        self.__dict__.update(inner.__dict__)
        self._die_on_record = die_on_record
        self._records = 0
        self.dead = False

    def record(self, *args: Any, **kwargs: Any) -> bool:
        self._records += 1
        if self._records == self._die_on_record:
            self.dead = True
            raise Killed
        return super().record(*args, **kwargs)

    def release(self, *args: Any, **kwargs: Any) -> None:
        if not self.dead:  # a dead worker releases nothing
            super().release(*args, **kwargs)


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    # Every wait becomes a one-time schedule (as in the embedded runtime), which a test can read
    # at once; an SQS delay would hide the job for real seconds.
    with in_process_stack({"QueueMaxDelaySeconds": "0"}) as stack:
        yield stack


@pytest.fixture
def clock(stack: InProcessStack) -> Iterator[MovableClock]:
    clock, previous = MovableClock(), wiring.clock()
    wiring.set_clock(clock)
    yield clock
    wiring.set_clock(previous)  # the worker's embedded runtime, if any, keeps its own clock


@pytest.fixture
def account_id(stack: InProcessStack, clock: MovableClock) -> str:
    operator = operator_root.operator_service()
    account = operator.create_account(name="faults", plan=Plan.PROFESSIONAL)
    return account.id


def _send(account_id: str, to: list[str]) -> str:
    """A test-key message, accepted through the real service (queued on the real queue)."""
    operator = operator_root.operator_service()
    key = operator.create_key(account_id, name="t", env=Environment.TEST)
    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", _rule()).principal
    assert principal is not None
    request = SendRequest.model_validate({"from": "a@postline.test", "to": to, "subject": "s", "text": "hello"})
    return sending.send_service().send(principal, request).id


def _rule() -> Any:
    from postline.auth.service import RouteRule
    from postline.keys.access import Access

    return RouteRule(Access.SEND, False)


def _dispatcher(
    transport: Transport,
    store: DynamoMessageStore | None = None,
    worker: str = "w1",
    routes: StaticRoutes | None = None,
    meter: RecordingMeter | None = None,
) -> Dispatcher:
    return Dispatcher(
        messages=store or sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: transport,
        verifier=Verifier(routes or StaticRoutes()),
        links=LinkMaker("https://track.example", b"secret"),
        retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(),
        clock=wiring.clock(),
        meter=meter or RecordingMeter(),
        worker_id=worker,
    )


def _job(message_id: str, account_id: str, attempt: int = 1, recipients: list[str] | None = None) -> DispatchJob:
    return DispatchJob(
        message_id=message_id,
        account_id=account_id,
        attempt=attempt,
        recipients=recipients,
        enqueued_at=wiring.clock().now(),
    )


def _event_types(message_id: str) -> list[str]:
    return [event.type.value for event in events.event_store().for_message(message_id)]


def _queued_jobs(stack: InProcessStack) -> list[DispatchJob]:
    """Jobs waiting in the send queue or in one-time schedules; taken, so each is seen once."""
    sqs, scheduler = stack.client("sqs"), stack.client("scheduler")
    url = stack.env["SEND_QUEUE_URL"]
    jobs = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            jobs.append(DispatchJob.model_validate(json.loads(message["Body"])))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    for summary in scheduler.list_schedules()["Schedules"]:
        schedule = scheduler.get_schedule(Name=summary["Name"], GroupName=summary["GroupName"])
        jobs.append(DispatchJob.model_validate_json(schedule["Target"]["Input"]))
        scheduler.delete_schedule(Name=summary["Name"], GroupName=summary["GroupName"])
    return jobs


def test_a_job_delivered_twice_sends_once(stack: InProcessStack, account_id: str) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    transport, meter = RecordingTransport(), RecordingMeter()
    dispatcher = _dispatcher(transport, meter=meter)
    dispatcher.dispatch(_job(message_id, account_id))
    dispatcher.dispatch(_job(message_id, account_id))  # SQS at-least-once: the same job again
    assert sorted(transport.handed) == ["a@example.com", "b@example.com"]
    assert _event_types(message_id).count("delivered") == 2
    assert meter.of(DELIVERY_OUTCOMES) == {dims(outcome="delivered", mode="test"): 2}  # counted once, too


def test_a_concurrent_duplicate_waits_for_the_lease_and_then_finds_nothing_to_do(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    store = sending.message_store()
    claimed = store.claim(message_id, "other-worker", wiring.clock().now(), LEASE_SECONDS)
    assert claimed is not None
    transport = RecordingTransport()
    with pytest.raises(RetryLater):
        _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert transport.handed == []
    store.release(claimed[0], "other-worker")
    _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert transport.handed == ["a@example.com"]


class ReleaseCountingStore(DynamoMessageStore):
    """The real store, counting the calls that only give a lease up."""

    def __init__(self, inner: DynamoMessageStore) -> None:
        self.__dict__.update(inner.__dict__)
        self.releases = 0

    def release(self, *args: Any, **kwargs: Any) -> None:
        self.releases += 1
        super().release(*args, **kwargs)


def test_the_last_recipients_record_gives_the_lease_up_in_the_same_write(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    store = ReleaseCountingStore(sending.message_store())
    _dispatcher(RecordingTransport(), store).dispatch(_job(message_id, account_id))
    assert store.releases == 0  # no call of its own
    assert store.claim(message_id, "next-worker", wiring.clock().now(), LEASE_SECONDS) is not None  # free at once
    assert _event_types(message_id).count("delivered") == 2


class ReadCountingStore(DynamoMessageStore):
    """The real store, counting its reads of messages."""

    def __init__(self, inner: DynamoMessageStore) -> None:
        self.__dict__.update(inner.__dict__)
        self.reads: list[str] = []

    def get(self, *args: Any, **kwargs: Any) -> Any:
        self.reads.append("GetItem")
        return super().get(*args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> Any:
        self.reads.append("BatchGetItem")
        return super().get_many(*args, **kwargs)


def test_a_queue_batch_reads_its_messages_in_one_call(stack: InProcessStack, account_id: str) -> None:
    message_ids = [_send(account_id, [f"r{n}@example.com"]) for n in range(3)]
    store = ReadCountingStore(sending.message_store())
    transport = RecordingTransport()
    dispatcher = _dispatcher(transport, store)
    dispatcher.prefetch([*message_ids, "msg_never_stored"])
    for message_id in message_ids:
        dispatcher.dispatch(_job(message_id, account_id))
    assert store.reads == ["BatchGetItem"]
    assert sorted(transport.handed) == ["r0@example.com", "r1@example.com", "r2@example.com"]
    dispatcher.dispatch(_job(message_ids[0], account_id))  # a repeat reads afresh, and finds it done
    assert store.reads == ["BatchGetItem", "GetItem"]
    assert len(transport.handed) == 3


def test_a_refused_record_keeps_the_lease_for_the_workers_own_release(stack: InProcessStack, account_id: str) -> None:
    message_id = _send(account_id, ["a@example.com"])
    store = ReleaseCountingStore(sending.message_store())
    _dispatcher(RecordingTransport(), store).dispatch(_job(message_id, account_id))
    # The same attempt again, as a duplicate job that found its lease free but its recipient done:
    claimed = store.claim(message_id, "w1", wiring.clock().now(), LEASE_SECONDS)
    assert claimed is not None
    message, _ = claimed
    assert not store.record(message, "a@example.com", 1, "w1", [], release=True)  # attempt 1 is recorded
    assert store.claim(message_id, "w2", wiring.clock().now(), LEASE_SECONDS) is None  # the lease is still held
    store.release(message, "w1")
    assert store.claim(message_id, "w2", wiring.clock().now(), LEASE_SECONDS) is not None


def test_a_worker_killed_before_handing_over_is_finished_by_the_redelivery(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    dying = DyingStore(sending.message_store())
    dying.dead = True  # this worker will die: it never gets to release its lease
    first = RecordingTransport(kill_on_call=2)  # dies handing over the second recipient
    with pytest.raises(Killed):
        _dispatcher(first, dying).dispatch(_job(message_id, account_id))

    later = RecordingTransport()
    with pytest.raises(RetryLater):  # redelivered while the dead worker's lease still runs
        _dispatcher(later, worker="w2").dispatch(_job(message_id, account_id))
    clock.advance(LEASE_SECONDS + 1)
    _dispatcher(later, worker="w2").dispatch(_job(message_id, account_id))

    assert first.handed == ["a@example.com"] and later.handed == ["b@example.com"]
    assert sorted(_event_types(message_id)) == sorted(["queued"] * 2 + ["sent", "delivered"] * 2)
    assert sending.message_store().get(message_id).status.value == "delivered"  # type: ignore[union-attr]


def test_a_worker_killed_after_the_server_accepted_may_resend_but_records_once(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    """The window of RFC 1047: between the server's 250 and our write of it."""
    message_id = _send(account_id, ["a@example.com"])
    dying = DyingStore(sending.message_store(), die_on_record=1)
    first = RecordingTransport()
    with pytest.raises(Killed):
        _dispatcher(first, dying).dispatch(_job(message_id, account_id))
    clock.advance(LEASE_SECONDS + 1)
    again = RecordingTransport()
    _dispatcher(again, worker="w2").dispatch(_job(message_id, account_id))
    _dispatcher(again, worker="w3").dispatch(_job(message_id, account_id))
    assert first.handed == again.handed == ["a@example.com"]
    assert _event_types(message_id) == ["queued", "sent", "delivered"]


def test_a_temporary_failure_is_requeued_before_it_is_recorded(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    _queued_jobs(stack)  # the acceptance's own job, consumed here by hand
    dying = DyingStore(sending.message_store(), die_on_record=1)
    transport = RecordingTransport({"a@example.com": [OutcomeKind.DEFERRED, OutcomeKind.DELIVERED]})
    with pytest.raises(Killed):  # dies after the retry was queued, before "delayed" was written
        _dispatcher(transport, dying).dispatch(_job(message_id, account_id))
    (retry,) = _queued_jobs(stack)
    assert (retry.attempt, retry.recipients) == (2, ["a@example.com"])

    clock.advance(LEASE_SECONDS + 1)
    _dispatcher(transport, worker="w2").dispatch(_job(message_id, account_id))  # the original job again
    _dispatcher(transport, worker="w3").dispatch(retry)  # and the retry: nothing left to do
    assert transport.handed == ["a@example.com", "a@example.com"]  # the attempt repeated; then delivered
    assert _event_types(message_id)[-2:] == ["sent", "delivered"]
    assert sending.message_store().get(message_id).recipients == {  # type: ignore[union-attr]
        "a@example.com": RecipientState.DELIVERED
    }


def test_a_deferred_recipient_is_retried_on_the_schedule_and_only_once(stack: InProcessStack, account_id: str) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    _queued_jobs(stack)
    transport = RecordingTransport({"a@example.com": [OutcomeKind.DEFERRED, OutcomeKind.DELIVERED]})
    dispatcher = _dispatcher(transport)
    dispatcher.dispatch(_job(message_id, account_id))
    (retry,) = _queued_jobs(stack)
    delayed = [e for e in events.event_store().for_message(message_id) if e.type is EventType.DELAYED]
    assert [(e.recipient, e.data["retry_count"]) for e in delayed] == [("a@example.com", 1)]
    assert sending.message_store().get(message_id).status.value == "deferred"  # type: ignore[union-attr]
    dispatcher.dispatch(retry)
    dispatcher.dispatch(retry)
    assert transport.handed == ["a@example.com", "b@example.com", "a@example.com"]
    assert sending.message_store().get(message_id).status.value == "delivered"  # type: ignore[union-attr]


def test_a_job_whose_message_was_never_stored_is_retried_then_dropped(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    job = _job("msg_never_stored", account_id)
    with pytest.raises(RetryLater):
        _dispatcher(RecordingTransport()).dispatch(job)
    clock.advance((MISSING_GRACE + timedelta(seconds=1)).total_seconds())
    _dispatcher(RecordingTransport()).dispatch(job)  # dropped: no error, nothing sent


def test_a_cancelled_message_is_never_sent_even_if_its_job_arrives(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    operator = operator_root.operator_service()
    key = operator.create_key(account_id, name="t", env=Environment.TEST)
    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", _rule()).principal
    assert principal is not None
    send_at = (clock.now() + timedelta(minutes=5)).isoformat()
    request = SendRequest.model_validate(
        {"from": "a@postline.test", "to": ["a@example.com"], "subject": "s", "text": "t", "send_at": send_at}
    )
    message_id = sending.send_service().send(principal, request).id
    sending.send_service().cancel(principal, message_id)
    clock.advance(600)
    transport = RecordingTransport()
    _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert transport.handed == []
    assert _event_types(message_id) == ["queued", "rejected"]


def _items(stack: InProcessStack, message_id: str) -> dict[str, dict[str, Any]]:
    """The message's items in the messages table, by sort key."""
    found = stack.client("dynamodb").query(
        TableName=stack.env["MESSAGES_TABLE"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"MSG#{message_id}"}},
        ConsistentRead=True,
    )["Items"]
    return {item["sk"]["S"]: from_attrs(item) for item in found}


def test_the_sealed_content_is_an_item_of_its_own_that_expires_with_the_message(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    items = _items(stack, message_id)
    assert set(items) == {MESSAGE_SK, BODY_SK}
    message, body = items[MESSAGE_SK], items[BODY_SK]
    assert "sealed" not in message and set(body) == {"pk", "sk", "sealed", "expires_at"}
    assert body["expires_at"] == message["expires_at"]  # the table's TTL takes both together
    assert sending.vault().open(message_id, body["sealed"]).text == "hello"
    transport = RecordingTransport()
    _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert transport.handed == ["a@example.com"]
    after = _items(stack, message_id)
    assert "sealed" not in after[MESSAGE_SK] and after[BODY_SK] == body  # state changes leave the body alone


def test_a_message_stored_with_its_content_in_the_message_item_is_still_delivered(
    stack: InProcessStack, account_id: str
) -> None:
    """Messages stored before bodies had an item (a scheduled send waits up to 30 days, a retry
    hours) hold `sealed` in the message item: the dispatcher takes it from there."""
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    db, table = stack.client("dynamodb"), stack.env["MESSAGES_TABLE"]
    body = db.get_item(TableName=table, Key=body_key(message_id), ConsistentRead=True)["Item"]
    db.update_item(
        TableName=table,
        Key=message_key(message_id),
        UpdateExpression="SET sealed = :sealed",
        ExpressionAttributeValues={":sealed": body["sealed"]},
    )
    db.delete_item(TableName=table, Key=body_key(message_id))
    assert set(_items(stack, message_id)) == {MESSAGE_SK}
    transport = RecordingTransport()
    _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert sorted(transport.handed) == ["a@example.com", "b@example.com"]
    assert _event_types(message_id).count("delivered") == 2


def test_a_message_whose_body_is_missing_sends_nothing_and_fails_on_its_last_receive(
    stack: InProcessStack, account_id: str
) -> None:
    """A send that died between its body and its message (DynamoDB left the body unprocessed): the
    job is retried, then its recipients fail with the reason; nothing goes out without content."""
    message_id = _send(account_id, ["a@example.com"])
    stack.client("dynamodb").delete_item(TableName=stack.env["MESSAGES_TABLE"], Key=body_key(message_id))
    transport = RecordingTransport()
    with pytest.raises(LookupError):
        _dispatcher(transport).dispatch(_job(message_id, account_id))
    assert transport.handed == [] and _event_types(message_id) == ["queued"]
    _dispatcher(transport, worker="w2").dispatch(_job(message_id, account_id), receive_count=LAST_RECEIVE)
    assert transport.handed == [] and _event_types(message_id) == ["queued", "failed"]
    failed = events.event_store().for_message(message_id)[-1]
    assert failed.data["reason"].endswith(f"the content of {message_id} was never stored)")
