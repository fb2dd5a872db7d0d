"""A crash at every AWS call of the webhook workers, and a transient AWS error at each: every event
reaches its endpoint, as one delivery whatever the retries (tests/faults/crash.py).

The fan-out (the events stream's consumer, which makes the first attempt) and the attempt function
(the retry workflow's, here made to run by a receiver that answers 503 first) are struck at each
call k the sweep picks from a clean run. Delivery is at least once: a receiver may see a POST again
after a crash, but every POST of one event carries the same webhook-id, and the endpoint's history
holds one delivery for it, succeeded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from devtools.local.runtime import Runtime
from tests.e2e.support import Api, make_account
from tests.faults.crash import CallFault, sweep
from tests.peers.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e
REDELIVERY_SECONDS = 1000  # past the queues' visibility timeouts and the first retries' waits
# worker -> the receiver's answers: the attempt function runs only for a retry
WORKERS = {"WebhookFanoutFunction": [200], "WebhookAttemptFunction": [503, 200]}


@pytest.fixture
def receiver(request: pytest.FixtureRequest) -> Iterator[Receiver]:
    with Receiver(answers=WORKERS[request.node.callspec.params["worker"]]) as running:
        yield running


def run_case(runtime: Runtime, receiver: Receiver, case: str) -> None:
    api = Api(runtime.base_url, make_account().test_key)
    created = api.post("/v3/webhooks", json={"url": receiver.url, "events": ["delivered"]})
    assert created.status_code == 201, created.text
    receiver.requests.clear()
    body = {"from": "hello@example.com", "to": ["delivered@simulator.postline.dev"], "subject": "s", "text": "t"}
    sent = api.post("/v3/messages", json=body)
    assert sent.status_code == 202, sent.text
    message_id = sent.json()["id"]
    runtime.drain(60)
    for _ in range(3):
        runtime.advance(REDELIVERY_SECONDS)
        runtime.drain(60)
    mine = [r for r in receiver.requests if json.loads(r.body).get("message_id") == message_id]
    assert mine, f"{case}: the delivered event never reached the endpoint"
    assert len({r.headers["webhook-id"] for r in mine}) == 1, f"{case}: more than one delivery for one event"
    history = api.get(f"/v3/webhooks/{created.json()['id']}/deliveries").json()["deliveries"]
    ours = [d for d in history if d["message_id"] == message_id]
    assert [d["status"] for d in ours] == ["succeeded"], f"{case}: history {ours}"


@pytest.mark.parametrize("worker", sorted(WORKERS))
def test_a_fault_at_every_call_still_delivers_each_event_once(
    runtime: Runtime, receiver: Receiver, worker: str
) -> None:
    sweep(worker, lambda case: run_case(runtime, receiver, case), CallFault)
