"""The delivery history and resend sample events through their Lambda handlers, and the resend
worker on the messages they queue (the receiver's host does not resolve here, see conftest.py's
ZONE: the attempt fails)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, audit_entry
from postline.config import ResendQueue, WebhookDeliveries
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery, DeliveryStatus, resend_delivery_id
from postline.webhook_delivery.history import DeliveryFilters
from postline.webhook_delivery.history_service import DeliveryHistoryService
from postline.webhook_delivery.store import DynamoDeliveryStore
from postline.webhook_resend.domain import ResendJob, ResendStatus
from postline.webhook_resend.models import ResendRequest
from postline.webhook_resend.service import GAVE_UP, MAX_ATTEMPT_RECEIVES, NOT_QUEUED, WebhookResendService
from postline.webhook_resend.store import SqsResendQueue
from postline.webhooks.domain import WebhookEndpoint
from postline.wiring import accounts, keys, shared, webhook_delivery, webhook_resend, webhooks
from postline.wiring import audit as audit_root
from tests.aws_stack import InProcessStack
from tests.handlers.conftest import Invoke, body


def _recorded(delivery: Delivery) -> bool:
    """Stores a delivery with its attempts as the service does: opened (outside by_endpoint), then
    its attempts recorded (in the index, where the history and a resend's filter read it)."""
    store = webhook_delivery.webhook_deliveries()
    return store.create(delivery.model_copy(update={"attempts": [], "status": DeliveryStatus.PENDING})) and store.save(
        delivery, attempts_before=0
    )


@pytest.fixture
def endpoint(dev: dict[str, str]) -> WebhookEndpoint:
    now = datetime.now(UTC)
    created = WebhookEndpoint(
        id=f"wh_{uuid.uuid4().hex[:24]}",
        account_id=dev["account_id"],
        url="https://hooks.invalid/in",
        created_at=now,
        updated_at=now,
    )
    entry = audit_entry(
        entry_id=str(uuid.uuid4()), account_id=dev["account_id"], actor=Actor.system(), action="webhook.created",
        target=created.id, now=now,
    )  # fmt: skip
    webhooks.webhook_endpoints().create_endpoint(created, max_endpoints=1000, audit=entry)
    return created


@pytest.fixture
def failed(endpoint: WebhookEndpoint) -> Delivery:
    now = datetime.now(UTC) - timedelta(minutes=5)
    delivery = Delivery(
        id=f"whd_{uuid.uuid4().hex}",
        account_id=endpoint.account_id,
        endpoint_id=endpoint.id,
        url=endpoint.url,
        event_id="evt_1",
        event_type="bounced",
        message_id="msg_1",
        body='{"event":"bounced"}',
        created_at=now,
        expires_at=int((now + timedelta(days=365)).timestamp()),
    ).after(Attempt(number=1, at=now, result=AttemptResult.REFUSED, status_code=410, latency_ms=12))
    assert _recorded(delivery)
    return delivery


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("list_webhook_deliveries", 404, "not_found"),
        ("resend_webhook_deliveries_two_modes", 400, "validation_error"),
        ("resend_webhook_deliveries", 404, "not_found"),
        ("get_webhook_resend", 404, "not_found"),
    ],
)
def test_failures_have_their_codes(invoke: Invoke, name: str, status: int, code: str) -> None:
    response = invoke(name, webhook_id="wh_missing", delivery_id="whd_" + "0" * 32, resend_id="rsd_missing")
    assert (response["statusCode"], body(response)["error"]["code"]) == (status, code), response["body"]


def test_a_foreign_cursor_is_a_400(invoke: Invoke, endpoint: WebhookEndpoint) -> None:
    response = invoke("list_webhook_deliveries_bad_cursor", webhook_id=endpoint.id)
    assert (response["statusCode"], body(response)["error"]["code"]) == (400, "validation_error")


def _drain(stack: InProcessStack) -> int:
    """Feeds the resend queue to the worker function until it is empty; returns the messages run."""
    sqs, url = stack.client("sqs"), stack.env["RESEND_QUEUE_URL"]
    handled = 0
    while messages := sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
    ).get("Messages", []):
        records: list[dict[str, Any]] = [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes", {}),
                "messageAttributes": {},
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:resend",
                "awsRegion": "us-east-1",
            }
            for m in messages
        ]
        response = stack.functions["WebhookResendFunction"].invoke({"Records": records})
        assert response == {"batchItemFailures": []}
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        handled += len(messages)
    return handled


def test_resend_by_id_lists_and_runs_through_the_worker(
    invoke: Invoke, stack: InProcessStack, endpoint: WebhookEndpoint, failed: Delivery
) -> None:
    listed = body(invoke("list_webhook_deliveries", webhook_id=endpoint.id))
    assert [d["id"] for d in listed["deliveries"]] == [failed.id] and listed["has_more"] is False
    assert listed["deliveries"][0]["attempts"][0]["response_code"] == 410

    accepted = invoke("resend_webhook_deliveries", delivery_id=failed.id)
    assert accepted["statusCode"] == 202, accepted["body"]
    job = body(accepted)
    assert (job["status"], job["mode"], job["endpoint_id"]) == ("queued", "delivery_ids", None)
    assert body(invoke("list_audit"))["items"][0]["action"] == "webhook.deliveries_resent"

    assert _drain(stack) == 2  # the job's message, then the one attempt it queued
    done = body(invoke("get_webhook_resend", resend_id=job["id"]))
    assert (done["status"], done["matched"], done["attempted"], done["failed"]) == ("completed", 1, 1, 1)

    history = body(invoke("list_webhook_deliveries", webhook_id=endpoint.id))["deliveries"]
    resend = history[0]
    assert (resend["manual"], resend["resent_from"], resend["status"]) == (True, failed.id, "failed")
    assert [a["number"] for a in resend["attempts"]] == [1] and resend["attempts"][0]["error"]


def test_resend_by_filter_to_a_destination(
    invoke: Invoke, stack: InProcessStack, endpoint: WebhookEndpoint, failed: Delivery
) -> None:
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    accepted = invoke("resend_webhook_deliveries_by_filter", webhook_id=endpoint.id, since=since)
    assert accepted["statusCode"] == 202, accepted["body"]
    job = body(accepted)
    assert (job["mode"], job["endpoint_id"]) == ("filter", endpoint.id)
    _drain(stack)
    done = body(invoke("get_webhook_resend", resend_id=job["id"]))
    assert (done["status"], done["matched"], done["attempted"]) == ("completed", 1, 1)


def _messages(stack: InProcessStack) -> list[dict[str, Any]]:
    """Everything on the resend queue, left there (received, then made visible again)."""
    sqs, url = stack.client("sqs"), stack.env["RESEND_QUEUE_URL"]
    found: list[dict[str, Any]] = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=30).get("Messages", []):
        found += batch
    for message in found:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0)
    return found


def test_redelivered_messages_create_attempt_and_count_nothing_twice(
    invoke: Invoke, stack: InProcessStack, failed: Delivery
) -> None:
    job = body(invoke("resend_webhook_deliveries", delivery_id=failed.id))
    (job_message,) = _messages(stack)
    service = webhook_resend.webhook_resend_service()
    service.run(failed.account_id, job["id"], receive_count=1)  # the job message, delivered twice
    # the job message again (it queues the attempt again) and the two attempt messages
    assert _drain(stack) == 3
    service.attempt(failed.account_id, job["id"], resend_delivery_id(job["id"], failed.id), receive_count=1)  # again
    done = body(invoke("get_webhook_resend", resend_id=job["id"]))
    assert (done["status"], done["matched"], done["attempted"], done["failed"]) == ("completed", 1, 1, 1)
    resent = webhook_delivery.webhook_deliveries().get(resend_delivery_id(job["id"], failed.id))
    assert resent is not None and len(resent.attempts) == 1
    assert job["id"] in job_message["Body"]


def test_a_redelivered_filter_job_resends_only_what_it_first_selected(
    invoke: Invoke, stack: InProcessStack, endpoint: WebhookEndpoint, failed: Delivery
) -> None:
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    job = body(invoke("resend_webhook_deliveries_by_filter", webhook_id=endpoint.id, since=since))
    _messages(stack)  # the job's message stays queued: it runs by hand first, then again from the queue
    service = webhook_resend.webhook_resend_service()
    service.run(endpoint.account_id, job["id"], receive_count=1)
    later = failed.model_copy(update={"id": f"whd_{uuid.uuid4().hex}", "event_id": "evt_failed_since"})
    assert _recorded(later)  # it matches the filter now, not at selection
    _drain(stack)
    done = body(invoke("get_webhook_resend", resend_id=job["id"]))
    assert (done["status"], done["matched"], done["attempted"]) == ("completed", 1, 1)
    assert webhook_delivery.webhook_deliveries().get(resend_delivery_id(job["id"], later.id)) is None


def _service(max_matches: int, queue: Any = None) -> WebhookResendService:
    return WebhookResendService(
        jobs=webhook_resend.resend_jobs(),
        queue=queue or SqsResendQueue(wiring.client("sqs"), wiring.settings(ResendQueue).url),
        deliveries=webhook_delivery.webhook_deliveries(),
        endpoints=webhooks.webhook_endpoints(),
        audit=audit_root.audit_store(),
        ids=shared.ids(),
        retention_days=accounts.retention_days,
        resend_attempt=webhook_delivery.webhook_deliverer().resend_attempt,
        clock=wiring.clock(),
        max_matches=max_matches,
    )


def test_a_filter_past_the_cap_or_a_message_that_keeps_dying_stops_the_job(
    invoke: Invoke, stack: InProcessStack, endpoint: WebhookEndpoint, failed: Delivery
) -> None:
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    for extra in range(2):  # three failed deliveries in all
        twin = failed.model_copy(update={"id": f"whd_{uuid.uuid4().hex}", "event_id": f"evt_{extra}"})
        assert _recorded(twin)
    capped = body(invoke("resend_webhook_deliveries_by_filter", webhook_id=endpoint.id, since=since))
    _messages(stack)  # leaves the queue as it is: the job message is run by hand below
    _service(max_matches=2).run(endpoint.account_id, capped["id"], receive_count=1)
    stopped = body(invoke("get_webhook_resend", resend_id=capped["id"]))
    assert (stopped["status"], stopped["matched"], stopped["attempted"]) == ("completed", 0, 0)
    assert "more than 2 deliveries" in stopped["error_message"]

    dying = body(invoke("resend_webhook_deliveries_by_filter", webhook_id=endpoint.id, since=since))
    _service(max_matches=10).run(endpoint.account_id, dying["id"], receive_count=4)
    gave_up = body(invoke("get_webhook_resend", resend_id=dying["id"]))
    assert (gave_up["status"], gave_up["error_message"]) == ("completed", GAVE_UP)
    assert _drain(stack) == 2  # the two job messages find their jobs over: nothing is attempted
    history = body(invoke("list_webhook_deliveries", webhook_id=endpoint.id))["deliveries"]
    assert not any(d["manual"] for d in history)


def test_an_attempt_message_that_keeps_dying_is_counted_failed_without_an_attempt(
    invoke: Invoke, stack: InProcessStack, failed: Delivery
) -> None:
    job = body(invoke("resend_webhook_deliveries", delivery_id=failed.id))
    _messages(stack)  # the job's message stays queued; its attempt is made by hand below
    service = webhook_resend.webhook_resend_service()
    service.run(failed.account_id, job["id"], receive_count=1)
    resend_id = resend_delivery_id(job["id"], failed.id)
    service.attempt(failed.account_id, job["id"], resend_id, receive_count=MAX_ATTEMPT_RECEIVES + 1)
    done = body(invoke("get_webhook_resend", resend_id=job["id"]))
    assert (done["status"], done["matched"], done["attempted"], done["failed"]) == ("completed", 1, 1, 1)
    resent = webhook_delivery.webhook_deliveries().get(resend_id)
    assert resent is not None and resent.attempts == []
    assert _drain(stack) == 2  # the job message, and the attempt message it queued: the job is over
    resent = webhook_delivery.webhook_deliveries().get(resend_id)
    assert resent is not None and resent.attempts == []


class _CountingQueries:
    """The DynamoDB client, counting Query calls and the Limit of each."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.limits: list[int] = []

    def query(self, **request: Any) -> Any:
        self.limits.append(request["Limit"])
        return self._client.query(**request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_a_filtered_history_page_stops_at_its_budget_and_continues_where_it_read_to(
    stack: InProcessStack, endpoint: WebhookEndpoint, failed: Delivery
) -> None:
    """Rare matches among many deliveries over two months: a zero budget gives one Query a page
    (200 items, as filtered), short or empty pages with has_more, and cursors that still find them all."""
    now = failed.created_at
    rare = {0, 230, 389}  # the failed ones, besides `failed` itself (newer than all of these)
    for n in range(390):  # one every 3 hours: 48 days, so two or three month partitions
        created = now - timedelta(hours=3 * n + 1)
        attempt = Attempt(number=1, at=created, result=AttemptResult.REFUSED if n in rare else AttemptResult.SUCCEEDED,
                          status_code=410 if n in rare else 200, latency_ms=5)  # fmt: skip
        twin = failed.model_copy(update={"id": f"whd_{uuid.uuid4().hex}", "created_at": created, "attempts": []})
        assert _recorded(twin.after(attempt))
    expected = [d.id for d in _listed(endpoint, DeliveryStatus.FAILED, budget=60)]
    assert len(expected) == 4 and expected[0] == failed.id

    db = _CountingQueries(wiring.client("dynamodb"))
    pages = _listed_pages(endpoint, DeliveryStatus.FAILED, budget=0, db=db)
    assert [d.id for page in pages for d in page] == expected
    assert len(pages) == len(db.limits) > 2 and set(db.limits) == {200}  # a Query a page, 200 at a time
    assert any(not page for page in pages[:-1])  # empty pages say has_more and carry the cursor on

    db = _CountingQueries(wiring.client("dynamodb"))
    unfiltered = _listed_pages(endpoint, None, budget=0, db=db)
    # without a filter: the page, one more to tell has_more, and the position itself (read again)
    assert set(db.limits) == {12} and sum(map(len, unfiltered)) == 391


def _history(endpoint: WebhookEndpoint, budget: float, db: Any) -> tuple[DeliveryHistoryService, Principal]:
    deliveries = DynamoDeliveryStore(db, wiring.settings(WebhookDeliveries).table)
    service = DeliveryHistoryService(
        deliveries=deliveries, endpoints=webhooks.webhook_endpoints(), hasher=keys.hasher(), clock=wiring.clock(),
        budget_seconds=budget,
    )  # fmt: skip
    account = Account(id=endpoint.account_id, plan=Plan.PROFESSIONAL, created_at=endpoint.created_at)
    return service, Principal(account=account, scope=Scope.READ_ONLY, env=Environment.LIVE)


def _listed_pages(
    endpoint: WebhookEndpoint, status: DeliveryStatus | None, *, budget: float, db: Any
) -> list[list[Any]]:
    service, principal = _history(endpoint, budget, db)
    pages, cursor = [], None
    for _ in range(100):
        page = service.list_page(principal, endpoint.id, DeliveryFilters(status=status), limit=10, cursor=cursor)
        pages.append(page.deliveries)
        if not page.has_more:
            return pages
        cursor = page.next_cursor
    raise AssertionError("the cursors did not reach the end")


def _listed(endpoint: WebhookEndpoint, status: DeliveryStatus, *, budget: float) -> list[Any]:
    return [d for page in _listed_pages(endpoint, status, budget=budget, db=wiring.client("dynamodb")) for d in page]


def test_a_job_that_cannot_be_queued_is_stopped_not_left_queued(endpoint: WebhookEndpoint, failed: Delivery) -> None:
    class Down:
        job: ResendJob | None = None

        def enqueue_job(self, job: ResendJob) -> None:
            self.job = job
            raise RuntimeError("SQS is down")

    down = Down()
    principal = _history(endpoint, 0, wiring.client("dynamodb"))[1]
    with pytest.raises(RuntimeError, match="SQS is down"):
        _service(max_matches=10, queue=down).start(principal, ResendRequest(delivery_ids=[failed.id]))
    assert down.job is not None
    stopped = webhook_resend.resend_jobs().get(failed.account_id, down.job.id)
    assert stopped is not None and (stopped.status, stopped.error_message) == (ResendStatus.COMPLETED, NOT_QUEUED)
