"""Helpers for webhook end-to-end tests: endpoints, sends that raise one `delivered` event each."""

from __future__ import annotations

from typing import Any

from tests.e2e.support import Api

# The runtime's clock is real time plus an offset: a test that moves it to just before an attempt is
# due must leave room for the real seconds its own steps take (a loaded machine drains slowly).
SLACK_SECONDS = 10
SIMULATED_DELIVERY = "delivered@simulator.postline.dev"  # a test-key send to it is queued, sent, delivered


def create_endpoint(api: Api, url: str, auth: dict[str, Any] | None = None, events: list[str] | None = None) -> Any:
    body: dict[str, Any] = {"url": url, "events": events or ["delivered"]}
    if auth is not None:
        body["auth"] = auth
    response = api.post("/v3/webhooks", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def update_endpoint(api: Api, endpoint_id: str, body: dict[str, Any]) -> Any:
    response = api.request("PUT", f"/v3/webhooks/{endpoint_id}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def send(api: Api, to: str = SIMULATED_DELIVERY) -> str:
    body = {"from": "hello@example.com", "to": [to], "subject": "Hi", "text": "x"}
    response = api.post("/v3/messages", json=body)
    assert response.status_code == 202, response.text
    message_id: str = response.json()["id"]
    return message_id


def send_batch(api: Api, count: int) -> list[str]:
    """One batch send to `count` recipients: each gets its own message, so `count` delivered events."""
    recipients = [{"to": f"recipient{n}@example.com"} for n in range(count)]
    body = {"from": "hello@example.com", "subject": "Hi", "text": "x", "recipients": recipients}
    response = api.post("/v3/messages.batch", json=body)
    assert response.status_code == 202, response.text
    assert response.json()["accepted"] == count, response.text
    message_ids: list[str] = response.json()["message_ids"]
    return message_ids
