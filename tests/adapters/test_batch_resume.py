"""A keyed send cut off mid-commit and retried with the same Idempotency-Key: the retry stores only
what the first try did not, with the same ids, every event once, and every message gets one job
(the outbox's, from the messages table's stream: tests/adapters/outbox_support.py).

Real stores on moto (messages, events, counters, idempotency, the send queue). The cut-off is
a kill (an exception no `except Exception` catches) inside the message store's create, after a
chunk's messages were written and before its events were: the worst place, as API Gateway's
29 s or the function's timeout would leave it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from botocore.exceptions import ClientError

from postline import wiring
from postline.accounts.domain import Plan
from postline.auth.service import RouteRule
from postline.config import Counters, Events, SendQueue
from postline.events.domain import Event
from postline.keys.access import Access, Environment
from postline.keys.identity import Principal
from postline.sending.domain import IdempotentCall, Message
from postline.sending.models import BatchSendRequest, SendRequest
from postline.sending.ports import Sealed
from postline.sending.service import STORE_CHUNK, SendService
from postline.sending.store import DynamoMessageStore
from postline.shared.dynamo import key
from postline.shared.errors import ApiError
from postline.shared.ids import keyed_id
from postline.usage.domain import day_key, month_key
from postline.usage.quota import email_limits
from postline.usage.store import usage_pk
from postline.wiring import accounts as accounts_root
from postline.wiring import auth, sending, shared, usage, webhooks
from postline.wiring import domains as domains_root
from postline.wiring import operator as operator_root
from postline.wiring import suppressions as suppressions_root
from postline.wiring import templates as templates_root
from tests.adapters.outbox_support import relay_outbox
from tests.aws_stack import InProcessStack
from tests.fakes.shared import RecordingMeter


class Killed(BaseException):
    """The function cut off: not an error any handler in the code catches."""


class DyingStore(DynamoMessageStore):
    """The real store, cut off on its Nth create between the chunk's messages and their events."""

    def __init__(self, inner: DynamoMessageStore, *, die_on_create: int) -> None:
        self.__dict__.update(inner.__dict__)
        self._die_on_create = die_on_create
        self._creates = 0

    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        self._creates += 1
        if self._creates == self._die_on_create:
            super().create(messages, sealed, [])
            raise Killed
        super().create(messages, sealed, events)


def _service(messages: DynamoMessageStore) -> SendService:
    """sending.send_service() with the given message store."""
    return SendService(
        messages=messages,
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        quotas=usage.counter_store(),
        suppressions=suppressions_root.suppressions(),
        domains=domains_root.sending_domains(),
        templates=templates_root.template_store(),
        accounts=accounts_root.account_store(),
        check_webhook_url=webhooks.url_guard().check_without_dns,
        idempotency=sending.idempotency(),
        ids=shared.ids(),
        clock=wiring.clock(),
        meter=RecordingMeter(),
    )


def _principal(env: Environment = Environment.TEST, account_id: str | None = None) -> Principal:
    operator = operator_root.operator_service()
    account_id = account_id or operator.create_account(name="resume", plan=Plan.PROFESSIONAL).id
    key = operator.create_key(account_id, name="k", env=env)
    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", RouteRule(Access.SEND, False))
    assert principal.principal is not None
    return principal.principal


def _drain_jobs() -> Counter[str]:
    """Message id -> how many jobs the send queue holds for it, once the outbox has queued the jobs of
    the messages stored so far (and empties the queue)."""
    relay_outbox()
    sqs, url = wiring.client("sqs"), wiring.settings(SendQueue).url
    jobs: Counter[str] = Counter()
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in batch:
            jobs[json.loads(message["Body"])["message_id"]] += 1
        sqs.delete_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(batch)]
        )
    return jobs


def _events_of(message_id: str) -> list[dict[str, Any]]:
    response = wiring.client("dynamodb").query(
        TableName=wiring.settings(Events).table,
        IndexName="by_message",
        KeyConditionExpression="message_id = :m",
        ExpressionAttributeValues={":m": {"S": message_id}},
    )
    return list(response["Items"])


def _test_emails_used(principal: Principal) -> int:
    """The month's test-send count (usage() reports live sends only)."""
    item = (
        wiring.client("dynamodb")
        .get_item(
            TableName=wiring.settings(Counters).table,
            Key=key(usage_pk(principal.account.id), f"M#{month_key(wiring.clock().now())}"),
        )
        .get("Item", {})
    )
    return int(item.get("test_emails", {}).get("N", 0))


@pytest.fixture(autouse=True)
def empty_queue(stack: InProcessStack) -> None:
    _drain_jobs()


BATCH = 3 * STORE_CHUNK + 5  # four chunks of STORE_CHUNK


def _batch_request() -> tuple[BatchSendRequest, dict[str, Any]]:
    body = {
        "from": "hello@postline.test",
        "subject": "s",
        "text": "t",
        "recipients": [{"to": f"r{i}@example.com"} for i in range(BATCH)] + [{"to": "not an address"}],
    }
    return BatchSendRequest.model_validate(body), body


@pytest.mark.parametrize("die_on_create", [1, 3, 4])
def test_a_batch_cut_off_mid_commit_and_retried_sends_each_recipient_once(
    stack: InProcessStack, die_on_create: int
) -> None:
    assert BATCH > 3 * STORE_CHUNK
    principal = _principal()
    request, body = _batch_request()
    call = IdempotentCall("batch-cut-off", body, remaining_ms=lambda: 0)  # the claim ends with the kill

    with pytest.raises(Killed):
        _service(DyingStore(sending.message_store(), die_on_create=die_on_create)).send_batch(principal, request, call)
    first_jobs = _drain_jobs()
    # The messages stored (the chunks up to the cut one; after the first, chunks are committed side
    # by side, so others may have been too) have their jobs, and only they.
    assert len(first_jobs) >= min(die_on_create * STORE_CHUNK, BATCH)
    assert set(sending.message_store().stored(list(first_jobs))) == set(first_jobs)

    result = _service(sending.message_store()).send_batch(principal, request, call)

    key = (principal.account.id, principal.env.value, "messages.batch", "batch-cut-off")
    assert result.message_ids == [keyed_id("msg_", *key, str(index)) for index in range(BATCH)]
    assert result.batch_id == keyed_id("batch_", *key)
    assert (result.accepted, result.rejected) == (BATCH, 1)
    retry_jobs = _drain_jobs()
    assert not set(first_jobs) & set(retry_jobs)  # nothing the first try stored is queued again
    assert first_jobs + retry_jobs == Counter(result.message_ids)  # every message queued exactly once
    stored = sending.message_store().stored(result.message_ids)
    assert set(stored) == set(result.message_ids)
    assert len({message.created_at for message in stored.values()}) == 1  # the retry took on the first's time
    for message_id in result.message_ids:  # the cut chunk's events mended, none twice
        assert [event["type"]["S"] for event in _events_of(message_id)] == ["queued"]
    assert _test_emails_used(principal) == BATCH  # the first try gave back what it did not store, and only that


def test_a_keyed_single_send_cut_off_after_storing_is_not_queued_again(stack: InProcessStack) -> None:
    principal = _principal()
    body = {"from": "hello@postline.test", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    request = SendRequest.model_validate(body)
    call = IdempotentCall("single-cut-off", body, remaining_ms=lambda: 0)
    with pytest.raises(Killed):
        _service(DyingStore(sending.message_store(), die_on_create=1)).send(principal, request, call)
    assert len(_drain_jobs()) == 1

    accepted = _service(sending.message_store()).send(principal, request, call)

    assert _drain_jobs() == Counter()
    assert [event["type"]["S"] for event in _events_of(accepted.id)] == ["queued"]
    assert _service(sending.message_store()).send(principal, request, call) == accepted  # a replay now


class DyingQuotas:
    """The real counters, cut off once right after a count (before the send stores anything)."""

    def __init__(self) -> None:
        self._inner = usage.counter_store()
        self.died = False

    def consume_emails(self, *args: Any, **kwargs: Any) -> str | None:
        stopped = self._inner.consume_emails(*args, **kwargs)
        if not self.died:
            self.died = True
            raise Killed
        return stopped

    def release_emails(self, *args: Any, **kwargs: Any) -> None:
        self._inner.release_emails(*args, **kwargs)


def test_a_keyed_send_cut_off_after_its_count_is_not_counted_again_by_its_retry(stack: InProcessStack) -> None:
    principal = _principal()
    body = {"from": "hello@postline.test", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    request = SendRequest.model_validate(body)
    call = IdempotentCall("count-cut-off", body, remaining_ms=lambda: 0)
    dying = _service(sending.message_store())
    dying._quotas = DyingQuotas()
    with pytest.raises(Killed):
        dying.send(principal, request, call)
    # Nothing stored, so no job: the outbox queues a message's job once it is stored.
    assert _drain_jobs() == Counter()
    assert _test_emails_used(principal) == 1

    accepted = _service(sending.message_store()).send(principal, request, call)

    assert _drain_jobs() == Counter([accepted.id])
    assert _test_emails_used(principal) == 1


def test_a_single_send_refused_by_the_quota_counts_and_stores_nothing(stack: InProcessStack) -> None:
    """Nothing stored, so no job: a refused send leaves nothing for the dispatcher."""
    principal = _principal()
    limits = email_limits(principal.account, test=True)
    assert limits.monthly is not None
    now = wiring.clock().now()
    usage.counter_store().consume_emails(
        principal.account.id, limits.monthly, month=month_key(now), day=day_key(now), limits=limits
    )
    request = SendRequest.model_validate(
        {"from": "hello@postline.test", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    )

    with pytest.raises(ApiError) as refused:
        _service(sending.message_store()).send(principal, request)

    assert (refused.value.status, refused.value.code) == (429, "rate_limit_exceeded")
    assert _test_emails_used(principal) == limits.monthly
    assert _drain_jobs() == Counter()


class FailingQueue:
    """The real send queue, whose enqueue fails as SQS would."""

    def enqueue(self, *args: Any, **kwargs: Any) -> None:
        raise ClientError({"Error": {"Code": "InternalError", "Message": "down"}}, "SendMessageBatch")

    def unschedule(self, message_id: str) -> None:
        sending.dispatch_queue().unschedule(message_id)


def test_a_single_send_going_out_now_needs_no_queue_its_job_is_the_outboxs(stack: InProcessStack) -> None:
    principal = _principal()
    body = {"from": "hello@postline.test", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    request = SendRequest.model_validate(body)
    service = _service(sending.message_store())
    service._queue = FailingQueue()  # never called: the send's path holds no SQS call

    accepted = service.send(principal, request, IdempotentCall("queue-down", body, remaining_ms=lambda: 0))

    assert _test_emails_used(principal) == 1
    assert set(sending.message_store().stored([accepted.id])) == {accepted.id}
    assert _drain_jobs() == Counter([accepted.id])


def test_keyed_ids_differ_by_environment_and_unkeyed_sends_stay_random(stack: InProcessStack) -> None:
    test = _principal(Environment.TEST)
    live = _principal(Environment.LIVE, account_id=test.account.id)
    body = {"from": "hello@postline.test", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    request = SendRequest.model_validate(body)
    service = _service(sending.message_store())
    keyed = service.send(test, request, IdempotentCall("k", body)).id
    assert keyed == keyed_id("msg_", test.account.id, "test", "messages", "k", "0")
    assert keyed_id("msg_", live.account.id, "live", "messages", "k", "0") != keyed
    assert service.send(test, request).id != keyed
