"""Resend jobs and the deliveries table's history reads against moto: filters and positions of
for_endpoint, batch reads, the job's counters (once per delivery) and completion, the queue."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery, DeliveryStatus
from postline.webhook_delivery.history import months_between, sort_key
from postline.webhook_delivery.store import DynamoDeliveryStore
from postline.webhook_resend.domain import ResendJob, ResendMessage, ResendStatus
from postline.webhook_resend.store import CONFLICT_TRIES, DynamoResendJobs, SqsResendQueue
from tests.aws_stack import InProcessStack

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(stack: InProcessStack) -> DynamoDeliveryStore:
    return DynamoDeliveryStore(stack.client("dynamodb"), stack.env["WEBHOOK_DELIVERIES_TABLE"])


@pytest.fixture
def jobs(stack: InProcessStack) -> DynamoResendJobs:
    return DynamoResendJobs(stack.client("dynamodb"), stack.env["JOBS_TABLE"])


def _delivery(account: str, n: int, created: datetime, *, failed: bool, event: str = "delivered") -> Delivery:
    delivery = Delivery(
        id=f"whd_{uuid.uuid4().hex}",
        account_id=account,
        endpoint_id="wh_1",
        url="https://hooks.example/in",
        event_id=f"evt_{n}",
        event_type=event,
        message_id="msg_1",
        body="{}",
        created_at=created,
        expires_at=int((created + timedelta(days=30)).timestamp()),
    )
    result, code = (AttemptResult.REFUSED, 400) if failed else (AttemptResult.SUCCEEDED, 200)
    return delivery.after(Attempt(number=1, at=created, result=result, status_code=code, latency_ms=3))


def _history(store: DynamoDeliveryStore, account: str) -> list[Delivery]:
    """40 deliveries over two months, newest last; every third failed, every fourth a bounce."""
    made = [
        _delivery(account, n, T0 - timedelta(days=40) + timedelta(days=n), failed=n % 3 == 0, event="bounced")
        if n % 4 == 0
        else _delivery(account, n, T0 - timedelta(days=40) + timedelta(days=n), failed=n % 3 == 0)
        for n in range(40)
    ]
    for delivery in made:
        assert store.create(delivery)
        assert store.save(delivery, attempts_before=1)  # its attempt recorded: by_endpoint holds it
    return made


def test_for_endpoint_filters_and_continues_after_a_position(store: DynamoDeliveryStore) -> None:
    account = f"acct_{uuid.uuid4().hex}"
    made = _history(store, account)
    since, until = T0 - timedelta(days=45), T0
    months = months_between(since, until)
    newest_first = made[::-1]
    assert [d.id for d in store.for_endpoint(account, "wh_1", months, since=since, until=until)] == [
        d.id for d in newest_first
    ]

    failed_bounces = list(
        store.for_endpoint(
            account,
            "wh_1",
            months,
            since=since,
            until=until,
            statuses=[DeliveryStatus.FAILED],
            event_types=["bounced"],
        )
    )
    expected = [d for d in newest_first if d.status is DeliveryStatus.FAILED and d.event_type == "bounced"]
    assert [d.id for d in failed_bounces] == [d.id for d in expected] and len(expected) == 4

    position = newest_first[9]
    after = store.read_history(
        account,
        "wh_1",
        months_between(since, position.created_at),
        since=since,
        until=until,
        before=sort_key(position.created_at, position.id),
        statuses=(),
        event_types=(),
        want=5,
        budget_seconds=30.0,
    )
    assert [d.id for d in after.deliveries] == [d.id for d in newest_first[10:15]] and after.resume_at is None
    assert list(store.for_endpoint(account, "wh_2", months, since=since, until=until)) == []


def test_get_many_reads_the_existing_ones(store: DynamoDeliveryStore) -> None:
    account = f"acct_{uuid.uuid4().hex}"
    made = [_delivery(account, n, T0, failed=True) for n in range(3)]
    for delivery in made:
        store.create(delivery)
    wanted = [made[0].id, "whd_" + "0" * 32, made[2].id, made[0].id]
    assert store.get_many(wanted) == {made[0].id: made[0], made[2].id: made[2]}


def _job(account: str) -> ResendJob:
    return ResendJob(
        id=f"rsd_{uuid.uuid4().hex}", account_id=account, endpoint_id=None, delivery_ids=["whd_a"], created_at=T0
    )


def test_a_job_starts_once_counts_each_delivery_once_and_completes_at_matched(jobs: DynamoResendJobs) -> None:
    job = _job(f"acct_{uuid.uuid4().hex}")
    jobs.create(job)
    assert jobs.get(job.account_id, job.id) == job
    assert jobs.get("acct_other", job.id) is None

    started = jobs.start(job, 2)
    assert (started.status, started.matched) == (ResendStatus.RUNNING, 2)
    assert jobs.start(job, 5).matched == 2  # a repeated job message changes nothing

    assert jobs.count(started, "whd_1", succeeded=True) is True
    assert jobs.count(started, "whd_1", succeeded=True) is False  # a redelivered attempt message
    assert jobs.complete_if_done(started, T0) is False
    assert jobs.count(started, "whd_2", succeeded=False) is True
    assert jobs.complete_if_done(started, T0 + timedelta(seconds=5)) is True
    assert jobs.complete_if_done(started, T0 + timedelta(seconds=6)) is False
    done = jobs.get(job.account_id, job.id)
    assert done is not None
    assert (done.status, done.attempted, done.succeeded, done.failed) == (ResendStatus.COMPLETED, 2, 1, 1)
    assert done.completed_at == T0 + timedelta(seconds=5)


def test_a_stopped_job_is_completed_with_its_reason(jobs: DynamoResendJobs) -> None:
    job = _job(f"acct_{uuid.uuid4().hex}")
    jobs.create(job)
    jobs.stop(job, "too many", T0)
    jobs.stop(job, "again", T0 + timedelta(seconds=1))  # no-op once completed
    stopped = jobs.get(job.account_id, job.id)
    assert stopped is not None
    assert (stopped.status, stopped.error_message, stopped.completed_at) == (ResendStatus.COMPLETED, "too many", T0)
    assert jobs.start(job, 3).status is ResendStatus.COMPLETED


class _ConflictingOnce:
    """The DynamoDB client, but the first call of `operation` meets another worker's write."""

    def __init__(self, client: Any, operation: str, error: ClientError) -> None:
        self._client = client
        self._operation = operation
        self._error: ClientError | None = error

    def __getattr__(self, name: str) -> Any:
        if name == self._operation and self._error is not None:
            error, self._error = self._error, None

            def conflict(**_: Any) -> None:
                raise error

            return conflict
        return getattr(self._client, name)


def _cancelled_by_a_conflict() -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "[None, TransactionConflict]"},
            "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}],
        },
        "TransactWriteItems",
    )


def test_a_count_or_a_completion_that_meets_another_workers_write_is_retried(stack: InProcessStack) -> None:
    db, table = stack.client("dynamodb"), stack.env["JOBS_TABLE"]
    job = _job(f"acct_{uuid.uuid4().hex}")
    DynamoResendJobs(db, table).create(job)
    started = DynamoResendJobs(db, table).start(job, 1)

    pauses: list[float] = []
    counting = DynamoResendJobs(
        _ConflictingOnce(db, "transact_write_items", _cancelled_by_a_conflict()), table, pause=pauses.append
    )
    assert counting.count(started, "whd_1", succeeded=True) is True
    assert len(pauses) == 1 and 0 <= pauses[0] <= 0.05

    in_progress = ClientError({"Error": {"Code": "TransactionConflictException", "Message": "busy"}}, "UpdateItem")
    completing = DynamoResendJobs(_ConflictingOnce(db, "update_item", in_progress), table, pause=pauses.append)
    assert completing.complete_if_done(started, T0) is True
    done = DynamoResendJobs(db, table).get(job.account_id, job.id)
    assert done is not None and (done.status, done.attempted, done.succeeded) == (ResendStatus.COMPLETED, 1, 1)
    assert len(pauses) == 2


def test_conflicts_that_do_not_clear_fail_the_message(stack: InProcessStack) -> None:
    class AlwaysConflicting:
        def transact_write_items(self, **_: Any) -> None:
            raise _cancelled_by_a_conflict()

    pauses: list[float] = []
    jobs = DynamoResendJobs(AlwaysConflicting(), stack.env["JOBS_TABLE"], pause=pauses.append)
    with pytest.raises(ClientError):
        jobs.count(_job("acct_busy"), "whd_1", succeeded=False)
    assert len(pauses) == CONFLICT_TRIES - 1


def test_attempt_messages_go_out_ten_to_a_call(stack: InProcessStack) -> None:
    sqs = stack.client("sqs")
    url = stack.env["RESEND_QUEUE_URL"]
    job = _job("acct_q")
    SqsResendQueue(sqs, url).enqueue_attempts(job, [f"whd_{n}" for n in range(23)])
    SqsResendQueue(sqs, url).enqueue_job(job)
    bodies = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            bodies.append(ResendMessage.model_validate_json(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert sorted(m.delivery_id or "" for m in bodies) == sorted(["", *(f"whd_{n}" for n in range(23))])
    assert {(m.account_id, m.job_id) for m in bodies} == {("acct_q", job.id)}
