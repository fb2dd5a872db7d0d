"""What sending and delivery count through the Meter port: accepted sends (single and batch, live
and test, rejected recipients by reason) and each recipient's recorded delivery outcome, counted
once however often a job or a report is repeated."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, audit_entry
from postline.auth.identity import Principal
from postline.auth.service import RouteRule
from postline.delivery.feedback import FeedbackService
from postline.delivery.outcomes import BounceType, Outcome, OutcomeKind
from postline.delivery.parcels import MESSAGE_TAG, DispatchJob, Parcel
from postline.delivery.service import DELIVERY_OUTCOMES, Dispatcher
from postline.domains.domain import SendingDomain
from postline.events.domain import Event
from postline.keys.domain import Access, Environment
from postline.sending.domain import Content, IdempotentCall, Message, RecipientState
from postline.sending.models import BatchSendRequest, SendRequest
from postline.sending.ports import Result, Sealed
from postline.sending.service import (
    MESSAGES_ACCEPTED,
    RECIPIENTS_ACCEPTED,
    RECIPIENTS_REJECTED,
    SendService,
)
from postline.shared.errors import ServiceUnavailable
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.templates.domain import Template
from postline.usage.quota import EmailLimits
from postline.verification.service import Verifier
from tests.fakes import DEFAULT_START, RecordingMeter, StaticRoutes, dims
from tests.unit.world import World

DOMAIN = "postline.test"


# -- in-memory ports of sending and delivery ---------------------------------------------------------


class Messages:
    """MessageStore: the adapter's conditions, in memory. `record` writes only while `owner` holds
    the lease and the attempt is newer than the recorded one; `advance` only from an expected state."""

    def __init__(self) -> None:
        self.items: dict[str, Message] = {}
        self.leases: dict[str, str] = {}

    def create(self, messages: list[Message], sealed: list[Sealed], events: list[Event]) -> None:
        for message in messages:
            self.items.setdefault(message.id, message.model_copy(deep=True))

    def get(self, message_id: str) -> Message | None:
        message = self.items.get(message_id)
        return message.model_copy(deep=True) if message else None

    def claim(self, message_id: str, owner: str, now: datetime, lease_seconds: int) -> tuple[Message, Sealed] | None:
        if message_id not in self.items or message_id in self.leases:
            return None
        self.leases[message_id] = owner
        return self.items[message_id].model_copy(deep=True), {}

    def release(self, message: Message, owner: str) -> None:
        if self.leases.get(message.id) == owner:
            del self.leases[message.id]

    def record(self, message: Message, recipient: str, attempt: int, owner: str, events: list[Event]) -> bool:
        stored = self.items[message.id]
        if self.leases.get(message.id) != owner or stored.attempts.get(recipient, 0) >= attempt:
            return False
        stored.recipients[recipient] = message.recipients[recipient]
        stored.attempts[recipient] = attempt
        return True

    def advance(self, message: Message, recipient: str, expected: set[RecipientState], events: list[Event]) -> bool:
        stored = self.items[message.id]
        if stored.recipients.get(recipient) not in expected:
            return False
        stored.recipients[recipient] = message.recipients[recipient]
        return True


class Vault:
    def __init__(self) -> None:
        self.contents: dict[str, Content] = {}

    def seal(self, items: list[tuple[str, Content]]) -> list[Sealed]:
        self.contents.update(items)
        return [{"id": message_id} for message_id, _ in items]

    def open(self, message_id: str, sealed: Sealed) -> Content:
        return self.contents[message_id]


class Queue:
    def __init__(self) -> None:
        self.jobs: list[DispatchJob] = []

    def enqueue(self, jobs: list[DispatchJob], *, not_before: datetime | None = None) -> None:
        self.jobs.extend(jobs)

    def unschedule(self, message_id: str) -> None:
        pass


class Quotas:
    def consume_emails(self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits) -> str | None:
        return None

    def release_emails(self, account_id: str, count: int, *, month: str, day: str, test: bool) -> None:
        pass


class Suppressions:
    def __init__(self, *addresses: str) -> None:
        self.listed = {address.lower() for address in addresses}

    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        return {address.lower() for address in addresses} & self.listed

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        self.listed.add(address.lower())
        return True


class Domains:
    """Every account has verified DOMAIN (no DKIM key: the tests' mail is simulated or unsigned)."""

    def is_verified(self, account_id: str, domain: str) -> bool:
        return domain == DOMAIN

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return None


class NoTemplates:
    def get_template(self, account_id: str, template_id: str) -> Template | None:
        return None


class Idempotency:
    """Each (account, scope, key) produces once; a replay returns the first result."""

    def __init__(self) -> None:
        self.results: dict[tuple[str, str, str], Any] = {}

    def once(
        self,
        call: IdempotentCall,
        *,
        scope: str,
        account_id: str,
        model: type[Result],
        produce: Callable[[], Result],
    ) -> Result:
        slot = (account_id, scope, call.key)
        if slot not in self.results:
            self.results[slot] = produce()
        result: Result = self.results[slot]
        return result


class Transport:
    """Answers each recipient by the script (default: delivered), remembering every hand-over."""

    def __init__(self, script: dict[str, Outcome] | None = None) -> None:
        self.script = script or {}
        self.handed: list[str] = []

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            self.handed.append(parcel.recipient)
            yield self.script.get(parcel.recipient, Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok"))


# -- the services over them ------------------------------------------------------------------------


class Sending:
    def __init__(self, world: World, *, suppressed: tuple[str, ...] = ()) -> None:
        self.world = world
        self.meter = RecordingMeter()
        self.messages = Messages()
        self.vault = Vault()
        self.queue = Queue()
        self.suppressions = Suppressions(*suppressed)
        self.idempotency = Idempotency()
        self.account: Account = world.account(plan=Plan.PROFESSIONAL)

    def principal(self, env: Environment = Environment.LIVE) -> Principal:
        created = self.world.key(self.account, env=env)
        admitted = self.world.auth.admit(f"Bearer {created.key}", "203.0.113.9", RouteRule(Access.SEND, False))
        assert admitted.principal is not None
        return admitted.principal

    def send_service(self) -> SendService:
        return SendService(
            messages=self.messages,
            vault=self.vault,
            queue=self.queue,
            quotas=Quotas(),
            suppressions=self.suppressions,
            domains=Domains(),
            templates=NoTemplates(),
            accounts=self.world.store,
            check_webhook_url=lambda url: None,
            idempotency=self.idempotency,
            ids=self.world.ids,
            clock=self.world.clock,
            meter=self.meter,
        )

    def dispatcher(self, transport: Transport) -> Dispatcher:
        return Dispatcher(
            messages=self.messages,
            vault=self.vault,
            queue=self.queue,
            domains=Domains(),
            suppressions=self.suppressions,
            transport_for=lambda message: transport,
            verifier=Verifier(StaticRoutes()),
            links=None,
            retention_days=lambda account_id: 30,
            clock=self.world.clock,
            meter=self.meter,
            worker_id="w1",
        )

    def send(self, principal: Principal, to: list[str]) -> str:
        request = SendRequest.model_validate({"from": f"hello@{DOMAIN}", "to": to, "subject": "s", "text": "t"})
        return self.send_service().send(principal, request).id

    def dispatch_all(self, transport: Transport) -> list[DispatchJob]:
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
        {"from": f"hello@{DOMAIN}", "to": ["ada@example.com"], "subject": "s", "text": "t"}
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
            "from": f"hello@{DOMAIN}",
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
        {"from": f"hello@{DOMAIN}", "to": ["ada@example.com"], "subject": "s", "text": "t"}
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
    transport = Transport()
    jobs = sending.dispatch_all(transport)
    for job in jobs:  # SQS at least once: the same job again finds the recipients done
        sending.dispatcher(transport).dispatch(job)

    assert sorted(transport.handed) == ["ada@example.com", "grace@example.com"]
    assert sending.meter.of(DELIVERY_OUTCOMES) == {dims(outcome="delivered", mode="test"): 2}


def test_a_bounce_and_a_deferral_count_as_such(sending: Sending) -> None:
    sending.send(sending.principal(), ["ada@example.com", "bob@example.com", "eve@example.com"])
    transport = Transport(
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
    sending.dispatch_all(Transport({"ada@example.com": Outcome(OutcomeKind.ACCEPTED, provider_id="ses-1")}))
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
