"""Every exception path of the dispatcher, walked: whatever fails, once or for good, each recipient of
an accepted message ends with a final event (delivered, bounced, failed, rejected), and an email given
back to the quota is given back once.

The queue is played as SQS plays it: a job whose dispatch raises is received again, up to the send
queue's maxReceiveCount (then it would sit in the dead-letter queue, which must never happen here),
and the retries the dispatcher queues are run in turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from postline.delivery.outcomes import BounceType, Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.service import Dispatcher
from postline.domains.domain import DomainStatus, SendingDomain
from postline.events.domain import EventType
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import FINAL, Content, Message, RecipientState
from postline.shared.verification_results import VerificationResult
from postline.tracking.domain import LinkMaker
from postline.verification.domain import Verification
from tests.fakes.domains import SENDING_DOMAIN, OneVerifiedDomain
from tests.fakes.sending import InMemoryMessages, PlainVault, RecordingQueue
from tests.fakes.shared import DEFAULT_START, Faulty, FixedClock, RecordingMeter
from tests.fakes.suppressions import InMemorySuppressions
from tests.fakes.usage import UnlimitedQuotas

MAX_RECEIVES = 10  # the send queue's maxReceiveCount (infra/template.base.yaml)
FINAL_EVENTS = {EventType.DELIVERED, EventType.BOUNCED, EventType.COMPLAINED, EventType.FAILED, EventType.REJECTED}
ANN, BOB = "ann@example.com", "bob@example.com"


class AllValid:
    def verify(self, recipients: list[str]) -> dict[str, Verification]:
        return {r: Verification(VerificationResult.VALID, "mx found") for r in recipients}


class DeferOnce:
    """Bob's first hand-over is a 451 (so a retry gets queued), everything else a 250."""

    def __init__(self) -> None:
        self.handed: list[str] = []

    def deliver(self, parcels: list[Parcel]) -> Any:
        for parcel in parcels:
            self.handed.append(parcel.recipient)
            first = self.handed.count(parcel.recipient) == 1
            if parcel.recipient == BOB and first:
                yield Outcome(OutcomeKind.DEFERRED, smtp_response="451 later")
            else:
                yield Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok")


@dataclass
class Delivery:
    """A dispatcher over in-memory ports, one of them (or the build) made to fail."""

    fault: str
    times: int | None
    messages: Any = field(default_factory=InMemoryMessages)
    vault: Any = field(default_factory=PlainVault)
    queue: Any = field(default_factory=RecordingQueue)
    domains: Any = field(default_factory=OneVerifiedDomain)
    verifier: Any = field(default_factory=AllValid)
    transport: Any = field(default_factory=DeferOnce)
    quotas: UnlimitedQuotas = field(default_factory=UnlimitedQuotas)
    clock: FixedClock = field(default_factory=lambda: FixedClock(DEFAULT_START))

    def __post_init__(self) -> None:
        self.store = self.messages  # the fake itself, to read back what was written
        port, _, method = self.fault.partition(".")
        if method and port != "transport_for":
            setattr(self, port, Faulty(getattr(self, port), method, times=self.times))
        self.transport_failures = self.times if self.fault == "transport_for" else 0

    def transport_for(self, message: Message) -> Any:
        if self.transport_failures is None or self.transport_failures > 0:
            self.transport_failures = None if self.transport_failures is None else self.transport_failures - 1
            raise ConnectionError("no transport")
        return self.transport

    def dispatcher(self) -> Dispatcher:
        return Dispatcher(
            messages=self.messages,
            vault=self.vault,
            queue=self.queue,
            domains=self.domains,
            suppressions=InMemorySuppressions(),
            transport_for=self.transport_for,
            verifier=self.verifier,
            links=LinkMaker("https://api.postline.test", b"secret"),
            retention_days=lambda account_id: 30,
            quotas=self.quotas,
            clock=self.clock,
            meter=RecordingMeter(),
            worker_id="w1",
            pause=lambda seconds: None,
        )

    def accept(self, subject: str = "Hello") -> Message:
        message = Message.model_validate(
            {
                "id": "msg_1",
                "account_id": "acct_1",
                "key_id": "key_1",
                "test": False,
                "from": f"hello@{SENDING_DOMAIN}",
                "to": [ANN, BOB],
                "subject": subject,
                "verify_before_send": True,
                "recipients": {ANN: RecipientState.QUEUED, BOB: RecipientState.QUEUED},
                "created_at": DEFAULT_START,
            }
        )
        self.store.items[message.id] = message
        self.vault.contents[message.id] = Content(html='<a href="https://acme.example/x">x</a>', text="t")
        return message

    def run(self, job: DispatchJob) -> None:
        """As SQS would: each job received until it succeeds, at most MAX_RECEIVES times."""
        pending, taken = [job], 0
        while pending:
            current = pending.pop(0)
            for receive in range(1, MAX_RECEIVES + 1):
                try:
                    self.dispatcher().dispatch(current, receive_count=receive)
                    break
                except Exception:
                    self.store.leases.clear()  # a dead worker's lease expires before the redelivery
                    continue
            else:
                pytest.fail(f"job {current} went to the dead-letter queue")
            pending += self.queue.jobs[taken:]
            taken = len(self.queue.jobs)


PORT_FAULTS = [
    "messages.get",
    "messages.claim",
    "messages.record",
    "messages.release",
    "vault.open",
    "domains.verified_domain",
    "transport_for",
    "verifier.verify",
    "transport.deliver",
    "queue.enqueue",
]
# The store itself down for good is the one case left to the dead-letter queue: nothing can be
# written, a final event included. Every other port may fail for good.
STORE = {"messages.get", "messages.claim", "messages.record", "messages.release"}
CASES = [(fault, 1) for fault in PORT_FAULTS] + [(fault, None) for fault in PORT_FAULTS if fault not in STORE]


def final_events(delivery: Delivery) -> dict[str, list[EventType]]:
    found: dict[str, list[EventType]] = {}
    for event in delivery.store.events:
        if event.type in FINAL_EVENTS and event.recipient is not None:
            found.setdefault(event.recipient, []).append(event.type)
    return found


@pytest.mark.parametrize(("fault", "times"), CASES, ids=[f"{f}-{'once' if t else 'always'}" for f, t in CASES])
def test_every_recipient_ends_with_a_final_event(fault: str, times: int | None) -> None:
    delivery = Delivery(fault, times)
    message = delivery.accept()
    delivery.run(DispatchJob(message_id=message.id, account_id=message.account_id))

    stored = delivery.store.items[message.id]
    assert all(state in FINAL for state in stored.recipients.values()), stored.recipients
    finals = final_events(delivery)
    assert set(finals) == {ANN, BOB}
    assert all(len(kinds) == 1 for kinds in finals.values()), finals  # one final event each, never two
    failed_before_hand_over = [
        r for r in (ANN, BOB) if stored.recipients[r] is RecipientState.FAILED and stored.attempts[r] == 1
    ]
    assert len(delivery.quotas.released) == len(failed_before_hand_over)


@pytest.mark.parametrize("subject", ["Hi\u2028there", "Hi\x00", "Hi\r\nBcc: x@evil.example"])
def test_a_copy_that_cannot_be_built_fails_at_once_with_a_reason(subject: str) -> None:
    """Stored before the API checked it (or by a path that skipped the check): a permanent failure,
    not a retry until the dead-letter queue; the emails go back to the quota once, even when the
    job is repeated."""
    delivery = Delivery("none", 0)
    message = delivery.accept(subject)
    job = DispatchJob(message_id=message.id, account_id=message.account_id)
    delivery.dispatcher().dispatch(job)
    delivery.dispatcher().dispatch(job)  # a duplicate of the job changes nothing

    stored = delivery.store.items[message.id]
    assert stored.recipients == {ANN: RecipientState.FAILED, BOB: RecipientState.FAILED}
    failed = [e for e in delivery.store.events if e.type is EventType.FAILED]
    assert [e.recipient for e in failed] == [ANN, BOB]
    assert all(e.data["reason"].startswith("the message could not be built (UnbuildableMessage") for e in failed)
    assert delivery.quotas.released == [("acct_1", 1, "2025-03", "2025-03-14", False)] * 2
    assert delivery.transport.handed == []


def test_the_last_receive_fails_what_cannot_start_instead_of_leaving_it_to_the_dead_letter_queue() -> None:
    delivery = Delivery("vault.open", None)
    message = delivery.accept()
    job = DispatchJob(message_id=message.id, account_id=message.account_id)
    for receive in (1, 7):
        with pytest.raises(ConnectionError):
            delivery.dispatcher().dispatch(job, receive_count=receive)
        delivery.store.leases.clear()
    assert delivery.store.events == []
    delivery.dispatcher().dispatch(job, receive_count=8)
    failed = [e for e in delivery.store.events if e.type is EventType.FAILED]
    assert {e.recipient for e in failed} == {ANN, BOB}
    assert failed[0].data["reason"] == "delivery could not start (ConnectionError: open is down)"


class CountingDomain(OneVerifiedDomain):
    """The sending domain, verified with a key, counting what the dispatcher adds to its sent_count."""

    def __init__(self) -> None:
        self.added: list[int] = []

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return SendingDomain(
            account_id=account_id,
            domain=domain,
            status=DomainStatus.VERIFIED,
            dkim_selector="s1",
            dkim_private_key="unused by this transport",
            id="dom_1",
            created_at=DEFAULT_START,
        )

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        self.added.append(copies)


class AcceptAll:
    def deliver(self, parcels: list[Parcel]) -> Any:
        return (Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok") for _ in parcels)


def test_a_queue_batch_adds_its_copies_to_the_domains_sent_count_once() -> None:
    """Per copy, every message of a big batch would update the one domain item (a hot key)."""
    delivery = Delivery("none", 0, domains=CountingDomain(), transport=AcceptAll())
    message = delivery.accept()
    job = DispatchJob(message_id=message.id, account_id=message.account_id)
    dispatcher = delivery.dispatcher()
    with dispatcher.batch():
        dispatcher.dispatch(job)
        assert delivery.domains.added == []  # not yet: at the end of the batch
    assert delivery.domains.added == [2]  # Ann's and Bob's copies, in one update
    delivery.accept("Again")  # stored afresh, both recipients queued
    delivery.dispatcher().dispatch(job)  # outside a batch: added at the end of the job
    assert delivery.domains.added == [2, 2]


class BounceAnnDeferBob:
    def deliver(self, parcels: list[Parcel]) -> Any:
        for parcel in parcels:
            if parcel.recipient == ANN:
                yield Outcome(OutcomeKind.BOUNCED, "550 5.1.1 no such user", BounceType.HARD)
            else:
                yield Outcome(OutcomeKind.DEFERRED, "451 4.3.0 try later")


def test_the_domains_sent_count_counts_what_the_metrics_sent_counts() -> None:
    """Every hand-over, bounced or not, as the `sent` events; a deferral is no hand-over (yet)."""
    delivery = Delivery("none", 0, domains=CountingDomain(), transport=BounceAnnDeferBob())
    message = delivery.accept()
    delivery.dispatcher().dispatch(DispatchJob(message_id=message.id, account_id=message.account_id))
    sent = [e for e in delivery.store.events if e.type is EventType.SENT]
    assert [e.recipient for e in sent] == [ANN]
    assert {e.type for e in delivery.store.events if e.recipient == BOB} == {EventType.DELAYED}
    assert delivery.domains.added == [len(sent)]
