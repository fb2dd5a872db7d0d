"""The hand-over to the SMTP relay task and the task's loop, with the real stores and queues (moto,
tables and queues from template.yaml) and a movable clock.

The dispatcher Lambda's Dispatcher (with the relay queue) must never hand a live message to a
transport: it queues the job. The relay task's RelayWorker long-polls that queue and runs the job
through a Dispatcher without one. Faults: the task killed mid-job (an exception no handler catches,
its lease left behind), the job then redelivered by SQS after its visibility timeout; a job handed
over twice. Nothing is lost, nothing recorded twice, and only the one window no MTA can close (a 250
not yet written down) repeats a hand-over.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from postline import wiring
from postline.auth.service import RouteRule
from postline.delivery.outcomes import Outcome
from postline.delivery.parcel import Parcel
from postline.delivery.ports import Transport
from postline.delivery.service import LEASE_SECONDS, Dispatcher
from postline.keys.access import Access, Environment
from postline.relay.worker import RelayWorker
from postline.sending.dispatch_job import DispatchJob
from postline.sending.models import SendRequest
from postline.sending.store import DynamoMessageStore
from postline.shared.clock import MovableClock
from postline.verification.service import Verifier
from postline.wiring import auth, delivery, events, operator, sending
from postline.wiring import domains as domains_root
from postline.wiring import suppressions as suppressions_root
from tests.adapters.conftest import SENDER_DOMAIN
from tests.adapters.test_dispatch_faults import DyingStore, Killed, RecordingTransport
from tests.aws_stack import InProcessStack, in_process_stack
from tests.fakes.shared import RecordingMeter
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes


class NoTransport:
    """The dispatcher Lambda's transport for live mail: using it at all is the failure."""

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        raise AssertionError("the dispatcher Lambda opened an SMTP connection")


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack({"QueueMaxDelaySeconds": "0", "OutboundTransport": "smtp"}) as stack:
        yield stack


@pytest.fixture
def relay_queue(stack: InProcessStack) -> Iterator[str]:
    """The relay queue's URL; emptied after each test so no test sees another's jobs."""
    url = stack.env["RELAY_QUEUE_URL"]
    yield url
    sqs = stack.client("sqs")
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "0"})  # what is in flight too
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "360"})


def _send(account_id: str, to: list[str], env: Environment = Environment.LIVE) -> str:
    created = operator.operator_service().create_key(account_id, name="k", env=env)
    admitted = auth.authenticator().admit([f"Bearer {created.key}"], "127.0.0.1", RouteRule(Access.SEND, False))
    assert admitted.principal is not None
    body = {"from": f"a@{SENDER_DOMAIN}", "to": to, "subject": "s", "text": "hello"}
    return sending.send_service().send(admitted.principal, SendRequest.model_validate(body)).id


def _dispatcher(
    transport: Transport, *, relay: bool, store: DynamoMessageStore | None = None, worker: str = "w"
) -> Dispatcher:
    return Dispatcher(
        messages=store or sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: transport,
        verifier=Verifier(StaticRoutes()),
        links=None,
        retention_days=lambda account: 30,
        quotas=UnlimitedQuotas(),
        clock=wiring.clock(),
        meter=RecordingMeter(),
        worker_id=worker,
        relay=delivery.relay_queue() if relay else None,
    )


def _relay_worker(stack: InProcessStack, transport: Transport, **options: Any) -> RelayWorker:
    env = stack.env
    return RelayWorker(
        stack.client("sqs"),
        env["RELAY_QUEUE_URL"],
        env["RELAY_QUEUE_ARN"],
        lambda: _dispatcher(transport, relay=False, **options),
        wait_seconds=0,
    )


def _job(message_id: str, account_id: str) -> DispatchJob:
    return DispatchJob(message_id=message_id, account_id=account_id, enqueued_at=wiring.clock().now())


def _types(message_id: str) -> list[str]:
    return [event.type.value for event in events.event_store().for_message(message_id)]


def _received(worker: RelayWorker) -> None:
    """Polls until the job comes back (the queue's visibility timeout is 1 s in these tests)."""
    deadline = time.monotonic() + 10
    while not worker.poll():
        assert time.monotonic() < deadline, "the job never came back"
        time.sleep(0.1)


def _depth(stack: InProcessStack, url: str) -> tuple[int, int]:
    attributes = stack.client("sqs").get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]), int(attributes["ApproximateNumberOfMessagesNotVisible"])


def test_the_dispatcher_hands_a_live_job_over_and_the_relay_delivers_it(
    stack: InProcessStack, account_id: str, relay_queue: str
) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    _dispatcher(NoTransport(), relay=True).dispatch(_job(message_id, account_id))
    assert _types(message_id) == ["queued", "queued"]  # nothing recorded by the Lambda
    assert _depth(stack, relay_queue) == (1, 0)

    transport = RecordingTransport()
    assert _relay_worker(stack, transport).poll() == 1
    assert sorted(transport.handed) == ["a@example.com", "b@example.com"]
    assert sorted(_types(message_id)) == ["delivered", "delivered", "queued", "queued", "sent", "sent"]
    assert sending.message_store().get(message_id).status.value == "delivered"  # type: ignore[union-attr]
    assert _depth(stack, relay_queue) == (0, 0)  # deleted once recorded


def test_a_test_message_is_simulated_by_the_dispatcher_and_never_relayed(
    stack: InProcessStack, account_id: str, relay_queue: str
) -> None:
    message_id = _send(account_id, ["a@example.com"], env=Environment.TEST)
    simulator = RecordingTransport()
    _dispatcher(simulator, relay=True).dispatch(_job(message_id, account_id))
    assert simulator.handed == ["a@example.com"]
    assert _depth(stack, relay_queue) == (0, 0)


def test_a_job_handed_over_twice_is_delivered_once(stack: InProcessStack, account_id: str, relay_queue: str) -> None:
    message_id = _send(account_id, ["a@example.com", "b@example.com"])
    lambda_dispatcher = _dispatcher(NoTransport(), relay=True)
    lambda_dispatcher.dispatch(_job(message_id, account_id))
    lambda_dispatcher.dispatch(_job(message_id, account_id))  # the send queue delivered the job twice
    assert _depth(stack, relay_queue) == (2, 0)

    transport = RecordingTransport()
    worker = _relay_worker(stack, transport)
    while worker.poll():
        pass
    assert sorted(transport.handed) == ["a@example.com", "b@example.com"]
    assert _types(message_id).count("delivered") == 2
    assert _types(message_id).count("sent") == 2
    assert _depth(stack, relay_queue) == (0, 0)


@pytest.mark.parametrize(
    ("dies", "repeated"),
    [
        # Killed after b's 250, before its record: the one window (RFC 1047): b gets a second copy.
        ({"die_on_record": 2}, ["b@example.com"]),
        # Killed while handing b over, before any reply: nothing is handed twice.
        ({"kill_on_call": 2}, []),
    ],
)
def test_a_relay_task_killed_mid_job_loses_nothing_when_the_job_comes_back(
    stack: InProcessStack,
    account_id: str,
    relay_queue: str,
    clock: MovableClock,
    dies: dict[str, int],
    repeated: list[str],
) -> None:
    sqs = stack.client("sqs")
    sqs.set_queue_attributes(QueueUrl=relay_queue, Attributes={"VisibilityTimeout": "1"})
    # (the fixture puts the 360 s back)
    recipients = ["a@example.com", "b@example.com", "c@example.com"]
    message_id = _send(account_id, recipients)
    _dispatcher(NoTransport(), relay=True).dispatch(_job(message_id, account_id))

    first = RecordingTransport(kill_on_call=dies.get("kill_on_call", 0))
    store = DyingStore(sending.message_store(), die_on_record=dies.get("die_on_record", 0))
    store.dead = True  # this task will die: whatever kills it, it gives no lease back
    with pytest.raises(Killed):  # the task dies: the job is neither finished nor deleted
        _relay_worker(stack, first, store=store, worker="dead").poll()
    assert _types(message_id).count("delivered") == 1  # a's, recorded before the death
    assert sum(_depth(stack, relay_queue)) == 1  # not deleted

    # SQS gives the job back after its visibility timeout; the dead task's lease still holds.
    second = RecordingTransport()
    _received(_relay_worker(stack, second, worker="live"))
    assert second.handed == []  # RetryLater: left on the queue, not deleted
    assert sum(_depth(stack, relay_queue)) == 1

    clock.advance(LEASE_SECONDS + 1)  # the lease expires (the real queue waits 360 s > 300)
    _received(_relay_worker(stack, second, worker="live"))
    assert second.handed == ["b@example.com", "c@example.com"]  # what had no record, and only that
    assert sorted(first.handed + second.handed) == sorted([*recipients, *repeated])
    types = _types(message_id)
    assert types.count("delivered") == 3 and types.count("sent") == 3  # each recorded once
    assert sending.message_store().get(message_id).status.value == "delivered"  # type: ignore[union-attr]
    assert _depth(stack, relay_queue) == (0, 0)
