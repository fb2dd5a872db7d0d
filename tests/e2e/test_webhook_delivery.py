"""Webhook delivery end to end on the embedded runtime, to real HTTP receivers on 127.0.0.1.

Signatures are checked by verifiers nobody here wrote: Stripe's SDK for the `t=,v1=` HMAC
header, the official Standard Webhooks libraries (Python and JavaScript) for `webhook-signature`,
PyNaCl for Ed25519 with the key served at /.well-known/svc/keys. The retry schedule is walked on
the runtime's movable clock.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import stripe
from nacl.signing import VerifyKey

from devtools.local.runtime import Runtime
from tests.e2e.support import Api, TestAccount, make_account
from tests.e2e.webhook_support import SLACK_SECONDS
from tests.peers.standard_webhooks import verify_javascript, verify_python, verify_v1a
from tests.peers.webhook_receiver import Received, Receiver

pytestmark = pytest.mark.e2e
SCHEDULE = [30, 120, 600, 3600, 6 * 3600, 12 * 3600]  # seconds after the previous attempt


@pytest.fixture
def account() -> TestAccount:
    return make_account()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


def endpoint(api: Api, url: str, events: list[str], auth: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"url": url, "events": events}
    if auth is not None:
        body["auth"] = auth
    response = api.post("/v3/webhooks", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def send(api: Api, **fields: Any) -> str:
    body = {"from": "hello@example.com", "to": ["delivered@simulator.postline.dev"], "subject": "Hi", "text": "x"}
    response = api.post("/v3/messages", json={**body, **fields})
    assert response.status_code == 202, response.text
    message_id: str = response.json()["id"]
    return message_id


def public_key(runtime: Runtime, kid: str) -> bytes:
    keys = requests.get(f"{runtime.base_url}/.well-known/svc/keys", timeout=5).json()["keys"]
    (jwk,) = [key for key in keys if key["kid"] == kid]
    return base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))


def ed25519_valid(runtime: Runtime, request: Received) -> bool:
    """Both Ed25519 signatures: the interface's header and Standard Webhooks' `v1a`, by the key its kid names."""
    parts = dict(part.split("=", 1) for part in request.headers["Svc-Signature-Ed25519"].split(","))
    key = public_key(runtime, parts["kid"])
    VerifyKey(key).verify(f"{parts['t']}.".encode() + request.body, base64.b64decode(parts["v1"]))
    verify_v1a(request.body, request.headers, key)
    return True


def test_an_event_reaches_its_endpoint_signed_both_ways(
    runtime: Runtime, account: TestAccount, receiver: Receiver
) -> None:
    api = Api(runtime.base_url, account.test_key)
    created = endpoint(api, receiver.url, ["delivered"], {"hmac": {}})
    message_id = send(api, tags=["welcome"], headers={"X-Order": "42"}, metadata={"user": "u1"})
    runtime.drain(30)
    (request,) = receiver.wait_for(1)
    payload = json.loads(request.body)
    assert payload == {
        "event": "delivered",
        "message_id": message_id,
        "recipient": "delivered@simulator.postline.dev",
        "timestamp": payload["timestamp"],
        "tags": ["welcome"],
        "headers": {"X-Order": "42"},
        "variables": {"user": "u1"},
        "data": payload["data"],
    }
    assert payload["data"]["test"] is True
    assert request.headers["X-Webhook-Attempt"] == "1"
    secret = created["secret"]
    assert stripe.WebhookSignature.verify_header(request.body.decode(), request.headers["X-Svc-Signature"], secret)
    assert request.headers["X-Svc-Key-Id"] == "whsec_" + secret[-4:]
    assert request.headers["X-Svc-Timestamp"] == request.headers["X-Svc-Signature"].split(",")[0][2:]
    assert ed25519_valid(runtime, request)
    assert verify_python(secret, request.body, request.headers, runtime.clock.now()) == payload
    assert verify_javascript(secret, request.body, request.headers, runtime.clock.now()) == payload
    assert request.headers["webhook-id"] == request.headers["X-Webhook-Delivery-Id"]


def test_a_tagged_send_delivers_each_event_once(runtime: Runtime, account: TestAccount, receiver: Receiver) -> None:
    """Each event's tag items land on the events table's stream too; only the event may reach the fan-out."""
    api = Api(runtime.base_url, account.test_key)
    endpoint(api, receiver.url, ["queued", "sent", "delivered"])
    message_id = send(api, tags=["welcome", "weekly", "a" * 128])
    runtime.drain(30)
    stored = api.get("/v3/events", params={"message_id": message_id}).json()["items"]
    assert sorted(event["type"] for event in stored) == ["delivered", "queued", "sent"]
    received = receiver.wait_for(len(stored))
    runtime.drain(30)
    assert sorted(json.loads(request.body)["event"] for request in receiver.requests) == ["delivered", "queued", "sent"]
    assert len(received) == len(receiver.requests) == 3


def test_a_failing_receiver_gets_seven_attempts_at_the_schedule(runtime: Runtime, account: TestAccount) -> None:
    with Receiver(answers=[503]) as failing:
        api = Api(runtime.base_url, account.test_key)
        endpoint(api, failing.url, ["delivered"])
        send(api)
        runtime.drain(30)
        assert len(failing.wait_for(1)) == 1
        for number, wait in enumerate(SCHEDULE, start=2):
            runtime.advance(wait - SLACK_SECONDS)
            runtime.drain(30)
            assert len(failing.requests) == number - 1, f"attempt {number} came early"
            runtime.advance(SLACK_SECONDS)
            runtime.drain(30)
            assert len(failing.wait_for(number)) == number, f"attempt {number} did not come"
        runtime.advance(48 * 3600)
        runtime.drain(30)
        assert [r.headers["X-Webhook-Attempt"] for r in failing.requests] == [str(n) for n in range(1, 8)]
        # One delivery, one webhook-id: a receiver that answered late drops the retries as duplicates.
        assert len({r.headers["webhook-id"] for r in failing.requests}) == 1
        assert len({r.headers["webhook-timestamp"] for r in failing.requests}) == 7


@pytest.mark.parametrize(("answer", "attempts"), [(400, 1), (410, 1), (429, 2)])
def test_a_4xx_stops_the_schedule_but_429_retries(
    runtime: Runtime, account: TestAccount, answer: int, attempts: int
) -> None:
    with Receiver(answers=[answer, 200]) as receiver:
        api = Api(runtime.base_url, account.test_key)
        endpoint(api, receiver.url, ["delivered"])
        send(api)
        runtime.drain(30)
        runtime.advance(30)
        runtime.drain(30)
        runtime.advance(3600)
        runtime.drain(30)
        assert len(receiver.wait_for(attempts, timeout=2)) == attempts


def test_a_per_message_webhook_is_signed_with_ed25519_only(
    runtime: Runtime, account: TestAccount, receiver: Receiver
) -> None:
    api = Api(runtime.base_url, account.test_key)
    message_id = send(api, webhook_url=receiver.url)
    runtime.drain(30)
    requests_ = receiver.wait_for(3)
    assert {json.loads(r.body)["event"] for r in requests_} >= {"queued", "sent", "delivered"}
    assert all(json.loads(r.body)["message_id"] == message_id for r in requests_)
    for request in requests_:
        assert "X-Svc-Signature" not in request.headers and "X-Svc-Key-Id" not in request.headers
        assert ed25519_valid(runtime, request)


def test_a_retry_goes_to_the_endpoints_current_url_with_its_current_auth(
    runtime: Runtime, account: TestAccount
) -> None:
    """An endpoint moved between attempts: its credentials go to the new URL only, never the old host."""
    with Receiver(answers=[503]) as old, Receiver() as new:
        api = Api(runtime.base_url, account.test_key)
        created = endpoint(api, old.url, ["delivered"], {"bearer": {"token": "t0ken"}})
        send(api)
        runtime.drain(30)
        assert len(old.wait_for(1)) == 1
        moved = api.put(f"/v3/webhooks/{created['id']}", json={"url": new.url})
        assert moved.status_code == 200, moved.text
        runtime.advance(SCHEDULE[0])
        runtime.drain(30)
        (retry,) = new.wait_for(1)
        assert (retry.headers["X-Webhook-Attempt"], retry.headers["Authorization"]) == ("2", "Bearer t0ken")
        assert len(old.requests) == 1
        (delivery,) = api.get(f"/v3/webhooks/{created['id']}/deliveries").json()["deliveries"]
        assert delivery["url"] == new.url and delivery["status"] == "succeeded"
