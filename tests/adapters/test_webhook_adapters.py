"""Webhook adapters against moto: signing keys, the deliveries table, and the retry workflow's
definition run by the embedded runtime's Step Functions runner on a movable clock."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from nacl.signing import VerifyKey

from devtools.local.activity import Activity
from devtools.local.workflows import Workflows
from postline.shared.dynamo import key, to_attrs
from postline.shared.ids import RandomIds
from postline.signing_keys.domain import PUBLISHED_AFTER_REPLACEMENT, ROTATE_EVERY
from postline.signing_keys.service import SigningKeyService
from postline.signing_keys.store import DynamoSigningKeys
from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery, DeliveryStatus
from postline.webhook_delivery.history import sort_key
from postline.webhook_delivery.store import DynamoDeliveryStore, endpoint_key
from postline.webhook_delivery.workflow import StepFunctionsRetry
from tests.aws_stack import InProcessStack, in_process_stack

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.moment = now

    def now(self) -> datetime:
        return self.moment


def _signing_keys(stack: InProcessStack, clock: _Clock) -> SigningKeyService:
    store = DynamoSigningKeys(stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"),
                              stack.env["CONTENT_KEY_ID"])  # fmt: skip
    return SigningKeyService(store, RandomIds(), clock)


def test_signing_keys_mint_once_sign_verify_and_rotate_with_grace(stack: InProcessStack) -> None:
    clock = _Clock(T0)
    service = _signing_keys(stack, clock)
    kid, signature = service.sign(b"1.{}", T0)
    other = _signing_keys(stack, clock)
    assert other.sign(b"1.{}", T0)[0] == kid  # a second container uses the same key, mints none
    (published,) = service.published()
    x = published.jwk()["x"]
    VerifyKey(base64.urlsafe_b64decode(x + "=" * (-len(x) % 4))).verify(b"1.{}", signature)
    item = stack.client("dynamodb").get_item(
        TableName=stack.env["RESOURCES_TABLE"], Key={"pk": {"S": "PLATFORM"}, "sk": {"S": f"SIGNKEY#{kid}"}}
    )["Item"]
    assert "private_key" in item and len(base64.b64decode(item["private_key"]["S"])) > 32  # KMS ciphertext

    clock.moment = T0 + timedelta(days=1)
    assert service.rotate() is None  # not due
    clock.moment = later = T0 + ROTATE_EVERY
    new_kid = service.rotate()
    assert new_kid and new_kid != kid
    assert service.sign(b"x", later)[0] == new_kid
    assert [key.kid for key in service.published()] == [new_kid, kid]  # old one still published
    clock.moment = later + PUBLISHED_AFTER_REPLACEMENT
    service.rotate()
    assert [key.kid for key in service.published()] == [new_kid]


def test_a_rotation_raced_by_another_container_mints_one_key(stack: InProcessStack) -> None:
    store = DynamoSigningKeys(stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"),
                              stack.env["CONTENT_KEY_ID"])  # fmt: skip
    current = store.keys()
    replacing = max(current, key=lambda key: key.created_at) if current else None
    moment = T0 + timedelta(days=400)
    assert store.mint("ed25519-race-a", moment, replacing=replacing) is True
    assert store.mint("ed25519-race-b", moment, replacing=replacing) is False  # the pointer moved on
    assert "ed25519-race-b" not in [key.kid for key in store.keys()]  # noqa: SIM118 (a store, not a dict)


def delivery(delivery_id: str, created: datetime) -> Delivery:
    return Delivery(
        id=delivery_id,
        account_id="acct_w",
        endpoint_id="wh_1",
        url="https://hooks.example/in",
        event_id=f"evt_{delivery_id}",
        event_type="delivered",
        message_id="msg_1",
        body='{"event":"delivered"}',
        created_at=created,
        expires_at=int((created + timedelta(days=30)).timestamp()),
    )


def test_deliveries_are_created_once_and_attempts_recorded_once(stack: InProcessStack) -> None:
    store = DynamoDeliveryStore(stack.client("dynamodb"), stack.env["WEBHOOK_DELIVERIES_TABLE"])
    first = delivery("whd_a", T0)
    assert store.create(first) is True
    assert store.create(first) is False
    attempt = Attempt(number=1, at=T0, result=AttemptResult.RETRYABLE, status_code=503, latency_ms=12)
    after = first.after(attempt)
    assert store.save(after, attempts_before=0) is True
    assert store.save(after, attempts_before=0) is False  # a racing worker recorded attempt 1 already
    stored = store.get("whd_a")
    assert stored is not None and stored.status is DeliveryStatus.RETRYING and stored.attempts == [attempt]


def test_deliveries_of_an_endpoint_list_newest_first_across_months(stack: InProcessStack) -> None:
    store = DynamoDeliveryStore(stack.client("dynamodb"), stack.env["WEBHOOK_DELIVERIES_TABLE"])
    made = [delivery(f"whd_m{i}", T0 - timedelta(days=10 * i)) for i in range(6)]
    for item in made:
        store.create(item)
        store.save(item, attempts_before=0)  # listed from its first recorded attempt (or cancellation) on
    months = sorted({f"{item.created_at:%Y-%m}" for item in made}, reverse=True)
    listed = list(store.for_endpoint("acct_w", "wh_1", months, since=T0 - timedelta(days=45), until=T0))
    assert [item.id for item in listed if item.id.startswith("whd_m")] == ["whd_m0", "whd_m1", "whd_m2", "whd_m3",
                                                                            "whd_m4"]  # fmt: skip


def test_a_delivery_stores_nothing_its_keys_hold_and_one_written_before_reads_the_same(
    stack: InProcessStack,
) -> None:
    """The id, account, endpoint and creation time live in the keys (one write unit a write, not
    two); an item of the older shape (those attributes, attempt_count) reads and records the same."""
    db, table = stack.client("dynamodb"), stack.env["WEBHOOK_DELIVERIES_TABLE"]
    store = DynamoDeliveryStore(db, table)
    new = delivery("whd_shape_new", T0)
    url_only = delivery("whd_shape_url", T0).model_copy(update={"endpoint_id": None})
    for made in (new, url_only):
        assert store.create(made) is True
        stored = db.get_item(TableName=table, Key=key(f"WHD#{made.id}", "D"))["Item"]
        assert not {"id", "account_id", "endpoint_id", "created_at", "manual", "attempt_count"} & set(stored)
        assert store.get(made.id) == made
        assert store.save(made, attempts_before=0) is True  # indexed now: the history lists it
        assert store.get(made.id) == made
    resent = new.resent("whd_shape_resent", new.target, T0, new.expires_at)
    assert store.create(resent) is True and store.get(resent.id) == resent  # `manual` kept when true

    old = delivery("whd_shape_old", T0)
    item = {
        **key(f"WHD#{old.id}", "D"),
        **to_attrs(old.model_dump(mode="json")),
        "attempt_count": {"N": "0"},
        "endpoint_key": {"S": endpoint_key(old.account_id, old.endpoint_id, f"{T0:%Y-%m}")},
        "created_sk": {"S": sort_key(T0, old.id)},
    }
    db.put_item(TableName=table, Item=item)
    assert store.get(old.id) == old
    listed = {d.id: d for d in store.for_endpoint("acct_w", "wh_1", [f"{T0:%Y-%m}"], since=T0, until=T0)}
    assert (listed["whd_shape_new"], listed["whd_shape_old"]) == (new, old)  # the index reads both shapes
    attempt = Attempt(number=1, at=T0, result=AttemptResult.SUCCEEDED, status_code=200, latency_ms=9)
    assert store.save(old.after(attempt), attempts_before=1) is False  # the condition reads the old shape
    assert store.save(old.after(attempt), attempts_before=0) is True
    assert store.get(old.id) == old.after(attempt)


class RecordingAttempt:
    """Stands in for the attempt function: answers the schedule the way the real one does."""

    def __init__(self, arn: str, answers: list[dict[str, Any]]) -> None:
        self.arn = arn
        self.calls: list[dict[str, Any]] = []
        self._answers = answers

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(event)
        answer = self._answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return {"delivery_id": event["delivery_id"], **answer}


def test_the_retry_definition_waits_on_the_movable_clock_and_loops_until_done(stack: InProcessStack) -> None:
    sfn = stack.client("stepfunctions")
    machine = next(m["stateMachineArn"] for m in sfn.list_state_machines()["stateMachines"]
                   if m["name"].endswith("WebhookRetryStateMachine"))  # fmt: skip
    definition = json.loads(sfn.describe_state_machine(stateMachineArn=machine)["definition"])
    arn = definition["States"]["Attempt"]["Parameters"]["FunctionName"]
    second = T0 + timedelta(minutes=2)
    attempt = RecordingAttempt(
        arn,
        [
            {"done": False, "next_attempt_at": second.strftime("%Y-%m-%dT%H:%M:%S.%fZ")},
            RuntimeError("a crashed attempt is retried by the task's Retry rule"),
            {"done": True, "next_attempt_at": None},
        ],
    )
    runner = Workflows(stack, [machine], [attempt], Activity())  # type: ignore[arg-type, list-item]
    StepFunctionsRetry(sfn, lambda: machine).start("whd_flow", T0 + timedelta(seconds=30))
    StepFunctionsRetry(sfn, lambda: machine).start("whd_flow", T0 + timedelta(seconds=30))  # idempotent
    runner.fire_due(T0)
    assert attempt.calls == []  # waiting for +30 s
    runner.fire_due(T0 + timedelta(seconds=30))
    assert attempt.calls == [{"delivery_id": "whd_flow"}]
    runner.fire_due(T0 + timedelta(seconds=90))
    assert len(attempt.calls) == 1  # the second attempt is due at +2 min
    runner.fire_due(second)  # fails, then waits out the Retry interval (30 s)
    assert len(attempt.calls) == 2
    runner.fire_due(second + timedelta(seconds=29))
    assert len(attempt.calls) == 2
    runner.fire_due(second + timedelta(seconds=30))
    assert len(attempt.calls) == 3
    (execution,) = sfn.list_executions(stateMachineArn=machine)["executions"]
    assert execution["name"] == "whd_flow" and execution["status"] != "RUNNING"
    runner.fire_due(second + timedelta(days=1))
    assert len(attempt.calls) == 3  # an ended execution is not picked up again
