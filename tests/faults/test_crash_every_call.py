"""A crash at every AWS call of the delivery path's workers, and a transient AWS error at each:
nothing lost, nothing sent twice (issue 31's harness: tests/faults/crash.py).

For each worker and each k the sweep picks from the calls a clean run of it makes, a live send to two
recipients goes through the embedded runtime while the worker's first invocation to reach call k
dies right after it (or that call fails with a throttling error). The runtime redelivers as
Lambda and SQS would (a failed batch comes back after its visibility timeout; the clock is moved
past it and past the message's lease). Then every recipient has exactly one final event, the mail
sink holds each (Message-ID, recipient) once, and the account's quota counted the send once.
"""

from __future__ import annotations

import uuid
from collections import Counter

import pytest
import requests

from devtools.local.runtime import Runtime
from tests.e2e.support import Api
from tests.faults.crash import CallFault, sweep

pytestmark = pytest.mark.e2e
FINAL = {"delivered", "bounced", "failed", "rejected"}
# The functions a live send passes through (the outbox queues its job, the dispatcher hands it
# over), and the relay task that speaks SMTP.
WORKERS = ["SendOutboxFunction", "DispatcherFunction", "RelayTask"]
REDELIVERY_SECONDS = 1000  # past the queues' visibility timeouts (960 s) and the message's lease (300 s)


@pytest.fixture
def api(runtime: Runtime) -> Api:
    return Api(runtime.base_url, runtime.dev["keys"]["live"])


def send(api: Api) -> tuple[str, list[str], str]:
    run = uuid.uuid4().hex[:10]
    recipients = [f"a.{run}@example.com", f"b.{run}@example.com"]
    body = {"from": "hello@postline.test", "to": recipients, "subject": f"crash {run}", "text": "t"}
    response = api.post("/v3/messages", json=body)
    assert response.status_code == 202, response.text
    return response.json()["id"], recipients, f"crash {run}"


def settle(runtime: Runtime) -> None:
    runtime.drain(60)
    for _ in range(2):
        runtime.advance(REDELIVERY_SECONDS)
        runtime.drain(60)


def check(runtime: Runtime, api: Api, sent: tuple[str, list[str], str], case: str) -> None:
    message_id, recipients, subject = sent
    events = api.get("/v3/events", params={"message_id": message_id, "limit": 100}).json()["items"]
    finals = Counter(event["recipient"] for event in events if event["type"] in FINAL)
    assert finals == Counter(recipients), f"{case}: final events {dict(finals)}"
    mailed = Counter(
        (item["headers"].get("Message-ID"), rcpt)
        for item in requests.get(f"{runtime.base_url}/_local/mailbox", timeout=30).json()["items"]
        if item["headers"].get("Subject") == subject
        for rcpt in item["rcpt_tos"]
    )
    assert sorted(mailed.values()) == [1, 1], f"{case}: the mail sink holds {dict(mailed)}"


@pytest.mark.parametrize("worker", WORKERS)
def test_a_fault_at_every_call_loses_nothing_and_sends_nothing_twice(runtime: Runtime, api: Api, worker: str) -> None:
    def workload(case: str) -> None:
        sent = send(api)
        settle(runtime)
        check(runtime, api, sent, case)

    sweep(worker, workload, CallFault)
