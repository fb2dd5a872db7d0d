"""Auto-disable end to end: 20 consecutive fully-failed deliveries whose streak spans at
least 72 hours disable an endpoint, write webhook.auto_disable and email the owner.

A receiver answering 400 makes each delivery fail for good after one attempt (a 4xx other than 429
is final), so a streak costs one batch recipient per failure; the 72 hours pass on the runtime's clock.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

import pytest
import requests

from devtools.local.runtime import Runtime
from tests.e2e.support import Api, make_account
from tests.e2e.webhook_support import create_endpoint, send, send_batch, update_endpoint
from tests.peers.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e
HOUR = 3600


def fail(runtime: Runtime, api: Api, receiver: Receiver, count: int) -> None:
    """`count` more deliveries to the receiver, each answered (and so fully failed) before returning."""
    expected = len(receiver.requests) + count
    send_batch(api, count)
    assert runtime.drain(30) == []
    assert len(receiver.wait_for(expected)) == expected


def read(api: Api, endpoint_id: str) -> Any:
    response = api.get(f"/v3/webhooks/{endpoint_id}")
    assert response.status_code == 200, response.text
    return response.json()


def mail_to(runtime: Runtime, address: str) -> list[dict[str, Any]]:
    items = requests.get(f"{runtime.base_url}/_local/mailbox", timeout=30).json()["items"]
    return [item for item in items if address in item["rcpt_tos"]]


def test_twenty_failures_over_72_hours_disable_the_endpoint_until_the_owner_enables_it(runtime: Runtime) -> None:
    owner = f"owner+{uuid.uuid4().hex[:10]}@example.com"
    api = Api(runtime.base_url, make_account(owner_email=owner).test_key)
    with Receiver(answers=[400]) as refusing:
        endpoint_id = create_endpoint(api, refusing.url)["id"]
        fail(runtime, api, refusing, 19)
        assert read(api, endpoint_id)["enabled"] is True
        runtime.advance(71 * HOUR)
        fail(runtime, api, refusing, 1)
        assert read(api, endpoint_id)["enabled"] is True, "20 failures, but over less than 72 hours"
        assert mail_to(runtime, owner) == []

        runtime.advance(HOUR)
        fail(runtime, api, refusing, 1)
        disabled = read(api, endpoint_id)
        state = (disabled["enabled"], disabled["status"], disabled["disabled_reason"])
        assert state == (False, "disabled", "auto_failures")
        assert abs(datetime.fromisoformat(disabled["disabled_at"]) - runtime.clock.now()) < timedelta(minutes=1)

        audit = api.get("/v3/audit?per_page=100").json()["items"]
        entries = [entry for entry in audit if entry["action"] == "webhook.auto_disable"]
        assert [(e["target"], e["actor_type"]) for e in entries] == [(endpoint_id, "system")]
        (notice,) = mail_to(runtime, owner)
        assert notice["headers"]["Subject"] == "Your webhook endpoint was disabled"
        assert endpoint_id in notice["raw"]

        seen = len(refusing.requests)
        send(api)  # events of a disabled endpoint are not queued
        assert runtime.drain(30) == []
        assert len(refusing.requests) == seen

        enabled = update_endpoint(api, endpoint_id, {"enabled": True})
        assert (enabled["status"], enabled["disabled_reason"], enabled["disabled_at"]) == ("active", None, None)
        fail(runtime, api, refusing, 1)  # a fresh budget: the old streak is gone
        assert read(api, endpoint_id)["enabled"] is True
        assert len(mail_to(runtime, owner)) == 1


def test_a_success_in_the_middle_starts_the_streak_again(runtime: Runtime) -> None:
    api = Api(runtime.base_url, make_account().test_key)
    with Receiver(answers=[*[400] * 19, 200, 400]) as receiver:
        endpoint_id = create_endpoint(api, receiver.url)["id"]
        fail(runtime, api, receiver, 19)
        fail(runtime, api, receiver, 1)  # answered 200: the streak ends
        runtime.advance(72 * HOUR)
        fail(runtime, api, receiver, 1)
        assert read(api, endpoint_id)["enabled"] is True, "a success resets the count"
        fail(runtime, api, receiver, 19)
        # 20 failures now, but the streak began with the one after the success, < 72 h ago.
        assert read(api, endpoint_id)["enabled"] is True, "a success resets when the streak began"
        runtime.advance(72 * HOUR)
        fail(runtime, api, receiver, 1)
        assert read(api, endpoint_id)["enabled"] is False
