"""A single send counts its emails beside its screening reads (sending/service.py, _Reservation): each
distinct recipient is counted before the suppressions, the operator's hold and the template are
known, and what they turn away is given back, once. Over HTTP against the embedded runtime, the
account's usage (GET /v3/usage) is exact after each answer: 202 with rejected recipients, 503, 400,
a 429 at the limit, and SQS refusing the dispatch job (the outbox's, after the answer).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from botocore.client import BaseClient
from botocore.exceptions import ClientError

from postline.accounts.domain import PLAN_LIMITS, Plan, QuotaSource
from postline.config import SendQueue
from postline.usage.domain import day_key, month_key
from postline.usage.quota import EmailLimits
from postline.wiring import operator as operator_root
from postline.wiring import usage
from postline.wiring.registry import settings
from tests.e2e.sending_support import (
    Sender,
    accepted,
    drain,
    mail_to,
    message,
    now,
    recipient,
    statuses,
    verified_sender,
)
from tests.e2e.support import Api, assert_error, run_cli

pytestmark = pytest.mark.e2e


def _used(api: Api) -> tuple[int, int]:
    """The month's and the day's live emails counted."""
    response = api.get("/v3/usage")
    assert response.status_code == 200, response.text
    body = response.json()
    return body["emails"]["used"], body["daily"]["used"]


def _suppress(sender: Sender, address: str) -> None:
    response = sender.live.post("/v3/suppressions", json={"type": "unsubscribes", "email": address})
    assert response.status_code in (200, 201), response.text


def _spend(runtime: Any, sender: Sender, emails: int) -> None:
    """Counts `emails` for the account today, as sends before these would have."""
    moment = now(runtime)
    unlimited = EmailLimits(None, None, test=False)
    stopped = usage.counter_store().consume_emails(
        sender.id, emails, month=month_key(moment), day=day_key(moment), limits=unlimited
    )
    assert stopped is None


def test_what_screening_rejects_is_given_back(runtime: Any) -> None:
    sender = verified_sender(runtime)
    kept, left, gone = recipient("kept"), recipient("left"), recipient("gone")
    _suppress(sender, left)
    _suppress(sender, gone)

    accepted(sender.live.post("/v3/messages", json=message(sender.address, kept, left, cc=[kept.upper()])))
    assert _used(sender.live) == (1, 1)  # two distinct recipients counted, the suppressed one given back
    accepted(sender.live.post("/v3/messages", json=message(sender.address, left, gone)))
    assert _used(sender.live) == (1, 1)  # all suppressed: all given back


def test_a_refused_send_counts_nothing(runtime: Any) -> None:
    sender = verified_sender(runtime)
    accepted(sender.live.post("/v3/messages", json=message(sender.address)))

    missing = sender.live.post("/v3/messages", json={**message(sender.address), "template_id": "tmpl_nothing"})
    assert missing.status_code == 400, missing.text
    run_cli(runtime, "sending", "pause", "--account", sender.id)
    try:
        assert_error(sender.live.post("/v3/messages", json=message(sender.address)), 503, "sending_paused")
    finally:
        run_cli(runtime, "sending", "resume", "--account", sender.id)
    assert _used(sender.live) == (1, 1)
    accepted(sender.live.post("/v3/messages", json=message(sender.address)))  # the next send queues after its count
    assert _used(sender.live) == (2, 2)


def test_at_the_limit_what_goes_out_is_counted_not_what_was_reserved(runtime: Any) -> None:
    """One email left today: a send to two recipients, one suppressed, fits (the reservation of two is
    refused, then the one that goes out is counted); a second one does not."""
    sender = verified_sender(runtime)
    cap = PLAN_LIMITS[Plan.FREE].daily_emails
    assert cap is not None
    _spend(runtime, sender, cap - 1)
    gone = recipient("gone")
    _suppress(sender, gone)

    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient(), gone)))
    assert _used(sender.live)[1] == cap
    assert_error(
        sender.live.post("/v3/messages", json=message(sender.address, recipient(), gone)), 429, "rate_limit_exceeded"
    )
    accepted(sender.live.post("/v3/messages", json=message(sender.address, gone)))  # nothing goes out: no count
    assert _used(sender.live)[1] == cap


def test_a_send_while_sqs_refuses_jobs_is_counted_once_and_goes_out_once_sqs_is_back(
    runtime: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatch job is the outbox's (the messages table's stream: sending/outbox.py), not the
    send's: SQS refusing it does not fail the send, and the outbox's batch, failed, comes again
    until SQS takes it. The message is counted once and delivered once."""
    sender = verified_sender(runtime)
    queue_url = settings(SendQueue).url
    original = BaseClient._make_api_call
    refused = threading.Event()

    def failing(client: Any, operation: str, params: dict[str, Any]) -> Any:
        if operation == "SendMessageBatch" and params.get("QueueUrl") == queue_url:
            refused.set()
            error = {"Error": {"Code": "InternalError", "Message": "down"}, "ResponseMetadata": {"HTTPStatusCode": 500}}
            raise ClientError(error, operation)
        return original(client, operation, params)

    monkeypatch.setattr(BaseClient, "_make_api_call", failing)
    address = recipient("outbox")
    response = sender.live.post("/v3/messages", json=message(sender.address, address))
    assert refused.wait(30), "the outbox never tried to queue the job"
    monkeypatch.setattr(BaseClient, "_make_api_call", original)

    assert response.status_code == 202, response.text
    drain(runtime)
    assert _used(sender.live) == (1, 1)
    assert len(mail_to(runtime, address)) == 1
    assert statuses([response.json()["id"]]) == {response.json()["id"]: "delivered"}


def test_credits_are_not_spent_on_recipients_screening_rejects(runtime: Any) -> None:
    """Pay-as-you-go: past the plan's allowance a send spends credits, which are never given back, so
    such an account's send counts once screened (no reservation)."""
    sender = verified_sender(runtime)
    allowance = PLAN_LIMITS[Plan.FREE].daily_emails
    assert allowance is not None
    _spend(runtime, sender, allowance)
    counters = usage.counter_store()
    counters.grant_credits(sender.id, 5)
    operator_root.operator_service().set_quota_source(sender.id, QuotaSource.PAYG_CREDITS, "granted 5 credits")
    gone = recipient("gone")
    _suppress(sender, gone)

    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient(), gone)))
    assert counters.credits(sender.id) == 4
