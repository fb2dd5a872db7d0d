"""The Python SDK (sdks/python) against the embedded runtime: what a user of it does first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest

from devtools.local.runtime import Runtime
from postline_sdk import Postline, PostlineError, RetryPolicy, public_keys, verify_ed25519, verify_hmac
from postline_sdk.generated.api.webhooks import create_webhook
from postline_sdk.generated.models.webhook_create import WebhookCreate
from postline_sdk.generated.models.webhook_with_secret import WebhookWithSecret
from tests.e2e.support import make_account
from tests.peers.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e
DELIVERED = "delivered@simulator.postline.dev"


@pytest.fixture
def client(runtime: Runtime) -> Iterator[Postline]:
    with Postline(make_account().test_key, base_url=runtime.base_url) as postline:
        yield postline


def message(**fields: object) -> dict[str, object]:
    return {"from": "hello@example.com", "to": [DELIVERED], "subject": "Hi", "text": "Hello", **fields}


def test_send_then_iterate_its_events_to_the_end(runtime: Runtime, client: Postline) -> None:
    sent = [client.send(message(tags=["sdk"])) for _ in range(3)]
    runtime.drain(30)
    events = list(client.events(tag="sdk", page_size=2))  # several pages, followed by cursor
    assert sorted({event.message_id for event in events}) == sorted(accepted.id for accepted in sent)
    assert sorted(event.type_.value for event in events) == sorted(["queued", "sent", "delivered"] * 3)
    delivered = list(client.events(type="delivered", message_id=sent[0].id))
    assert [event.recipient for event in delivered] == [DELIVERED]


def test_a_send_repeated_with_its_idempotency_key_is_one_message(client: Postline) -> None:
    first = client.send(message(), idempotency_key="order-42")
    assert client.send(message(), idempotency_key="order-42").id == first.id


def test_batch(runtime: Runtime, client: Postline) -> None:
    result = client.send_batch({"from": "hello@example.com", "subject": "Hi", "text": "x",
                                "recipients": [{"to": f"r{n}@example.com"} for n in range(3)]})  # fmt: skip
    assert result.accepted == 3 and len(result.message_ids) == 3


def test_scheduled_send_and_cancel(runtime: Runtime, client: Postline) -> None:
    later = (runtime.clock.now() + timedelta(hours=2)).isoformat()
    accepted = client.send(message(send_at=later))
    cancelled = client.cancel(accepted.id)
    assert (cancelled.id, cancelled.status) == (accepted.id, "cancelled")
    with pytest.raises(PostlineError) as refused:
        client.cancel(accepted.id)
    assert (refused.value.status, refused.value.code) == (400, "validation_error")


def test_a_429_waits_out_retry_after_and_succeeds(runtime: Runtime) -> None:
    """Three calls a minute: the fourth is refused with Retry-After; the client waits (here: moves
    the runtime's clock by what it was told) and the same request then succeeds."""
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        runtime.advance(seconds)

    account = make_account(rate_limit=3)
    with Postline(account.test_key, base_url=runtime.base_url, sleep=wait) as client:
        ids = {client.send(message()).id for _ in range(4)}
    assert len(ids) == 4
    assert len(waits) == 1 and 0 < waits[0] <= 61
    with Postline(make_account(rate_limit=3).test_key, base_url=runtime.base_url, sleep=lambda s: None,
                  retry=RetryPolicy(max_attempts=1)) as impatient:  # fmt: skip
        for _ in range(3):
            impatient.send(message())
        with pytest.raises(PostlineError) as limited:
            impatient.send(message())
    assert limited.value.status == 429 and limited.value.retry_after is not None


def test_verify_a_received_webhook(runtime: Runtime, client: Postline) -> None:
    with Receiver() as receiver:
        created = create_webhook.sync(
            client=client.api,
            body=WebhookCreate.from_dict({"url": receiver.url, "events": ["delivered"], "auth": {"hmac": {}}}),
        )
        assert isinstance(created, WebhookWithSecret)
        client.send(message())
        runtime.drain(30)
        (request,) = receiver.wait_for(1)
    now = runtime.clock.now().timestamp()
    keys = public_keys(runtime.base_url)
    assert verify_ed25519(request.body, request.headers, keys, now=now)["event"] == "delivered"
    assert verify_hmac(request.body, request.headers, created.secret, now=now) == json.loads(request.body)
