"""A recorded step's events follow its conditional write (no transaction) and are never lost or doubled.

The dispatcher's record and a feedback report's change are an UpdateItem of the message item that
keeps the step's events packed in it, then the events' puts. Here a worker dies between the two,
a write's reply is lost and the write tried again, a report comes twice: each ends with the very
events the step made (ids, times, fields) written once, and one INSERT on the events stream per
event (what the webhook fan-out, the metrics roll-up and the recipient-activity consumer take).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from bench.cloud import item_bytes
from postline import wiring
from postline.accounts.domain import Plan
from postline.delivery.feedback import FeedbackService
from postline.delivery.outcomes import OutcomeKind
from postline.delivery.parcel import MESSAGE_TAG
from postline.delivery.service import LEASE_SECONDS, Dispatcher
from postline.events.domain import Event, EventType, message_event
from postline.keys.access import Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import RecipientState
from postline.sending.models import SendRequest
from postline.sending.ports import MessageStore
from postline.sending.store import FEEDBACK_SLOT, RECORD_SLOT, DynamoMessageStore, message_key
from postline.shared.clock import MovableClock
from postline.tracking.domain import LinkMaker
from postline.verification.service import Verifier
from postline.wiring import auth, events, sending
from postline.wiring import domains as domains_root
from postline.wiring import operator as operator_root
from postline.wiring import suppressions as suppressions_root
from tests.adapters.test_dispatch_faults import RecordingTransport
from tests.aws_stack import InProcessStack, in_process_stack
from tests.fakes.shared import RecordingMeter
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes


class Killed(BaseException):
    """A worker dying: not an error any handler in the code catches."""


class DiesBeforeEvents(DynamoMessageStore):
    """The real store, whose worker dies after the first conditional write that committed a step,
    before that step's events (and, dead, releases nothing). Remembers the events each call made."""

    def __init__(self, inner: DynamoMessageStore) -> None:
        self.__dict__.update(inner.__dict__)
        self.dead = False
        self.made: list[Event] = []

    def record(self, *args: Any, **kwargs: Any) -> bool:
        self.made += args[4]
        return super().record(*args, **kwargs)

    def advance(self, *args: Any, **kwargs: Any) -> bool:
        self.made += args[3]
        return super().advance(*args, **kwargs)

    def _write_events(self, found: list[Event]) -> None:
        if found and not self.dead:
            self.dead = True
            raise Killed
        super()._write_events(found)

    def release(self, *args: Any, **kwargs: Any) -> None:
        if not self.dead:
            super().release(*args, **kwargs)


class LosesFirstReply(DynamoMessageStore):
    """The real store on a connection that loses the reply of its first UpdateItem after the write
    was made (botocore then reports a 500 and the caller tries again)."""

    def __init__(self, inner: DynamoMessageStore) -> None:
        self.__dict__.update(inner.__dict__)
        self._db = _LosingClient(inner._db)


class _LosingClient:
    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.lost = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def update_item(self, **request: Any) -> Any:
        answer = self._inner.update_item(**request)
        if "attempts.#r" in request["UpdateExpression"] and not self.lost:
            self.lost += 1
            error = {"Error": {"Code": "InternalServerError", "Message": "reply lost"}}
            raise ClientError({**error, "ResponseMetadata": {"HTTPStatusCode": 500}}, "UpdateItem")
        return answer


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack({"QueueMaxDelaySeconds": "0"}) as stack:
        yield stack


@pytest.fixture
def account_id(stack: InProcessStack, clock: MovableClock) -> str:
    return operator_root.operator_service().create_account(name="records", plan=Plan.PROFESSIONAL).id


def _send(account_id: str, to: list[str]) -> str:
    operator = operator_root.operator_service()
    key = operator.create_key(account_id, name="t", env=Environment.TEST)
    from postline.auth.service import RouteRule
    from postline.keys.access import Access

    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", RouteRule(Access.SEND, False))
    assert principal.principal is not None
    request = SendRequest.model_validate({"from": "a@postline.test", "to": to, "subject": "s", "text": "hello"})
    return sending.send_service().send(principal.principal, request).id


def _dispatcher(store: DynamoMessageStore, worker: str, transport: RecordingTransport | None = None) -> Dispatcher:
    return Dispatcher(
        messages=store,
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: transport or RecordingTransport(),
        verifier=Verifier(StaticRoutes()),
        links=LinkMaker("https://track.example", b"secret"),
        retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(),
        clock=wiring.clock(),
        meter=RecordingMeter(),
        worker_id=worker,
    )


def _job(message_id: str, account_id: str) -> DispatchJob:
    return DispatchJob(message_id=message_id, account_id=account_id, attempt=1, enqueued_at=wiring.clock().now())


def _stored(message_id: str, *kinds: EventType) -> list[dict[str, Any]]:
    """The message's stored events of these kinds, as the API gives them (ids, times, fields)."""
    found = [event for event in events.event_store().for_message(message_id) if event.type in kinds]
    return sorted((event.model_dump(mode="json") for event in found), key=_order)


def _dumped(made: list[Event]) -> list[dict[str, Any]]:
    return sorted((event.model_dump(mode="json") for event in made), key=_order)


def _order(event: dict[str, Any]) -> tuple[str, str, str]:
    """Events of one time (a test's `now` for two steps) ordered by id, whichever was stored first."""
    return event["recipient"], event["timestamp"], event["id"]


def _inserts(stack: InProcessStack, message_id: str) -> list[str]:
    """The event ids of the message's INSERT records on the events table's stream (its consumers'
    input: they take INSERTs of EVT# items only)."""
    store = sending.message_store()
    streams = stack.client("dynamodbstreams")
    arn = stack.client("dynamodb").describe_table(TableName=store._events)["Table"]["LatestStreamArn"]
    ids: list[str] = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        page = streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=1000)
        while page["Records"]:
            for record in page["Records"]:
                image = record["dynamodb"].get("NewImage") or {}
                if (
                    record["eventName"] == "INSERT"
                    and record["dynamodb"]["Keys"]["pk"]["S"].startswith("EVT#")
                    and image.get("message_id", {}).get("S") == message_id
                ):
                    ids.append(image["id"]["S"])
            page = streams.get_records(ShardIterator=page["NextShardIterator"], Limit=1000)
    return sorted(ids)


def _item(message_id: str) -> dict[str, Any]:
    store = sending.message_store()
    item: dict[str, Any] = store._db.get_item(TableName=store._table, Key=message_key(message_id))["Item"]
    return item


def test_a_worker_dying_between_the_record_and_its_events_leaves_them_to_the_next_job(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    dying = DiesBeforeEvents(sending.message_store())
    with pytest.raises(Killed):
        _dispatcher(dying, "w1").dispatch(_job(message_id, account_id))
    assert _stored(message_id, EventType.SENT, EventType.DELIVERED) == []  # recorded, its events not written
    assert sending.message_store().get(message_id).recipients["a@example.com"] is RecipientState.DELIVERED  # type: ignore[union-attr]
    assert RECORD_SLOT in _item(message_id)

    clock.advance(7 * 60)  # the redelivery comes later: its events keep their own times
    for worker in ("w2", "w3"):  # a job finding nothing left to do writes them (twice: the same items)
        handed = RecordingTransport()
        _dispatcher(sending.message_store(), worker, handed).dispatch(_job(message_id, account_id))
        assert handed.handed == []

    assert [e["type"] for e in _stored(message_id, EventType.SENT, EventType.DELIVERED)] == ["sent", "delivered"]
    assert _stored(message_id, EventType.SENT, EventType.DELIVERED) == _dumped(dying.made)
    assert sorted(_inserts(stack, message_id)) == sorted([e.id for e in dying.made] + _queued_ids(message_id))


def _queued_ids(message_id: str) -> list[str]:
    return [e.id for e in events.event_store().for_message(message_id) if e.type is EventType.QUEUED]


def test_the_next_claim_writes_the_dead_workers_last_events_before_recording_its_own(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    dying = DiesBeforeEvents(sending.message_store())
    with pytest.raises(Killed):  # dies after recording a@, before its events; its lease stays
        _dispatcher(dying, "w1").dispatch(_job(message_id, account_id))
    clock.advance(LEASE_SECONDS + 1)
    later = RecordingTransport()
    _dispatcher(sending.message_store(), "w2", later).dispatch(_job(message_id, account_id))

    assert later.handed == ["b@example.com"]
    stored = _stored(message_id, EventType.SENT, EventType.DELIVERED)
    assert [(e["recipient"], e["type"]) for e in stored] == [
        ("a@example.com", "sent"),
        ("a@example.com", "delivered"),
        ("b@example.com", "sent"),
        ("b@example.com", "delivered"),
    ]
    assert [e for e in stored if e["recipient"] == "a@example.com"] == _dumped(dying.made)
    assert len(_inserts(stack, message_id)) == 6  # two queued, four others: each once


def test_a_record_tried_again_after_its_reply_was_lost_writes_its_events_once(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    store = LosesFirstReply(sending.message_store())
    claimed = store.claim(message_id, "w1", wiring.clock().now(), LEASE_SECONDS)
    assert claimed is not None
    message, _ = claimed
    message.recipients["a@example.com"] = RecipientState.SENT
    made = [
        message_event(message, EventType.SENT, "a@example.com", wiring.clock().now(), {}, retention_days=30, step=1)
    ]

    assert store.record(message, "a@example.com", 1, "w1", made, release=True)  # its own write, found: done
    assert store._db.lost == 1
    assert _stored(message_id, EventType.SENT) == _dumped(made)
    # Another owner's try of the same attempt is refused and writes nothing.
    other = sending.message_store()
    assert other.claim(message_id, "w2", wiring.clock().now(), LEASE_SECONDS) is not None
    later = [e.model_copy(update={"timestamp": e.timestamp + timedelta(seconds=5)}) for e in made]
    assert not other.record(message, "a@example.com", 1, "w2", later, release=True)
    assert _stored(message_id, EventType.SENT) == _dumped(made)
    assert len(_inserts(stack, message_id)) == 2


def test_a_report_applied_by_a_worker_that_died_is_written_by_its_repeat_as_first_made(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    accepted = RecordingTransport({r: [OutcomeKind.ACCEPTED] for r in ("a@example.com", "b@example.com")})
    _dispatcher(sending.message_store(), "w1", accepted).dispatch(_job(message_id, account_id))
    message = sending.message_store().get(message_id)
    assert message is not None

    def delivered(recipient: str, retention: int) -> list[Event]:
        message.recipients[recipient] = RecipientState.DELIVERED
        at = wiring.clock().now()
        return [message_event(message, EventType.DELIVERED, recipient, at, {}, retention_days=retention, step="ses")]

    dying = DiesBeforeEvents(sending.message_store())
    first = delivered("a@example.com", 30)
    with pytest.raises(Killed):
        dying.advance(message, "a@example.com", {RecipientState.SENT}, first, step="ses")
    assert _stored(message_id, EventType.DELIVERED) == []
    # Its repeat (made with another retention: what the first made is what is written) finds it done.
    repeat = delivered("a@example.com", 90)
    store = sending.message_store()
    assert not store.advance(message, "a@example.com", {RecipientState.SENT}, repeat, step="ses")
    assert _stored(message_id, EventType.DELIVERED) == _dumped(first)

    # A worker dying again; the next report (another recipient's) replaces the slot and writes both.
    second = delivered("b@example.com", 30)
    with pytest.raises(Killed):
        DiesBeforeEvents(sending.message_store()).advance(
            message, "b@example.com", {RecipientState.SENT}, second, step="ses"
        )
    message.recipients["a@example.com"] = RecipientState.COMPLAINED
    complaint = [
        message_event(
            message, EventType.COMPLAINED, "a@example.com", wiring.clock().now(), {}, retention_days=30, step="ses"
        )
    ]
    assert store.advance(message, "a@example.com", {RecipientState.DELIVERED}, complaint, step="ses")
    assert _stored(message_id, EventType.DELIVERED, EventType.COMPLAINED) == _dumped(first + second + complaint)
    # queued x2, sent x2, delivered x2, complained: each once on the stream
    assert len(_inserts(stack, message_id)) == 7
    assert FEEDBACK_SLOT in _item(message_id)


def _feedback(store: MessageStore) -> FeedbackService:
    return FeedbackService(
        messages=store,
        suppressions=suppressions_root.suppressions(),
        retention_days=lambda account_id: 30,
        meter=RecordingMeter(),
    )


def _report(kind: str, message_id: str, recipient: str, at: str) -> dict[str, Any]:
    """An SES event notification for one recipient, its time SES's (not the worker's clock)."""
    mail = {"timestamp": "2026-11-29T01:00:00Z", "messageId": "ses-1", "tags": {MESSAGE_TAG: [message_id]}}
    bodies = {
        "Delivery": {"timestamp": at, "recipients": [recipient], "smtpResponse": "250 2.0.0 OK", "reportingMTA": "mx"},
        "Complaint": {
            "timestamp": at,
            "complaintFeedbackType": "abuse",
            "complainedRecipients": [{"emailAddress": recipient}],
        },
        "DeliveryDelay": {
            "timestamp": at,
            "delayType": "MailboxFull",
            "delayedRecipients": [{"emailAddress": recipient}],
        },
    }
    return {"eventType": kind, "mail": mail, kind[0].lower() + kind[1:]: bodies[kind]}


def _handed_over(account_id: str, recipients: list[str]) -> str:
    message_id = _send(account_id, recipients)
    accepted = RecordingTransport({r: [OutcomeKind.ACCEPTED] for r in recipients})
    _dispatcher(sending.message_store(), "w1", accepted).dispatch(_job(message_id, account_id))
    return message_id


def _dies_after_its_change(report: dict[str, Any]) -> list[Event]:
    """A feedback worker applying `report` that dies after its change, before any event is written;
    the events it made."""
    dying = DiesBeforeEvents(sending.message_store())
    with pytest.raises(Killed):
        _feedback(dying).apply(report)
    return dying.made


@pytest.mark.parametrize("recipients", [["a@example.com"], ["a@example.com", "b@example.com"]])
def test_two_reports_whose_workers_died_after_their_changes_lose_no_event_when_redelivered(
    stack: InProcessStack, account_id: str, clock: MovableClock, recipients: list[str]
) -> None:
    """Report A changes a recipient and dies before its events; report B (the same recipient's
    complaint, or another's delivery) replaces the slot, taking A's events in its reply, and dies
    before writing any. Their redeliveries (B's first, then A's, later, in any order) write every
    event each report stands for, as first made, once each."""
    message_id = _handed_over(account_id, recipients)
    first = _report("Delivery", message_id, "a@example.com", "2026-11-29T01:00:05Z")
    second = (
        _report("Complaint", message_id, "a@example.com", "2026-11-29T01:30:00Z")
        if len(recipients) == 1
        else _report("Delivery", message_id, "b@example.com", "2026-11-29T01:00:07Z")
    )
    made = _dies_after_its_change(first) + _dies_after_its_change(second)
    assert len(made) == 2 and _stored(message_id, EventType.DELIVERED, EventType.COMPLAINED) == []

    clock.advance(16 * 60)  # past the queue's visibility timeout: SQS redelivers both
    for report in (second, first, second, first):  # and maybe again
        _feedback(sending.message_store()).apply(report)

    assert _stored(message_id, EventType.DELIVERED, EventType.COMPLAINED) == _dumped(made)
    assert len(_inserts(stack, message_id)) == 2 * len(recipients) + 2  # queued and sent each, and A's and B's


def test_a_report_whose_worker_died_after_its_change_is_written_by_its_redelivery(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    message_id = _handed_over(account_id, ["a@example.com"])
    report = _report("Delivery", message_id, "a@example.com", "2026-11-29T01:00:05Z")
    made = _dies_after_its_change(report)
    clock.advance(16 * 60)
    assert _feedback(sending.message_store()).apply(report) == 0  # nothing moved again
    assert _stored(message_id, EventType.DELIVERED) == _dumped(made)
    assert len(_inserts(stack, message_id)) == 3


def test_reports_of_one_kind_with_other_times_or_out_of_order_write_each_event_once(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    """SES repeats a delay with a later time: the first's event stays, the repeat writes none of its
    own (one `delayed`, at the first's time), even while the first's worker died before writing it.
    A delivery reported after the complaint that followed it still has its event."""
    message_id = _handed_over(account_id, ["a@example.com"])
    made = _dies_after_its_change(_report("DeliveryDelay", message_id, "a@example.com", "2026-11-29T01:00:05Z"))
    clock.advance(60)
    later = _report("DeliveryDelay", message_id, "a@example.com", "2026-11-29T01:20:00Z")
    assert _feedback(sending.message_store()).apply(later) == 0
    assert _stored(message_id, EventType.DELAYED) == _dumped(made)

    complaint = _report("Complaint", message_id, "a@example.com", "2026-11-29T02:00:00Z")
    delivery = _report("Delivery", message_id, "a@example.com", "2026-11-29T01:30:00Z")
    assert _feedback(sending.message_store()).apply(complaint) == 1
    assert _feedback(sending.message_store()).apply(delivery) == 0  # the complaint stays
    assert _feedback(sending.message_store()).apply(later) == 0
    stored = _stored(message_id, EventType.DELAYED, EventType.DELIVERED, EventType.COMPLAINED)
    assert [(e["type"], e["timestamp"]) for e in stored] == [
        ("delayed", "2026-11-29T01:00:05Z"),
        ("delivered", "2026-11-29T01:30:00Z"),
        ("complained", "2026-11-29T02:00:00Z"),
    ]
    assert sending.message_store().get(message_id).recipients["a@example.com"] is RecipientState.COMPLAINED  # type: ignore[union-attr]
    assert len(_inserts(stack, message_id)) == 5  # queued, sent, delayed, delivered, complained


def test_the_message_item_stays_under_a_write_unit_with_its_last_records_events(
    stack: InProcessStack, account_id: str
) -> None:
    message_id = _send(account_id, ["a@example.com"])
    _dispatcher(sending.message_store(), "w1").dispatch(_job(message_id, account_id))
    item = _item(message_id)
    assert RECORD_SLOT in item and _stored(message_id, EventType.DELIVERED)
    assert item_bytes(item) <= 1024, item_bytes(item)


def test_a_live_delivery_through_ses_keeps_the_message_item_under_a_write_unit(
    stack: InProcessStack, account_id: str
) -> None:
    """The dispatcher's `sent` (SES's message id, the pool and address) in `rec`, SES's delivery
    report (the MX's reply) in `fb`: the message item still bills one unit a write."""
    message_id = _send(account_id, ["reader1234@example.com"])
    store = sending.message_store()
    claimed = store.claim(message_id, "w1", wiring.clock().now(), LEASE_SECONDS)
    assert claimed is not None
    message, _ = claimed
    recipient, now = "reader1234@example.com", wiring.clock().now()
    source = {"ip_pool": "ipp_0123456789abcdef", "ip": "203.0.113.77"}
    provider = {"provider_message_id": "0100018c" + "e" * 52}  # SES's ids are 60 characters
    sent = {**provider, **source, "processing_ms": 48}
    message.recipients[recipient] = RecipientState.SENT
    made = [message_event(message, EventType.SENT, recipient, now, sent, retention_days=30, step=1)]
    assert store.record(message, recipient, 1, "w1", made, release=True)
    reply = "250 2.0.0 OK  1732812345 a1b2c3d4e5f6a7b8c9d0.42 - gsmtp"  # an MX's 60-character reply
    delivered = {"smtp_response": reply, **source, "total_ms": 1800}
    message.recipients[recipient] = RecipientState.DELIVERED
    report = [message_event(message, EventType.DELIVERED, recipient, now, delivered, retention_days=30, step="ses")]
    assert store.advance(message, recipient, {RecipientState.SENT}, report, step="ses")
    item = _item(message_id)
    assert RECORD_SLOT in item and FEEDBACK_SLOT in item
    assert item_bytes(item) <= 1024, item_bytes(item)
    assert _stored(message_id, EventType.SENT, EventType.DELIVERED) == _dumped(made + report)


def test_an_erasure_drops_the_kept_events_that_name_the_address_so_nothing_writes_them_again(
    stack: InProcessStack, account_id: str, clock: MovableClock
) -> None:
    from postline.data_removals.holdings import MessagesHolding

    message_id = _send(account_id, ["gone@example.com"])
    _dispatcher(sending.message_store(), "w1").dispatch(_job(message_id, account_id))
    assert RECORD_SLOT in _item(message_id)
    env = stack.env
    holding = MessagesHolding(
        stack.client("dynamodb"),
        stack.client("s3"),
        events=env["EVENTS_TABLE"],
        messages=env["MESSAGES_TABLE"],
        counters=env["COUNTERS_TABLE"],
        content_bucket=env["CONTENT_BUCKET"],
    )
    batch = holding.find(account_id, "gone@example.com", "hash", None)
    holding.apply(account_id, "gone@example.com", "hash", batch.work)
    assert RECORD_SLOT not in _item(message_id) and "gone@example.com" not in str(_item(message_id))
    assert _stored(message_id, EventType.SENT, EventType.DELIVERED) == []

    clock.advance(60)  # a duplicate job of the message later finds nothing to do and writes nothing
    _dispatcher(sending.message_store(), "w2").dispatch(_job(message_id, account_id))
    assert _stored(message_id, EventType.SENT, EventType.DELIVERED) == []
