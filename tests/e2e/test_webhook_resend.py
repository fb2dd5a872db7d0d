"""Webhook delivery history and resends end to end on the embedded runtime, to real HTTP receivers.

A receiver that refuses (400) fails a delivery at once; the resend then goes to a healthy one.
Signatures are checked by verifiers nobody here wrote (Stripe's SDK for HMAC, PyNaCl for Ed25519),
and the movable clock shows that a resend is never retried.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
import requests
import stripe
from nacl.signing import VerifyKey

from devtools.local.runtime import Runtime
from postline import wiring
from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery
from postline.wiring import webhook_delivery, webhooks
from tests.e2e.support import Api, TestAccount, assert_error, make_account
from tests.peers.webhook_receiver import Received, Receiver

pytestmark = pytest.mark.e2e
RESEND = "/v3/webhooks/deliveries/resend"


@pytest.fixture
def account() -> TestAccount:
    return make_account()


@pytest.fixture
def api(runtime: Runtime, account: TestAccount) -> Api:
    return Api(runtime.base_url, account.test_key)


def create_endpoint(api: Api, url: str, events: list[str] | None = None) -> dict[str, Any]:
    response = api.post("/v3/webhooks", json={"url": url, "events": events or ["delivered"], "auth": {"hmac": {}}})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def send(api: Api) -> str:
    body = {"from": "hello@example.com", "to": ["delivered@simulator.postline.dev"], "subject": "Hi", "text": "x"}
    response = api.post("/v3/messages", json=body)
    assert response.status_code == 202, response.text
    message_id: str = response.json()["id"]
    return message_id


def deliveries(api: Api, endpoint_id: str, **params: Any) -> list[dict[str, Any]]:
    response = api.get(f"/v3/webhooks/{endpoint_id}/deliveries", params=params)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["deliveries"]
    return found


def resend(runtime: Runtime, api: Api, body: dict[str, Any]) -> dict[str, Any]:
    """Starts a resend, lets it run, returns the job as GET shows it."""
    response = api.post(RESEND, json=body)
    assert response.status_code == 202, response.text
    job = response.json()
    assert job["status"] == "queued"
    assert runtime.drain(30) == []
    done = api.get(f"{RESEND}/{job['id']}")
    assert done.status_code == 200, done.text
    result: dict[str, Any] = done.json()
    return result


def ed25519_valid(runtime: Runtime, request: Received) -> bool:
    parts = dict(part.split("=", 1) for part in request.headers["Svc-Signature-Ed25519"].split(","))
    keys = requests.get(f"{runtime.base_url}/.well-known/svc/keys", timeout=5).json()["keys"]
    (jwk,) = [key for key in keys if key["kid"] == parts["kid"]]
    raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    VerifyKey(raw).verify(f"{parts['t']}.".encode() + request.body, base64.b64decode(parts["v1"]))
    return True


def failure_streak(account: TestAccount, endpoint_id: str) -> int:
    endpoint = webhooks.webhook_endpoints().get_endpoint(account.id, endpoint_id)
    assert endpoint is not None
    return endpoint.consecutive_failures


def failed_delivery(runtime: Runtime, api: Api, refusing: Receiver) -> tuple[dict[str, Any], dict[str, Any]]:
    """An endpoint whose receiver refuses, and the delivery it failed: (endpoint, delivery view)."""
    hook = create_endpoint(api, refusing.url)
    send(api)
    assert runtime.drain(30) == []
    assert len(refusing.wait_for(1)) == 1
    (failed,) = deliveries(api, hook["id"])
    assert failed["status"] == "failed"
    return hook, failed


def test_a_failed_delivery_resent_by_id_arrives_once_signed_and_resets_the_streak(
    runtime: Runtime, account: TestAccount, api: Api
) -> None:
    with Receiver(answers=[400]) as refusing, Receiver() as healthy:
        hook, failed = failed_delivery(runtime, api, refusing)
        (attempt,) = failed["attempts"]
        assert (attempt["number"], attempt["outcome"], attempt["response_code"]) == (1, "refused", 400)
        assert attempt["latency_ms"] >= 0 and attempt["error"] is None
        assert failed["manual"] is False and failed["resent_from"] is None and failed["next_attempt_at"] is None
        assert failure_streak(account, hook["id"]) == 1

        moved = api.request("PUT", f"/v3/webhooks/{hook['id']}", json={"url": healthy.url})
        assert moved.status_code == 200, moved.text
        job = resend(runtime, api, {"delivery_ids": [failed["id"]]})
        assert {
            k: job[k] for k in ("status", "mode", "endpoint_id", "matched", "attempted", "succeeded", "failed")
        } == {
            "status": "completed",
            "mode": "delivery_ids",
            "endpoint_id": None,
            "matched": 1,
            "attempted": 1,
            "succeeded": 1,
            "failed": 0,
        }
        assert job["completed_at"] is not None and job["error_message"] is None

        (request,) = healthy.wait_for(1)
        assert request.headers["X-Webhook-Attempt"] == "1"
        assert request.body == refusing.requests[0].body  # the recorded payload, byte for byte
        assert request.headers["X-Webhook-Event-Id"] == failed["event_id"]
        assert request.headers["X-Webhook-Delivery-Id"] != failed["id"]
        assert stripe.WebhookSignature.verify_header(
            request.body.decode(), request.headers["X-Svc-Signature"], hook["secret"]
        )
        assert ed25519_valid(runtime, request)
        assert failure_streak(account, hook["id"]) == 0  # a successful resend resets it

        runtime.advance(48 * 3600)
        assert runtime.drain(30) == []
        assert len(healthy.requests) == 1 and len(refusing.requests) == 1

        newest, original = deliveries(api, hook["id"])
        assert original["id"] == failed["id"]
        assert (newest["manual"], newest["resent_from"], newest["status"]) == (True, failed["id"], "succeeded")
        assert newest["id"] == request.headers["X-Webhook-Delivery-Id"]
        assert [(a["number"], a["response_code"]) for a in newest["attempts"]] == [(1, 200)]

        entry = api.get("/v3/audit").json()["items"][0]
        assert (entry["action"], entry["target"]) == ("webhook.deliveries_resent", job["id"])


def test_a_failing_resend_is_never_retried_and_never_counted(runtime: Runtime, account: TestAccount, api: Api) -> None:
    with Receiver(answers=[400]) as refusing, Receiver(answers=[503]) as unavailable:
        hook, failed = failed_delivery(runtime, api, refusing)
        assert failure_streak(account, hook["id"]) == 1
        api.request("PUT", f"/v3/webhooks/{hook['id']}", json={"url": unavailable.url})
        job = resend(runtime, api, {"delivery_ids": [failed["id"]]})
        assert (job["status"], job["attempted"], job["succeeded"], job["failed"]) == ("completed", 1, 0, 1)
        assert [r.headers["X-Webhook-Attempt"] for r in unavailable.wait_for(1)] == ["1"]

        for _ in range(4):  # the whole retry schedule and its +24 h step
            runtime.advance(12 * 3600)
            assert runtime.drain(30) == []
        assert len(unavailable.requests) == 1
        assert failure_streak(account, hook["id"]) == 1  # failed resends never count
        resent = deliveries(api, hook["id"], status="failed")[0]
        assert (resent["manual"], resent["next_attempt_at"], resent["attempts"][0]["response_code"]) == (
            True,
            None,
            503,
        )


def test_resend_by_filter_to_another_endpoint(runtime: Runtime, api: Api) -> None:
    with Receiver(answers=[400]) as refusing, Receiver() as healthy:
        source = create_endpoint(api, refusing.url)
        for _ in range(3):
            send(api)
        assert runtime.drain(30) == []
        failed = deliveries(api, source["id"])
        assert len(failed) == 3 and {d["status"] for d in failed} == {"failed"}
        target = create_endpoint(api, healthy.url, events=["bounced"])
        since = (wiring.clock().now() - timedelta(hours=1)).isoformat()

        job = resend(
            runtime, api, {"filter": {"endpoint_id": source["id"], "since": since}, "endpoint_id": target["id"]}
        )
        assert (job["mode"], job["endpoint_id"], job["matched"], job["succeeded"]) == ("filter", target["id"], 3, 3)
        arrived = healthy.wait_for(3)
        assert len(arrived) == 3 and {r.headers["X-Webhook-Attempt"] for r in arrived} == {"1"}
        for request in arrived:
            assert stripe.WebhookSignature.verify_header(
                request.body.decode(), request.headers["X-Svc-Signature"], target["secret"]
            )
        assert sorted(json.loads(r.body)["message_id"] for r in arrived) == sorted(
            json.loads(r.body)["message_id"] for r in refusing.requests
        )
        assert len(deliveries(api, source["id"])) == 3  # the resends are the destination's
        copies = deliveries(api, target["id"])
        assert sorted(d["resent_from"] for d in copies) == sorted(d["id"] for d in failed)
        assert all(d["manual"] and d["endpoint_id"] == target["id"] for d in copies)

        again = resend(runtime, api, {"filter": {"endpoint_id": source["id"], "since": since, "status": ["succeeded"]}})
        assert (again["status"], again["matched"], again["attempted"]) == ("completed", 0, 0)


def test_the_history_pages_newest_first_and_refuses_bad_parameters(runtime: Runtime, api: Api) -> None:
    with Receiver() as healthy:
        hook = create_endpoint(api, healthy.url)
        for _ in range(5):
            send(api)
            runtime.advance(1)  # distinct creation times
        assert runtime.drain(30) == []
        everything = deliveries(api, hook["id"], limit=100)
        assert len(everything) == 5
        assert [d["created_at"] for d in everything] == sorted((d["created_at"] for d in everything), reverse=True)
        assert all(d["attempts"][0]["response_code"] == 200 and d["attempts"][0]["latency_ms"] >= 0 for d in everything)

        pages, cursor = [], None
        while True:
            params: dict[str, Any] = {"limit": 2, "status": "succeeded", **({"cursor": cursor} if cursor else {})}
            page = api.get(f"/v3/webhooks/{hook['id']}/deliveries", params=params).json()
            pages.append([d["id"] for d in page["deliveries"]])
            cursor = page["next_cursor"]
            assert page["has_more"] is (cursor is not None)
            if cursor is None:
                break
        assert [len(p) for p in pages] == [2, 2, 1]
        assert [delivery_id for page in pages for delivery_id in page] == [d["id"] for d in everything]

        first = api.get(f"/v3/webhooks/{hook['id']}/deliveries", params={"limit": 2}).json()
        old = (wiring.clock().now() - timedelta(days=400)).isoformat()
        assert len(deliveries(api, hook["id"], since=old)) == 5  # clamped to the retention, not an error
        assert deliveries(api, hook["id"], status="failed") == deliveries(api, hook["id"], event="bounced") == []
        path = f"/v3/webhooks/{hook['id']}/deliveries"
        for params in (
            {"limit": 0},
            {"limit": 101},
            {"status": "lost"},
            {"event": "duplicate"},
            {"cursor": "garbage"},
            {"cursor": first["next_cursor"], "status": "failed"},  # another query's cursor
            {"cursor": first["next_cursor"][:-3] + "abc"},  # tampered
            {"since": "2026-11-02T00:00:00Z", "until": "2026-11-01T00:00:00Z"},
            {"since": "yesterday"},
        ):
            assert_error(api.get(path, params=params), 400, "validation_error")
        assert_error(api.get("/v3/webhooks/wh_missing/deliveries"), 404, "not_found")
        other = Api(runtime.base_url, make_account().test_key)
        assert_error(other.get(path), 404, "not_found")


def _old_delivery(account: TestAccount, endpoint_id: str, days: int) -> str:
    """A delivery recorded `days` ago, written straight to the table (the clock only moves forward)."""
    created = wiring.clock().now() - timedelta(days=days)
    delivery = Delivery(
        id=f"whd_{uuid.uuid4().hex}",
        account_id=account.id,
        endpoint_id=endpoint_id,
        url="http://127.0.0.1:9/hooks",
        event_id=f"evt_{uuid.uuid4().hex}",
        event_type="delivered",
        message_id="msg_old",
        body="{}",
        created_at=created,
        expires_at=int((created + timedelta(days=400)).timestamp()),
    ).after(Attempt(number=1, at=created, result=AttemptResult.REFUSED, status_code=400, latency_ms=1))
    assert webhook_delivery.webhook_deliveries().create(delivery)
    return delivery.id


def test_resend_requests_are_checked_before_anything_is_created(
    runtime: Runtime, account: TestAccount, api: Api
) -> None:
    with Receiver(answers=[400]) as refusing:
        hook, failed = failed_delivery(runtime, api, refusing)
    other = make_account()
    foreign = create_endpoint(Api(runtime.base_url, other.test_key), "http://127.0.0.1:9/hooks")
    foreign_delivery = _old_delivery(other, foreign["id"], 1)
    unknown = "whd_" + "0" * 32
    now = wiring.clock().now()

    for body, status, code, named in (
        ({"delivery_ids": [failed["id"], unknown]}, 404, "not_found", unknown),
        ({"delivery_ids": [foreign_delivery]}, 404, "not_found", foreign_delivery),
        ({"delivery_ids": [failed["id"]], "endpoint_id": foreign["id"]}, 404, "not_found", foreign["id"]),
        ({"delivery_ids": [_old_delivery(account, hook["id"], 31)]}, 400, "validation_error", "resend window"),
        ({"delivery_ids": [failed["id"]] * 101}, 400, "validation_error", None),
        ({}, 400, "validation_error", None),
        ({"delivery_ids": [failed["id"]], "filter": {"endpoint_id": hook["id"], "since": now.isoformat()}}, 400,
         "validation_error", None),
        ({"filter": {"endpoint_id": hook["id"], "since": (now - timedelta(days=31)).isoformat()}}, 400,
         "validation_error", "30 days"),
        ({"filter": {"endpoint_id": "wh_missing", "since": (now - timedelta(hours=1)).isoformat()}}, 404,
         "not_found", "wh_missing"),
    ):  # fmt: skip
        error = assert_error(api.post(RESEND, json=body), status, code)
        assert named is None or named in error["error"]["message"], error

    # Lasting conditions (until someone enables an endpoint or names another): 400s, not 409s ("retry")
    disabled = create_endpoint(api, "http://127.0.0.1:9/hooks")
    api.request("PUT", f"/v3/webhooks/{disabled['id']}", json={"enabled": False})
    off = assert_error(
        api.post(RESEND, json={"delivery_ids": [failed["id"]], "endpoint_id": disabled["id"]}), 400, "validation_error"
    )
    assert f"endpoint_id: the destination {disabled['id']} is disabled" in off["error"]["message"]
    since = (now - timedelta(hours=1)).isoformat()
    off = assert_error(
        api.post(RESEND, json={"filter": {"endpoint_id": disabled["id"], "since": since}}), 400, "validation_error"
    )
    assert f"filter.endpoint_id: the filter's endpoint {disabled['id']} is disabled" in off["error"]["message"]
    api.request("PUT", f"/v3/webhooks/{hook['id']}", json={"enabled": False})
    off = assert_error(api.post(RESEND, json={"delivery_ids": [failed["id"]]}), 400, "validation_error")
    assert (
        f"delivery_ids: {failed['id']} go back to endpoint {hook['id']}, which is disabled" in off["error"]["message"]
    )
    assert api.delete(f"/v3/webhooks/{hook['id']}").status_code == 200
    gone = assert_error(api.post(RESEND, json={"delivery_ids": [failed["id"]]}), 400, "validation_error")
    assert (
        f"delivery_ids: {failed['id']} go back to endpoint {hook['id']}, which was deleted" in gone["error"]["message"]
    )
    assert all(e["action"] != "webhook.deliveries_resent" for e in api.get("/v3/audit").json()["items"])


# -- sample events (POST /v3/webhooks/{id}/test) ---------------------------------------------------


def test_a_sample_event_reaches_the_endpoint_signed_once_and_is_never_retried(
    runtime: Runtime, account: TestAccount, api: Api
) -> None:
    with Receiver(answers=[503]) as unavailable, Receiver() as healthy:
        hook = create_endpoint(api, healthy.url, events=["bounced", "delivered"])
        accepted = api.post(f"/v3/webhooks/{hook['id']}/test")  # no body: the endpoint's first type
        assert accepted.status_code == 202, accepted.text
        sample = accepted.json()
        assert (sample["event"], sample["status"], sample["manual"], sample["attempts"]) == (
            "bounced",
            "pending",
            True,
            [],
        )
        assert runtime.drain(30) == []

        (request,) = healthy.wait_for(1)
        payload = json.loads(request.body)
        assert payload["event"] == "bounced" and payload["message_id"].startswith("msg_sample_")
        assert payload["data"]["test"] is True and payload["data"]["sample"] is True
        assert payload["data"]["bounce_type"] == "hard"
        assert request.headers["X-Webhook-Delivery-Id"] == sample["id"]
        assert stripe.WebhookSignature.verify_header(
            request.body.decode(), request.headers["X-Svc-Signature"], hook["secret"]
        )
        assert ed25519_valid(runtime, request)
        (listed,) = deliveries(api, hook["id"])
        assert (listed["id"], listed["status"], [a["response_code"] for a in listed["attempts"]]) == (
            sample["id"],
            "succeeded",
            [200],
        )

        # A failing receiver: one attempt, never retried, not counted toward the failure streak.
        api.request("PUT", f"/v3/webhooks/{hook['id']}", json={"url": unavailable.url})
        chosen = api.post(f"/v3/webhooks/{hook['id']}/test", json={"event": "clicked"})
        assert chosen.status_code == 202, chosen.text
        assert runtime.drain(30) == []
        runtime.advance(48 * 3600)
        assert runtime.drain(30) == []
        (failed,) = unavailable.wait_for(1)
        assert json.loads(failed.body)["event"] == "clicked"
        assert len(unavailable.requests) == 1
        assert deliveries(api, hook["id"])[0]["status"] == "failed"
        assert failure_streak(account, hook["id"]) == 0


def test_a_sample_for_a_missing_disabled_or_foreign_endpoint_sends_nothing(runtime: Runtime, api: Api) -> None:
    with Receiver() as healthy:
        hook = create_endpoint(api, healthy.url)
        assert_error(api.post(f"/v3/webhooks/{hook['id']}/test", json={"event": "duplicate"}), 400, "validation_error")
        assert_error(api.post(f"/v3/webhooks/{hook['id']}/test", json={"kind": "x"}), 400, "validation_error")
        other = Api(runtime.base_url, make_account().test_key)
        assert_error(other.post(f"/v3/webhooks/{hook['id']}/test"), 404, "not_found")
        api.request("PUT", f"/v3/webhooks/{hook['id']}", json={"enabled": False})
        assert_error(api.post(f"/v3/webhooks/{hook['id']}/test"), 400, "validation_error")
        assert runtime.drain(30) == []
        assert healthy.requests == [] and deliveries(api, hook["id"]) == []
