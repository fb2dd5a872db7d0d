"""What sending and delivery count through the Meter port: accepted sends (single and batch, live
and test, rejected recipients by reason) and each recipient's recorded delivery outcome, counted
once however often a job or a report is repeated."""

from __future__ import annotations

import pytest

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, audit_entry
from postline.auth.service import RouteRule
from postline.delivery.feedback import FeedbackService
from postline.delivery.outcomes import BounceType, Outcome, OutcomeKind
from postline.delivery.parcel import MESSAGE_TAG
from postline.delivery.service import DELIVERY_OUTCOMES, Dispatcher
from postline.keys.access import Access, Environment
from postline.keys.identity import Principal
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import IdempotentCall
from postline.sending.models import BatchSendRequest, SendRequest
from postline.sending.outbox import Outbox
from postline.sending.service import (
    MESSAGES_ACCEPTED,
    RECIPIENTS_ACCEPTED,
    RECIPIENTS_REJECTED,
    SendService,
)
from postline.shared.errors import ServiceUnavailable
from postline.verification.service import Verifier
from tests.fakes.delivery import ScriptedTransport
from tests.fakes.domains import SENDING_DOMAIN, OneVerifiedDomain
from tests.fakes.sending import InMemoryIdempotency, InMemoryMessages, PlainVault, RecordingQueue
from tests.fakes.shared import DEFAULT_START, RecordingMeter, dims
from tests.fakes.suppressions import InMemorySuppressions
from tests.fakes.templates import NoTemplates
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes
from tests.unit.world import World


class Sending:
    def __init__(self, world: World, *, suppressed: tuple[str, ...] = ()) -> None:
        self.world = world
        self.meter = RecordingMeter()
        self.queue = RecordingQueue()
        self.messages = InMemoryMessages(outbox=Outbox(self.queue, world.clock))
        self.vault = PlainVault()
        self.suppressions = InMemorySuppressions(*suppressed)
        self.idempotency = InMemoryIdempotency()
        self.account: Account = world.account(plan=Plan.PROFESSIONAL)

    def principal(self, env: Environment = Environment.LIVE) -> Principal:
        created = self.world.key(self.account, env=env)
        admitted = self.world.auth.admit([f"Bearer {created.key}"], "203.0.113.9", RouteRule(Access.SEND, False))
        assert admitted.principal is not None
        return admitted.principal

    def send_service(self) -> SendService:
        return SendService(
            messages=self.messages,
            vault=self.vault,
            queue=self.queue,
            quotas=UnlimitedQuotas(),
            suppressions=self.suppressions,
            domains=OneVerifiedDomain(),
            templates=NoTemplates(),
            accounts=self.world.store,
            check_webhook_url=lambda url: None,
            idempotency=self.idempotency,
            ids=self.world.ids,
            clock=self.world.clock,
            meter=self.meter,
        )

    def dispatcher(self, transport: ScriptedTransport) -> Dispatcher:
        return Dispatcher(
            messages=self.messages,
            vault=self.vault,
            queue=self.queue,
            domains=OneVerifiedDomain(),
            suppressions=self.suppressions,
            transport_for=lambda message: transport,
            verifier=Verifier(StaticRoutes()),
            links=None,
            retention_days=lambda account_id: 30,
            quotas=UnlimitedQuotas(),
            clock=self.world.clock,
            meter=self.meter,
            worker_id="w1",
        )

    def send(self, principal: Principal, to: list[str]) -> str:
        request = SendRequest.model_validate({"from": f"hello@{SENDING_DOMAIN}", "to": to, "subject": "s", "text": "t"})
        return self.send_service().send(principal, request).id

    def dispatch_all(self, transport: ScriptedTransport) -> list[DispatchJob]:
        """Runs every queued job once; returns them (to run again)."""
        jobs, self.queue.jobs = self.queue.jobs, []
        for job in jobs:
            self.dispatcher(transport).dispatch(job)
        return jobs


@pytest.fixture
def sending(world: World) -> Sending:
    return Sending(world)


# -- accepted sends ------------------------------------------------------------------------------------


def test_a_send_counts_its_message_and_its_recipients(sending: Sending) -> None:
    sending.send(sending.principal(), ["ada@example.com", "grace@example.com"])

    single_live = dims(send="single", mode="live")
    assert sending.meter.of(MESSAGES_ACCEPTED) == {single_live: 1}
    assert sending.meter.of(RECIPIENTS_ACCEPTED) == {single_live: 2}
    assert sending.meter.of(RECIPIENTS_REJECTED) == {}


def test_a_test_key_send_counts_as_test(sending: Sending) -> None:
    sending.send(sending.principal(Environment.TEST), ["ada@example.com"])

    assert sending.meter.of(MESSAGES_ACCEPTED) == {dims(send="single", mode="test"): 1}


def test_a_replay_under_its_idempotency_key_counts_once(sending: Sending) -> None:
    principal = sending.principal()
    request = SendRequest.model_validate(
        {"from": f"hello@{SENDING_DOMAIN}", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    )
    call = IdempotentCall(key="welcome-ada-1", body=request.model_dump(mode="json", by_alias=True))
    first = sending.send_service().send(principal, request, call)
    again = sending.send_service().send(principal, request, call)

    assert again.id == first.id
    assert sending.meter.of(MESSAGES_ACCEPTED) == {dims(send="single", mode="live"): 1}


def test_a_batch_counts_its_accepted_and_its_rejected_recipients(world: World) -> None:
    sending = Sending(world, suppressed=("bob@example.com",))
    request = BatchSendRequest.model_validate(
        {
            "from": f"hello@{SENDING_DOMAIN}",
            "subject": "Welcome",
            "text": "Hello",
            "recipients": [
                {"to": "ada@example.com"},
                {"to": "not an address"},
                {"to": "grace@example.com"},
                {"to": "bob@example.com"},
            ],
        }
    )
    result = sending.send_service().send_batch(sending.principal(), request)

    assert (result.accepted, result.rejected) == (3, 1)  # bob's message is accepted, then rejected before send
    batch_live = dims(send="batch", mode="live")
    assert sending.meter.of(MESSAGES_ACCEPTED) == {batch_live: 3}
    assert sending.meter.of(RECIPIENTS_ACCEPTED) == {batch_live: 2}
    assert sending.meter.of(RECIPIENTS_REJECTED) == {
        dims(send="batch", mode="live", reason="invalid"): 1,
        dims(send="batch", mode="live", reason="all_recipients_suppressed"): 1,
    }


def test_a_refused_send_counts_nothing(sending: Sending) -> None:
    principal = sending.principal()
    request = SendRequest.model_validate(
        {"from": f"hello@{SENDING_DOMAIN}", "to": ["ada@example.com"], "subject": "s", "text": "t"}
    )
    pause = audit_entry(
        entry_id="aud_1", account_id=None, actor=Actor.system(), action="sending.pause", target=None, now=DEFAULT_START
    )
    sending.world.store.set_platform_sending_paused(True, pause)

    with pytest.raises(ServiceUnavailable):
        sending.send_service().send(principal, request)
    assert sending.meter.counts == {}


# -- delivery outcomes ---------------------------------------------------------------------------------


def test_a_delivery_counts_each_recipient_once_however_often_its_job_runs(sending: Sending) -> None:
    sending.send(sending.principal(Environment.TEST), ["ada@example.com", "grace@example.com"])
    transport = ScriptedTransport()
    jobs = sending.dispatch_all(transport)
    for job in jobs:  # SQS at least once: the same job again finds the recipients done
        sending.dispatcher(transport).dispatch(job)

    assert sorted(transport.handed) == ["ada@example.com", "grace@example.com"]
    assert sending.meter.of(DELIVERY_OUTCOMES) == {dims(outcome="delivered", mode="test"): 2}


def test_a_bounce_and_a_deferral_count_as_such(sending: Sending) -> None:
    sending.send(sending.principal(), ["ada@example.com", "bob@example.com", "eve@example.com"])
    transport = ScriptedTransport(
        {
            "bob@example.com": Outcome(
                OutcomeKind.BOUNCED, smtp_response="550 no such user", bounce_type=BounceType.HARD
            ),
            "eve@example.com": Outcome(OutcomeKind.DEFERRED, smtp_response="451 later"),
        }
    )
    sending.dispatch_all(transport)

    assert sending.meter.of(DELIVERY_OUTCOMES) == {
        dims(outcome="delivered", mode="live"): 1,
        dims(outcome="bounced", mode="live"): 1,
        dims(outcome="deferred", mode="live"): 1,
    }
    assert [job.recipients for job in sending.queue.jobs] == [["eve@example.com"]]  # its retry


def test_a_delivery_report_counts_once_when_it_comes_twice(sending: Sending) -> None:
    message_id = sending.send(sending.principal(), ["ada@example.com"])
    sending.dispatch_all(ScriptedTransport({"ada@example.com": Outcome(OutcomeKind.ACCEPTED, provider_id="ses-1")}))
    feedback = FeedbackService(
        messages=sending.messages, suppressions=sending.suppressions, retention_days=lambda _: 30, meter=sending.meter
    )
    report = {
        "eventType": "Bounce",
        "mail": {"timestamp": "2025-03-14T12:00:00.000Z", "tags": {MESSAGE_TAG: [message_id]}},
        "bounce": {
            "timestamp": "2025-03-14T12:00:05.000Z",
            "bounceType": "Permanent",
            "bounceSubType": "General",
            "bouncedRecipients": [{"emailAddress": "ada@example.com", "diagnosticCode": "smtp; 550 5.1.1"}],
        },
    }

    assert (feedback.apply(report), feedback.apply(report)) == (1, 0)
    assert sending.meter.of(DELIVERY_OUTCOMES) == {
        dims(outcome="sent", mode="live"): 1,
        dims(outcome="bounced", mode="live"): 1,
    }
