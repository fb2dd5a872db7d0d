"""Delivering a queued message: claim it, render each recipient's copy, hand it over, record.

Every step is safe to repeat:
- a job whose message is not stored yet is retried for a short grace, then dropped (the API
  queues before it stores, and answered an error when the store failed);
- a cancelled message, or recipients whose last recorded attempt is not older than the job's,
  are skipped, so a redelivered or duplicated job sends nothing twice;
- one worker at a time holds a message's lease; a worker that dies leaves a lease that expires,
  and the queue's redelivery finishes the recipients it had not recorded;
- each recipient's new state is one conditional write that keeps its events, which follow it: a
  worker dying in between leaves them to the next claim of the message, or to a job that finds
  nothing left to do, which write them again as they were (sending/store.py).
With verify_before_send, each recipient is verified before its first hand-over (here, not in the
API: no DNS in a request's path); one that fails is rejected (failed_verification), the others go on.
Nothing accepted ends without a final event: a recipient whose copy cannot be built (a pure function
of the stored message, so it would fail again) is `failed` at once, and on the job's last receive
before the dead-letter queue, what could not even start (content, domain, transport, verification)
is `failed` too. A recipient failed before any hand-over gives its email back to the quota.
Where the dispatcher runs in Lambda and mail goes out over SMTP, live jobs are handed to the relay
task's queue instead (postline/relay), which runs this class without a relay: same steps, same records.
The one window no service can close is between a remote server's 250 and our write of it:
there, as with any MTA (RFC 1047), the recipient may get the message twice rather than never.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from postline.delivery.copies import check_basis, draft_of, recipient_copy, signed_copy
from postline.delivery.outcomes import (
    MAX_ATTEMPTS,
    BounceType,
    Outcome,
    OutcomeKind,
    classify_bounce,
    enhanced_code,
    retry_delay,
)
from postline.delivery.parcel import Parcel
from postline.events.domain import Event, EventType, RejectReason, message_event
from postline.keys.access import Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import PENDING, Content, Message, RecipientState, Schedule, message_status
from postline.shared.addresses import address_of
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.tracking.domain import LinkMaker
from postline.usage.domain import day_key, month_key
from postline.verification.domain import Verification, simulate_verification

if TYPE_CHECKING:
    from postline.content_checks.service import ContentChecker, KeptCopies
    from postline.delivery.ports import SourceAddresses, Transport
    from postline.domains.domain import SendingDomain
    from postline.domains.ports import SendingDomains
    from postline.sending.ports import ContentVault, DispatchQueue, MessageStore, Sealed
    from postline.shared.ports import Clock, Meter
    from postline.suppressions.ports import Suppressions
    from postline.usage.ports import QuotaStore
    from postline.verification.service import Verifier

logger = logging.getLogger(__name__)
LEASE_SECONDS = 300  # longer than the dispatcher's timeout: a live lease means a live worker
MISSING_GRACE = timedelta(minutes=5)  # how long a job may wait for its message to be stored
# The API stores a message milliseconds after queueing its job; a worker that takes the job in
# between looks again for this long before handing the job back to the queue's visibility timeout.
STORE_WAIT_SECONDS = 2.0
_STORE_POLL_SECONDS = 0.05
# Metric: each recipient's recorded step, by `outcome` (the state it reached: sent, delivered,
# complained, bounced, deferred, failed, rejected) and `mode` (test: simulated, live).
DELIVERY_OUTCOMES = "DeliveryOutcomes"
# Receives of a job after which what could not start is failed rather than left to the send queue's
# dead-letter queue (its maxReceiveCount, 10, in infra/template.base.yaml).
LAST_RECEIVE = 8
_MAX_REASON = 300


class RetryLater(Exception):
    """The job cannot be finished now; the queue should deliver it again later."""


class Dispatcher:
    def __init__(
        self,
        *,
        messages: MessageStore,
        vault: ContentVault,
        queue: DispatchQueue,
        domains: SendingDomains,
        suppressions: Suppressions,
        transport_for: Callable[[Message], Transport],
        verifier: Verifier,
        links: LinkMaker | None,
        retention_days: Callable[[str], int],
        quotas: QuotaStore,
        clock: Clock,
        meter: Meter,
        worker_id: str,
        relay: DispatchQueue | None = None,
        pause: Callable[[float], None] = time.sleep,
        checker: ContentChecker | None = None,
        copies: KeptCopies | None = None,
        sources: SourceAddresses | None = None,
    ) -> None:
        """`relay`: where live messages' jobs are handed over instead of delivered here (the SMTP
        relay task's queue: a Lambda cannot open port 25). The relay task runs this same class
        without one, so the claim, the lease and the conditional records are the same code.
        `checker` and `copies`: a test-mode message's copies are kept and checked (content_checks)."""
        self._checker = checker
        self._copies = copies
        self._signers: dict[tuple[str, str], SendingDomain | None] = {}
        self._checks: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # reuse key -> (check, event data)
        self._messages = messages
        self._vault = vault
        self._queue = queue
        self._domains = domains
        self._suppressions = suppressions
        self._transport_for = transport_for
        self._verifier = verifier
        self._links = links
        self._retention_days = retention_days
        self._quotas = quotas
        self._clock = clock
        self._meter = meter
        self._worker_id = worker_id
        self._relay = relay
        self._pause = pause
        self._sources = sources  # the IP pools' source addresses (None: the host's own address)
        self._prefetched: dict[str, Message] = {}
        self._sent: Counter[tuple[str, str]] = Counter()  # (account, domain) -> copies handed over
        self._batching = False

    def prefetch(self, message_ids: list[str]) -> None:
        """Reads a queue batch's messages in one call, for each job's first look at its own (the
        claim re-reads it, so a copy read before an earlier job of the batch changed it is safe)."""
        self._prefetched = self._messages.get_many(message_ids)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Around a queue batch's jobs: the domains' sent_count is added once per domain at the end,
        not once per copy (every copy of a 5,000-recipient batch would update one item: a hot key)."""
        self._batching = True
        try:
            yield
        finally:
            self._batching = False
            self._count_sent()
            self._flush_copies()

    def dispatch(self, job: DispatchJob, *, receive_count: int = 1) -> None:
        """Delivers what the job names; raises to have the queue deliver the job again later."""
        try:
            self._dispatch(job, receive_count)
        finally:
            if not self._batching:
                self._count_sent()
                self._flush_copies()

    def _count_sent(self) -> None:
        sent, self._sent = self._sent, Counter()
        for (account_id, domain), copies in sent.items():
            self._domains.count_sent(account_id, domain, copies)

    def _dispatch(self, job: DispatchJob, receive_count: int) -> None:
        now = self._clock.now()
        message = self._stored(job, now)
        if message is None:
            if job.enqueued_at is not None and now - job.enqueued_at > MISSING_GRACE:
                return  # the API never stored it (and told its caller so): nothing to deliver
            raise RetryLater(f"message {job.message_id} is not stored yet")
        if message.schedule is Schedule.CANCELLED or not self._todo(message, job):
            if message.attempts:  # recorded before: the job before this one may have died before the events
                self._messages.settle(message.id)
            return
        if self._relay is not None and not message.test:
            # The relay task delivers it; a duplicate hand-over finds the lease or the records there.
            self._relay.enqueue([job])
            return
        owner = f"{self._worker_id}:{job.message_id}:{job.attempt}:{now.timestamp()}"
        claimed = self._messages.claim(job.message_id, owner, now, LEASE_SECONDS)
        if claimed is None:
            raise RetryLater(f"message {job.message_id} is being delivered by another worker")
        message, sealed = claimed
        released = False
        try:
            todo = self._todo(message, job)
            if todo and message.schedule is not Schedule.CANCELLED:
                last_receive = receive_count >= LAST_RECEIVE
                released = self._deliver(message, sealed, todo, job.attempt, owner, last_receive=last_receive)
        finally:
            if not released:
                self._messages.release(message, owner)

    def _stored(self, job: DispatchJob, now: datetime) -> Message | None:
        message = self._prefetched.pop(job.message_id, None) or self._messages.get(job.message_id)
        fresh = job.enqueued_at is None or now - job.enqueued_at < timedelta(seconds=30)
        waited = 0.0
        while message is None and fresh and waited < STORE_WAIT_SECONDS:
            self._pause(_STORE_POLL_SECONDS)
            waited += _STORE_POLL_SECONDS
            message = self._messages.get(job.message_id)
        return message

    def _todo(self, message: Message, job: DispatchJob) -> list[str]:
        wanted = job.recipients if job.recipients is not None else list(message.recipients)
        return [r for r in wanted if message.recipients.get(r) in PENDING and message.attempts.get(r, 0) < job.attempt]

    def _deliver(
        self, message: Message, sealed: Sealed, recipients: list[str], attempt: int, owner: str, *, last_receive: bool
    ) -> bool:
        """Hands over and records each recipient; True when the last record also gave the lease up
        (one write instead of a record and a release: most messages of a batch have one recipient)."""
        try:
            content = self._vault.open(message.id, sealed)
            domain = None if message.test else self._domains.verified_domain(message.account_id, message.sender_domain)
            # A test copy is kept as a live one would go: the domain's links and DKIM signature.
            signer = self._kept_copy_domain(message)
            transport = self._transport_for(message)
            # Before the first hand-over only: a recipient on a retry passed it then.
            verdicts = self._verify(message, recipients) if attempt == 1 else {}
        except Exception as error:
            if not last_receive:
                raise  # the queue delivers the job again
            logger.exception("delivery of %s could not start; failing its recipients", message.id)
            reason = f"delivery could not start ({_described(error)})"
            released = False
            for index, recipient in enumerate(recipients):
                released = self._fail(message, recipient, attempt, reason, owner, release=index == len(recipients) - 1)
            return released
        now = self._clock.now()
        released = False
        check: dict[str, Any] | None = None
        for index, recipient in enumerate(recipients):
            last = index == len(recipients) - 1
            verdict = verdicts.get(recipient)
            if verdict is not None and verdict.rejects:
                released = self._reject(message, recipient, attempt, verdict, owner, release=last)
                continue
            try:
                parcel = self._parcel(message, content, recipient, attempt, domain, now, signer=signer)
            except Exception as error:  # built from the stored message alone: it would fail again
                logger.exception("the copy of %s for a recipient could not be built", message.id)
                reason = f"the message could not be built ({_described(error)})"
                released = self._fail(message, recipient, attempt, reason, owner, release=last)
                continue
            if message.test and self._copies is not None:
                check = self._keep_copy(message, content, parcel, signer, check)
            handed_at = self._clock.now()
            outcome = _hand_over(transport, parcel)
            if parcel.ip_pool is not None or parcel.ip_pool_overflow is not None:  # on its events (filterable)
                source = {
                    "ip_pool": parcel.ip_pool,
                    "ip": parcel.source_ip,
                    "ip_pool_overflow": parcel.ip_pool_overflow,
                }
                outcome = replace(outcome, data={**outcome.data, **{k: v for k, v in source.items() if v}})
            released = self._record(
                message, recipient, attempt, outcome, owner, handed_at, last_receive=last_receive, release=last,
                sent_data=check,
            )  # fmt: skip
            if domain is not None and outcome.kind in _HANDED_OVER:
                self._sent[(message.account_id, domain.domain)] += 1
        return released

    def _fail(self, message: Message, recipient: str, attempt: int, reason: str, owner: str, *, release: bool) -> bool:
        """The recipient ends `failed` with `reason`; before any hand-over, its email goes back to the
        quota, once: only the write that records the failure (a repeat finds it done) releases it."""
        now = self._clock.now()
        retention = self._retention_days(message.account_id)
        event = message_event(
            message, EventType.FAILED, recipient, now, {"reason": reason}, retention_days=retention, step=attempt
        )
        saved = self._save(message, recipient, attempt, RecipientState.FAILED, [event], owner, now, release=release)
        if saved and attempt == 1:
            self._quotas.release_emails(
                message.account_id,
                1,
                month=month_key(message.created_at),
                day=day_key(message.created_at),
                test=message.test and not message.routed,  # a routed live send spent live quota
            )
        return saved

    def _verify(self, message: Message, recipients: list[str]) -> dict[str, Verification]:
        if not message.verify_before_send:
            return {}
        if message.test:
            return {r: simulate_verification(message.id, r, message.verify_outcomes) for r in recipients}
        return self._verifier.verify(recipients)

    def _reject(
        self, message: Message, recipient: str, attempt: int, verdict: Verification, owner: str, *, release: bool
    ) -> bool:
        now = self._clock.now()
        data = {"reason": RejectReason.FAILED_VERIFICATION.value, "verification": verdict.as_data()}
        retention = self._retention_days(message.account_id)
        event = message_event(message, EventType.REJECTED, recipient, now, data, retention_days=retention, step=attempt)
        return self._save(message, recipient, attempt, RecipientState.REJECTED, [event], owner, now, release=release)

    def _kept_copy_domain(self, message: Message) -> SendingDomain | None:
        """The domain that signs a test copy: read once per (account, domain) for the dispatcher's batch."""
        if not message.test or self._copies is None:
            return None
        named = (message.account_id, message.sender_domain)
        if named not in self._signers:
            self._signers[named] = self._domains.verified_domain(*named)
        return self._signers[named]

    def _flush_copies(self) -> None:
        """A batch's test copies sealed under one data key and written together (never fails a job)."""
        if self._copies is None:
            return
        try:
            self._copies.flush()
        except Exception:
            logger.exception("test-mode copies could not be kept")

    def _keep_copy(
        self,
        message: Message,
        content: Content,
        parcel: Parcel,
        signer: SendingDomain | None,
        check: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        """Keeps a test copy as handed over (the content route signs it with the domain's key when read,
        as the SMTP transport signs a live copy: an RSA signature costs more than the whole rest of a
        delivery) and, once per message, checks the signed copy (on the message's record; its summary on
        each `sent` event). A batch's message reuses the check of an earlier one of its batch only when
        what the check reads is the same (copies.py check_basis: its vars changed nothing of it); else
        it is checked itself. Never stops the hand-over."""
        assert self._copies is not None
        try:
            if check is None and self._checker is not None:
                reuse = f"{message.batch_id}/{check_basis(message, content)}" if message.batch_id else None
                found = self._checks.get(reuse) if reuse else None
                if found is None:
                    result = self._checker.check(
                        draft_of(message, content, signed_copy(parcel, signer), links=self._links, domain=signer),
                        account_id=message.account_id,
                        domain=signer,
                        reuse=reuse,
                    )
                    found = (result.model_dump(mode="json"), result.event_data())
                    if reuse:
                        self._checks[reuse] = found
                message.content_check, check = found  # on the record, with the recipient's state
            self._copies.keep(message.id, parcel.recipient, parcel.mime, message.expires_at)
        except Exception:
            logger.exception("the copy of %s could not be kept or checked", message.id)
        return check

    def _parcel(
        self,
        message: Message,
        content: Content,
        recipient: str,
        attempt: int,
        domain: SendingDomain | None,
        now: datetime,
        *,
        signer: SendingDomain | None = None,
    ) -> Parcel:
        mime = recipient_copy(message, content, recipient, links=self._links, domain=domain or signer, now=now)
        return Parcel(
            message_id=message.id,
            sender=address_of(message.from_),
            recipient=recipient,
            mime=mime,
            domain=domain,
            test=message.test,
            send_outcomes=message.send_outcomes,
            attempt=attempt,
            return_path=domain.envelope_sender(message.id) if domain else None,
            **self._source(message, recipient),
        )

    def _source(self, message: Message, recipient: str) -> dict[str, str | None]:
        """The parcel's ip_pool, source_ip, ip_pool_overflow and SES configuration set. A test copy is
        simulated: it names the pool and address a live one would leave from on its events (so test
        mode's pool reputation and event filters work), without spending a warming pool's day (the
        simulator binds nothing)."""
        if self._sources is None:
            return {}
        key, today = f"{message.id}:{recipient}", self._clock.now().date()
        picked = self._sources.pick(message.account_id, message.ip_pool, key, today, simulated=message.test)
        if picked is None:
            return {}
        return {
            "ip_pool": picked.pool_id,
            "source_ip": picked.ip,
            "ip_pool_overflow": picked.overflowed_from,
            "ses_configuration_set": picked.ses_configuration_set,
        }

    def _record(
        self,
        message: Message,
        recipient: str,
        attempt: int,
        outcome: Outcome,
        owner: str,
        handed_at: datetime,
        *,
        last_receive: bool,
        release: bool,
        sent_data: dict[str, Any] | None = None,
    ) -> bool:
        now = self._clock.now()
        retention = self._retention_days(message.account_id)
        order = iter(range(10))
        details = _details(outcome)

        def event(kind: EventType, data: dict[str, Any] | None = None) -> Event:
            merged = {k: v for k, v in {**details, **(data or {})}.items() if v is not None}
            if kind is EventType.SENT:  # the hand-over itself: what the MX then said is on the next event
                merged = {k: v for k, v in merged.items() if k not in _BOUNCE_DETAILS}
            # One step's events a microsecond apart: sent sorts before delivered, as it happened.
            at = now + timedelta(microseconds=next(order))
            return message_event(message, kind, recipient, at, merged, retention_days=retention, step=attempt)

        def sent() -> Event:
            # Latency (metrics): processing is acceptance (or the scheduled time) to the hand-over.
            started = message.send_at or message.created_at
            return event(EventType.SENT, {"processing_ms": _millis(handed_at - started), **(sent_data or {})})

        def delivered() -> Event:  # delivery latency: the hand-over to the recipient's MX's 250
            started = message.send_at or message.created_at
            return event(
                EventType.DELIVERED, {"delivery_ms": _millis(now - handed_at), "total_ms": _millis(now - started)}
            )

        events: list[Event]
        if outcome.kind is OutcomeKind.ACCEPTED:
            state, events = RecipientState.SENT, [sent()]
        elif outcome.kind is OutcomeKind.DELIVERED:
            state, events = RecipientState.DELIVERED, [sent(), delivered()]
        elif outcome.kind is OutcomeKind.COMPLAINED:
            state = RecipientState.COMPLAINED
            events = [sent(), delivered(), event(EventType.COMPLAINED)]
        elif outcome.kind is OutcomeKind.BOUNCED:
            # Every bounce follows a hand-over (sent), so bounced <= sent in every count.
            state, events = RecipientState.BOUNCED, [sent(), event(EventType.BOUNCED)]
        elif attempt < MAX_ATTEMPTS:
            retry_at = now + timedelta(seconds=retry_delay(attempt) or 0)
            try:
                # Queued before it is recorded: a crash in between repeats this attempt, never loses it.
                self._requeue(message, recipient, attempt + 1, retry_at)
                state = RecipientState.DEFERRED
                events = [event(EventType.DELAYED, {"retry_count": attempt, "next_retry_at": retry_at.isoformat()})]
            except Exception as error:
                if not last_receive:
                    raise
                logger.exception("the retry of %s could not be queued; failing the recipient", message.id)
                state = RecipientState.FAILED
                reason = f"the retry could not be scheduled ({_described(error)})"
                events = [event(EventType.FAILED, {"retry_count": attempt, "reason": reason})]
        else:
            state = RecipientState.FAILED
            events = [event(EventType.FAILED, {"retry_count": attempt, "reason": "retries exhausted"})]
        self._suppress(message, recipient, outcome, now)
        return self._save(message, recipient, attempt, state, events, owner, now, release=release)

    def _save(
        self,
        message: Message,
        recipient: str,
        attempt: int,
        state: RecipientState,
        events: list[Event],
        owner: str,
        now: datetime,
        *,
        release: bool,
    ) -> bool:
        """True when this wrote the step, and with `release` gave the lease up in the same write
        (False: a repeat found it recorded, or the lease was lost)."""
        message.recipients[recipient] = state
        message.attempts[recipient] = attempt
        message.status = message_status(list(message.recipients.values()))
        if state in (RecipientState.DELIVERED, RecipientState.COMPLAINED) and message.delivered_at is None:
            message.delivered_at = now
        recorded = self._messages.record(message, recipient, attempt, owner, events, release=release)
        if recorded:  # not when a repeat found it done
            self._meter.count(DELIVERY_OUTCOMES, outcome=state.value, mode=mode_of(message))
        return recorded

    def _suppress(self, message: Message, recipient: str, outcome: Outcome, now: datetime) -> None:
        """Hard bounces and complaints go on the account's lists (before the record: it repeats)."""
        kind = None
        if outcome.kind is OutcomeKind.BOUNCED and outcome.bounce_type is BounceType.HARD:
            kind = SuppressionType.BOUNCES
        elif outcome.kind is OutcomeKind.COMPLAINED:
            kind = SuppressionType.COMPLAINTS
        if kind is not None and not message.test:
            self._suppressions.add(
                message.account_id,
                recipient,
                kind,
                now,
                reason=outcome.smtp_response or outcome.reason,
                source=SuppressionSource.DELIVERY_REPORT,
            )

    def _requeue(self, message: Message, recipient: str, attempt: int, at: datetime) -> None:
        job = DispatchJob(
            message_id=message.id,
            account_id=message.account_id,
            attempt=attempt,
            recipients=[recipient],
            enqueued_at=self._clock.now(),
        )
        self._queue.enqueue([job], not_before=at)


def mode_of(message: Message) -> str:
    """The `mode` dimension of a message's metrics: test when it is simulated, else live."""
    return (Environment.TEST if message.test else Environment.LIVE).value


# A domain's sent_count counts what the metrics' `sent` counts: every hand-over with a `sent` event
# (see _record), delivered or bounced; not a deferral (4xx, retried: its later hand-over counts).
_HANDED_OVER = (OutcomeKind.ACCEPTED, OutcomeKind.DELIVERED, OutcomeKind.COMPLAINED, OutcomeKind.BOUNCED)


def _hand_over(transport: Transport, parcel: Parcel) -> Outcome:
    """One recipient's copy to the transport. A transport that fails unexpectedly defers this
    recipient (retried on the schedule) instead of stalling every recipient after it."""
    try:
        return next(iter(transport.deliver([parcel])))
    except Exception as error:
        logger.exception("transport failed for %s", parcel.message_id)
        return Outcome(OutcomeKind.DEFERRED, reason=f"internal transport error ({type(error).__name__})")


def _described(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:_MAX_REASON]


_BOUNCE_DETAILS = ("bounce_type", "bounce_class", "bounce_code")


def _millis(delta: timedelta) -> int:
    return max(0, int(delta.total_seconds() * 1000))


def _details(outcome: Outcome) -> dict[str, Any]:
    bounce_class = None
    if outcome.kind is OutcomeKind.BOUNCED:
        bounce_class = (outcome.bounce_class or classify_bounce(outcome.smtp_response)).value
    return {
        "smtp_response": outcome.smtp_response,
        "bounce_type": outcome.bounce_type.value if outcome.bounce_type else None,
        "bounce_class": bounce_class,
        "bounce_code": enhanced_code(outcome.smtp_response) if bounce_class else None,
        "reason": outcome.reason,
        "provider_message_id": outcome.provider_id,
        **outcome.data,
    }
