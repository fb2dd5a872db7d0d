"""Accepting email: single and batch sends, reading a message, scheduled sends and cancelling them.

Acceptance answers 202 `queued` and leaves delivery to the dispatcher. In order: the operator's
hold (503), the template and its vars, rejected-before-send screening (still 202, with a
`rejected` event), the quota (429), then the content is sealed and the message stored with its
events. A message going out now gets its dispatch job from the messages table's stream (the
outbox, outbox.py), off the request's path: a stored message always gets its job, and a send that
fails leaves none. A scheduled message's job (a delayed message or a schedule, for its send_at) is
queued before its message is stored: a job whose message was never stored is dropped by the
dispatcher, while a stored message whose job was never queued would wait forever.

Calls that do not depend on each other go side by side (a send's time in AWS is its round trips).
A single send going out now without an Idempotency-Key makes its reads and its count at once: the
operator's hold, its template, its recipients' suppressions and a reservation of the quota for
each distinct recipient (one conditional UpdateItem); then it applies their answers in the order
above and stores the message. The reservation (_Reservation) is given back once, in part or
whole: what screening rejected, or all it holds when the send fails (503, 400, a failed store);
refused (429) for more recipients than go out, it counts those that do. At the limit, for the
milliseconds between a reservation and its give-back, a concurrent send within that many emails
of the limit may be refused (429) though it would have fitted: the count never passes the limit,
and which of two racing sends fits is a matter of milliseconds anyway. A keyed send (its charge
makes its retries exact), a scheduled send, a batch and a live send that credits may pay for
(pay-as-you-go, or a shared pool's: credits spent are not given back) count once screened. An
invocation that dies after counting and before storing leaves its count, as it did before: with
an Idempotency-Key the retry settles it exactly (its charge); without one the quota counts too
much, never too little.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from pydantic import ValidationError

from postline.accounts.domain import QuotaSource, live_sending_paused, retention_days
from postline.accounts.ports import AccountStore
from postline.domains.ports import SendingDomains
from postline.events.domain import Event, EventType, RejectReason, message_event, retention_expiry
from postline.keys.access import Environment, Scope
from postline.keys.domain import TestOutcomes
from postline.keys.identity import Principal
from postline.lists.domain import ListMember, MailingList
from postline.lists.ports import ListLookup, ListSendJobs, ListSendQueue
from postline.lists.sends import (
    MAX_REQUEST_CHARS,
    FailedMember,
    ListSend,
    ListSendResult,
    ListSendStatus,
    Outcome,
    PageResult,
    member_message_id,
    member_vars,
)
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import (
    MAX_SCHEDULE_DAYS,
    Content,
    IdempotentCall,
    Message,
    MessageStatus,
    RecipientState,
    Schedule,
    StoredMessage,
    message_status,
)
from postline.sending.mime_bodies import bodies_of
from postline.sending.models import (
    BatchSendRequest,
    BatchSendResult,
    MessageAccepted,
    MessageView,
    MimeSendRequest,
    RejectedRecipient,
    ScheduledMessage,
    ScheduledMessageCancellation,
    SendRequest,
)
from postline.sending.ports import ContentVault, DispatchQueue, Idempotency, IpPoolNames, MessageStore, Sealed
from postline.sending.screening import SUPPRESSED, rejections, routed_to_sandbox
from postline.shared.errors import Forbidden, NotFound, ServiceUnavailable, ValidationFailed
from postline.shared.ids import keyed_id
from postline.shared.pagination import Page, make_page
from postline.shared.parallel import outcomes, run_each
from postline.shared.ports import Clock, IdFactory, Meter
from postline.suppressions.ports import Suppressions
from postline.templates.domain import Template, TemplateNotFound, check_vars
from postline.templates.ports import Templates
from postline.templates.rendering import RenderBudget, batch_deadline, render_subject, render_text
from postline.usage.domain import day_key, month_key
from postline.usage.ports import QuotaStore
from postline.usage.quota import EmailLimits, email_limits, quota_refusal
from postline.verification.domain import effective_verify_before_send

MAX_REPORTED_REJECTIONS = 100
# Messages stored together: their items in full BatchWriteItems (a message, its body's item and its
# queued event are 150 items, 6 calls of 25), and a scheduled chunk's jobs in five SQS batches.
STORE_CHUNK = 50
SENDING_PAUSED_RETRY_AFTER = 60
# Metrics, by `send` (single, batch) and `mode` (live, test: simulated, as test-key and routed sends are):
MESSAGES_ACCEPTED = "MessagesAccepted"  # messages stored
RECIPIENTS_ACCEPTED = "RecipientsAccepted"  # recipients queued for delivery
RECIPIENTS_REJECTED = "RecipientsRejected"  # by `reason`: a batch's invalid ones, the rejected before send
SMTP = "smtp"  # the use case (idempotency scope, `send` dimension) of a message submitted over SMTP
INVALID = "invalid"  # the reason of a batch recipient that failed validation or repeats an address


@dataclass
class _Prepared:
    """A message ready to store: its content to seal and the events of its acceptance."""

    message: Message
    content: Content
    events: list[Event] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)  # recipient -> reason, rejected before send
    # A batch's later recipients naming this message's address again: (their index, `to` as given).
    repeats: list[tuple[int, str]] = field(default_factory=list)

    @property
    def deliverable(self) -> bool:
        return any(state is RecipientState.QUEUED for state in self.message.recipients.values())


Answer = TypeVar("Answer", MessageAccepted, BatchSendResult, ListSendResult)


class SendService:
    def __init__(
        self,
        *,
        messages: MessageStore,
        vault: ContentVault,
        queue: DispatchQueue,
        quotas: QuotaStore,
        suppressions: Suppressions,
        domains: SendingDomains,
        templates: Templates,
        accounts: AccountStore,
        check_webhook_url: Callable[[str], None],
        idempotency: Idempotency,
        ids: IdFactory,
        clock: Clock,
        meter: Meter,
        lists: ListLookup | None = None,
        list_sends: ListSendJobs | None = None,
        list_queue: ListSendQueue | None = None,
        ip_pools: IpPoolNames | None = None,
    ) -> None:
        self._ip_pools = ip_pools  # checks a send's ip_pool (without it: any name passes)
        self._lists = lists  # a send to a list's address is a list send (without these: none is)
        self._list_sends = list_sends
        self._list_queue = list_queue
        self._messages = messages
        self._check_webhook_url = check_webhook_url  # raises ValidationFailed
        self._vault = vault
        self._queue = queue
        self._quotas = quotas
        self._suppressions = suppressions
        self._domains = domains
        self._templates = templates
        self._accounts = accounts
        self._idempotency = idempotency
        self._ids = ids
        self._clock = clock
        self._meter = meter

    # -- sending ---------------------------------------------------------------------------

    def send(
        self,
        principal: Principal,
        request: SendRequest,
        idempotent: IdempotentCall | None = None,
        confirm: Callable[[], None] | None = None,
    ) -> MessageAccepted | ListSendResult:
        """POST /v3/messages; under an Idempotency-Key, a replay returns the first answer. A send
        whose `to` is one of the account's lists' addresses is a list send (lists/sends.py).
        `confirm`: the request's admission, when `principal` is speculative (auth/speculation.py):
        joined beside the send's reads, before anything durable is written (raising its refusal)."""
        self._check_ip_pool(principal, request.ip_pool)
        mailing_list = self._list_at(principal, request.to)
        if confirm is not None and (mailing_list is not None or idempotent is not None):
            confirm()  # before its job, or its Idempotency-Key's record
            confirm = None
        if mailing_list is not None:
            return self._send_to_list(principal, request, mailing_list, idempotent)
        names = _Names.of(self._ids, principal, "messages", idempotent)
        return self._once(
            idempotent, "messages", principal, MessageAccepted, lambda: self._send(principal, request, names, confirm)
        )

    def send_batch(
        self, principal: Principal, request: BatchSendRequest, idempotent: IdempotentCall | None = None
    ) -> BatchSendResult | ListSendResult:
        """POST /v3/messages.batch; under an Idempotency-Key, a replay returns the first answer. A
        batch of one recipient whose `to` is a list's address is a list send, that recipient's vars
        and overrides applying to every member."""
        self._check_ip_pool(principal, request.ip_pool)
        if len(request.recipients) == 1:
            mailing_list = self._list_at(principal, [request.recipients[0].to])
            if mailing_list is not None:
                try:
                    single = _single(request, 0)
                except ValidationError as error:
                    raise ValidationFailed(f"recipients[0]: {_reason(error)}") from error
                return self._send_to_list(principal, single, mailing_list, idempotent, scope="messages.batch.list")
        names = _Names.of(self._ids, principal, "messages.batch", idempotent)
        return self._once(
            idempotent,
            "messages.batch",
            principal,
            BatchSendResult,
            lambda: self._send_batch(principal, request, names),
        )

    def _check_ip_pool(self, principal: Principal, reference: str | None) -> None:
        if reference and self._ip_pools is not None and not self._ip_pools.exists(principal.account.id, reference):
            raise ValidationFailed(
                f"ip_pool: no IP pool {reference!r} in this account or the platform's (GET /v3/ip-pools)"
            )

    def _once(
        self,
        idempotent: IdempotentCall | None,
        scope: str,
        principal: Principal,
        model: type[Answer],
        produce: Callable[[], Answer],
    ) -> Answer:
        if idempotent is None:
            return produce()
        return self._idempotency.once(
            idempotent, scope=scope, account_id=principal.account.id, env=principal.env, model=model, produce=produce
        )

    def _send(
        self, principal: Principal, request: SendRequest, names: _Names, confirm: Callable[[], None] | None = None
    ) -> MessageAccepted:
        request.check_recipient_limits()
        request.check_attachments()
        if request.webhook_url:
            self._check_webhook_url(str(request.webhook_url))
        now = self._clock.now()
        send_at = _send_at(request.send_at, now)
        addresses = [*request.to, *request.cc, *request.bcc]
        message_id = names.message(0)
        reservation = self._reservation(principal, names, send_at, addresses, now)
        try:
            reads = self._reads_of_one(principal, request.template_id, addresses, reservation, confirm)
            template = reads.answer("template", None)
            item = self._prepare(principal, request, template, send_at, now, message_id=message_id)
            suppressed = reads.answer("suppressed", set())
            return self._accept_one(
                principal, item, names, send_at, now, send="single", suppressed=suppressed, reservation=reservation
            )
        except Exception:  # an invocation that dies (BaseException in the crash harness) gives nothing back
            self._give_back(reservation)
            raise

    def _reads_of_one(
        self,
        principal: Principal,
        template_id: str | None,
        addresses: list[str],
        reservation: _Reservation | None = None,
        confirm: Callable[[], None] | None = None,
    ) -> _Reads:
        """A single send's reads, which do not depend on each other, side by side: the operator's hold
        (a live send's), the template and the recipients' suppressions, and with a `reservation` its
        count. The hold is applied here (503); the caller takes the others' answers (or their
        failures) where it checked them one after another, so a send answers what it always
        answered (the reservation's, in _commit). With `confirm` (a speculative principal's
        admission, auth/speculation.py) the admission is made beside them and applied first: its
        refusal is the send's, the reservation given back by the caller."""
        reads: dict[str, Callable[[], Any]] = {}
        if confirm is not None:
            reads["admitted"] = confirm
        if reservation is not None:
            reads["reserve"] = lambda: self._reserve(reservation)
        if principal.env is Environment.LIVE:
            # Read each time (consistent), not cached per instance: the operator's hold stops the very
            # next send, and beside the suppressions' read it costs no time.
            reads["paused"] = self._accounts.platform_sending_paused
        if template_id is not None:
            reads["template"] = lambda: self._template(principal, template_id)
        if addresses:
            reads["suppressed"] = lambda: self._suppressions.suppressed(principal.account.id, addresses)
        results, failures = outcomes(*reads.values())
        found = _Reads(dict(zip(reads, zip(results, failures, strict=True), strict=True)))
        if reservation is not None:
            reservation.stopped, reservation.failure = found.found["reserve"]
            if reservation.failure is None and reservation.stopped is None:
                reservation.held = reservation.count
        found.answer("admitted", None)
        self._check_not_paused(principal, platform_paused=found.answer("paused", False))
        return found

    def _reservation(
        self,
        principal: Principal,
        names: _Names,
        send_at: datetime | None,
        addresses: list[str],
        now: datetime,
    ) -> _Reservation | None:
        """What a single send going out now, without an Idempotency-Key, counts beside its screening
        reads (each distinct recipient); None for any other send, which counts once screened (see
        the module's docstring)."""
        test = principal.env is Environment.TEST
        if names.keyed or send_at is not None or not addresses:
            return None
        if not test and principal.account.quota_source is not QuotaSource.OWN_PLAN:
            return None  # credits may pay (its own or its pool's): spent, they are not given back
        return _Reservation(
            account_id=principal.account.id,
            count=len({address.lower() for address in addresses}),
            month=month_key(now),
            day=day_key(now),
            limits=email_limits(principal.account, test=test),
        )

    def _reserve(self, reservation: _Reservation) -> str | None:
        return self._quotas.consume_emails(
            reservation.account_id,
            reservation.count,
            month=reservation.month,
            day=reservation.day,
            limits=reservation.limits,
        )

    def _settle(self, reservation: _Reservation, count: int, now: datetime) -> None:
        """Makes a reservation the count of the emails going out (`count`, once screened): gives back
        what screening rejected, or, where the reservation was refused, counts what goes out if it
        is fewer; raises what the reservation's call raised, and the quota's 429 (the send's
        failure gives back what is still held: _give_back). From here _commit accounts for `count`."""
        if reservation.failure is not None:
            raise reservation.failure  # counted or not, unknown: the quota may count too much, never too little
        if reservation.held > count:
            self._release(reservation, reservation.held - count)  # the rejected recipients' emails
        elif count > reservation.held:
            # Refused for as many as go out (or more): refused. Refused for more: count those that go out.
            stopped = reservation.stopped if count >= reservation.count else None
            if stopped is None:
                stopped = self._reserve(replace(reservation, count=count - reservation.held))
            if stopped is not None:
                raise quota_refusal(stopped, reservation.limits, now)
            reservation.held = count
        reservation.held = 0  # _commit's now: it gives back what it does not store

    def _give_back(self, reservation: _Reservation | None) -> None:
        """A send that failed gives back what its reservation still holds (all of it before _settle,
        nothing after: _commit gives back what it did not store). An invocation that dies gives
        nothing back: the quota counts too much, never too little."""
        if reservation is None:
            return
        self._release(reservation, reservation.held)

    def _release(self, reservation: _Reservation, count: int) -> None:
        if count > 0:
            self._quotas.release_emails(
                reservation.account_id,
                count,
                month=reservation.month,
                day=reservation.day,
                test=reservation.limits.test,
            )
            reservation.held -= count

    def _accept_one(
        self,
        principal: Principal,
        item: _Prepared,
        names: _Names,
        send_at: datetime | None,
        now: datetime,
        *,
        send: str,
        suppressed: set[str] | None = None,
        reservation: _Reservation | None = None,
    ) -> MessageAccepted:
        """Screens, counts, queues and stores one prepared message (what an earlier try of a keyed send
        stored is not stored again); the 202's body. `suppressed`: its recipients' suppressions, read
        already; `reservation`: its count (and job) made beside them."""
        message = item.message
        stored, now = self._stored_before([item], names, now)
        prepared = self._screen(principal, [item], now, suppressed)
        fresh = self._commit(principal, prepared, send_at, now, stored, charge=names.charge(), reservation=reservation)
        self._count_accepted(principal, send, fresh)
        return MessageAccepted(
            id=message.id,
            created_at=message.created_at,
            from_=message.from_,
            to=message.to,
            tags=message.tags,
            headers=message.headers,
        )

    def _send_batch(self, principal: Principal, request: BatchSendRequest, names: _Names) -> BatchSendResult:
        request.check_limits()
        if request.webhook_url:
            self._check_webhook_url(str(request.webhook_url))
        self._check_not_paused(principal)
        now = self._clock.now()
        send_at = _send_at(request.send_at, now)
        template = self._template(principal, request.template_id)
        batch_id = names.batch()
        render_until = batch_deadline()  # each recipient renders under its own budget, all under this
        prepared: list[_Prepared] = []
        rejected: list[RejectedRecipient] = []
        seen: dict[str, tuple[int, _Prepared]] = {}  # lowercased address -> its first recipient's
        shared = _shared(request)  # dumped once, not once per recipient
        for index, recipient in enumerate(request.recipients):
            try:
                single = _single(request, index, shared)
                address = single.to[0]
                if address.lower() in seen:
                    # Sent once: the first recipient's message records this one as a duplicate event.
                    first, repeated = seen[address.lower()]
                    repeated.repeats.append((index, recipient.to.strip()))
                    reason = f"duplicate: the address of recipient {first}, which is sent once"
                    rejected.append(RejectedRecipient(index=index, to=recipient.to.strip(), reason=reason))
                    continue
                item = self._prepare(
                    principal,
                    single,
                    template,
                    send_at,
                    now,
                    message_id=names.message(index),
                    batch_id=batch_id,
                    render_until=render_until,
                )
            except ValidationError as error:
                rejected.append(RejectedRecipient(index=index, to=recipient.to.strip(), reason=_reason(error)))
                continue
            except ValidationFailed as error:
                rejected.append(RejectedRecipient(index=index, to=recipient.to.strip(), reason=error.message))
                continue
            seen[address.lower()] = (index, item)
            prepared.append(item)
        stored, now = self._stored_before(prepared, names, now)
        prepared = self._screen(principal, prepared, now)
        fresh = self._commit(principal, prepared, send_at, now, stored, charge=names.charge())
        self._count_accepted(principal, "batch", fresh, invalid=len(rejected))
        return BatchSendResult(
            batch_id=batch_id,
            accepted=len(prepared),
            rejected=len(rejected),
            message_ids=[item.message.id for item in prepared],
            rejected_recipients=rejected[:MAX_REPORTED_REJECTIONS] or None,
        )

    # -- sending to a list (lists/sends.py) ------------------------------------------------------

    def _list_at(self, principal: Principal, to: list[str]) -> MailingList | None:
        """The account's list whose address is the one `to` holds; None for any other `to` (one read,
        none when the account has no lists: its list_count, read with it by auth)."""
        if self._lists is None or len(to) != 1 or principal.account.list_count == 0:
            return None
        list_id = self._lists.list_id_at(principal.account.id, to[0].strip().lower())
        return self._lists.get_list(principal.account.id, list_id) if list_id else None

    def _refuse_lists_among(self, principal: Principal, recipients: list[str]) -> None:
        """SMTP's envelope has no to/cc: a list's address among several recipients cannot be a list
        send (nor mailed as a mailbox). One BatchGetItem per 100, only when the account has lists."""
        if self._lists is None or len(recipients) < 2 or principal.account.list_count == 0:
            return
        found = self._lists.list_addresses_among(principal.account.id, [r.strip().lower() for r in recipients])
        if found:
            raise ValidationFailed(
                f"RCPT TO: {sorted(found)[0]} is a mailing list's address; a message to a list must have it "
                "as its only recipient (each member is sent a copy alone)."
            )

    def _send_to_list(
        self,
        principal: Principal,
        request: SendRequest,
        mailing_list: MailingList,
        idempotent: IdempotentCall | None,
        *,
        scope: str = "messages.list",
    ) -> ListSendResult:
        names = _Names.of(self._ids, principal, scope, idempotent)
        return self._once(
            idempotent, scope, principal, ListSendResult, lambda: self._start_list_send(principal, request,
                                                                                       mailing_list, names)
        )  # fmt: skip

    def _start_list_send(
        self, principal: Principal, request: SendRequest, mailing_list: MailingList, names: _Names
    ) -> ListSendResult:
        """Checks what can be checked once (the request, the template, the operator's hold), stores the
        job and queues it: the list worker sends, page by page (send_list_page)."""
        if self._list_sends is None or self._list_queue is None:
            raise ServiceUnavailable("Sending to lists is not available here.")
        if request.cc or request.bcc:
            raise ValidationFailed(
                "cc, bcc: a send to a mailing list goes to each subscribed member alone; cc and bcc are not "
                "taken with a list address in `to`."
            )
        if request.attachments:
            raise ValidationFailed("attachments: a send to a mailing list takes no attachments.")
        if request.webhook_url:
            self._check_webhook_url(str(request.webhook_url))
        self._check_not_paused(principal)
        now = self._clock.now()
        send_at = _send_at(request.send_at, now)
        self._template(principal, request.template_id)  # 400 template_not_found now, not per member
        stored = request.model_dump(
            mode="json", by_alias=True, exclude={"to", "cc", "bcc", "vars", "send_at", "attachments"}, exclude_none=True
        )
        if len(json.dumps([stored, request.vars], default=str)) > MAX_REQUEST_CHARS:
            raise ValidationFailed(
                f"A send to a mailing list is at most {MAX_REQUEST_CHARS:,} characters of content and vars."
            )
        job = ListSend(
            id=names.list_send(),
            account_id=principal.account.id,
            list_id=mailing_list.id,
            list_address=mailing_list.address,
            key_id=principal.key.id if principal.key else None,
            key_account_id=principal.credential_account.id if principal.credential_account else None,
            user_id=principal.user_id,
            env=principal.env,
            request=stored,
            vars=request.vars,
            send_at=send_at,
            created_at=now,
        )
        if not self._list_sends.create(job):  # a keyed retry: the first try stored it
            found = self._list_sends.get(job.account_id, job.id)
            job = found if found is not None else job
        if job.status is ListSendStatus.PENDING:
            try:
                self._list_queue.enqueue_send(job.account_id, job.list_id, job.id, not_before=job.send_at)
            except Exception:
                self._list_sends.fail_pending(job.model_copy(update={
                    "status": ListSendStatus.FAILED, "error_message": "The send could not be queued.",
                    "completed_at": self._clock.now(),
                }))  # fmt: skip
                raise
        return ListSendResult.of(job)

    def send_list_page(self, principal: Principal, job: ListSend, members: list[ListMember]) -> PageResult:
        """The list worker's step: one personalized message per member, screened, counted, queued
        and stored as a batch's are (batch_id = the list send's id). Member messages have
        deterministic ids: what an earlier try of this page stored is counted, not stored again. A
        member whose message cannot be made is stored rejected (reason invalid_member): one
        member never stops the rest. Raises what stops the whole send (the operator's hold on live
        sending, the quota, the template deactivated)."""
        self._check_not_paused(principal)
        now = self._clock.now()
        send_at = _send_at(job.send_at, now)
        template = self._template(principal, job.request.get("template_id"))
        render_until = batch_deadline()
        prepared: list[_Prepared] = []
        failures: dict[str, str] = {}
        for member in dict((m.address, m) for m in members).values():
            message_id = member_message_id(job.id, member.address)
            try:
                single = SendRequest.model_validate(
                    {**job.request, "to": [member.address], "vars": member_vars(job.vars, member)}
                )
                item = self._prepare(principal, single, template, send_at, now, message_id=message_id,
                                     batch_id=job.id, render_until=render_until)  # fmt: skip
            except (ValidationError, ValidationFailed) as error:
                reason = _reason(error) if isinstance(error, ValidationError) else error.message
                failures[member.address] = reason
                prepared.append(self._invalid_member(principal, job, member.address, message_id, reason, now))
                continue
            item.message.list_id = job.list_id
            prepared.append(item)
        stored = self._messages.stored([item.message.id for item in prepared]) if prepared else {}
        fresh = [item for item in prepared if item.message.id not in stored]
        screened = self._screen(principal, [item for item in fresh if item.message.to[0] not in failures], now)
        fresh = [item for item in fresh if item.message.to[0] in failures] + screened
        # The page's charge: its retries (from the same checkpoint) find it, not a second count.
        charge = keyed_id("lpage_", job.id, job.cursor or "")
        committed = self._commit(principal, fresh, send_at, now, {}, charge=charge)
        self._count_accepted(principal, "list", committed)
        return self._page_result(principal, prepared, stored, failures)

    def _invalid_member(
        self, principal: Principal, job: ListSend, address: str, message_id: str, reason: str, now: datetime
    ) -> _Prepared:
        """A member no message could be made for: a message rejected at once, with its rejected event."""
        fields = job.request
        message = self._new_message(
            principal,
            id=message_id,
            batch_id=job.id,
            list_id=job.list_id,
            from_=fields.get("from", ""),
            to=[address],
            subject=fields.get("subject") or "",
            tags=fields.get("tags", []),
            headers=fields.get("headers", {}),
            metadata=fields.get("metadata", {}),
            template_id=fields.get("template_id"),
            webhook_url=fields.get("webhook_url"),
            status=MessageStatus.REJECTED,
            recipients={address: RecipientState.REJECTED},
            created_at=now,
        )
        retention = retention_days(principal.account, now)
        message.expires_at = retention_expiry(now, retention)
        data = {"reason": RejectReason.INVALID_MEMBER.value, "detail": reason}
        event = message_event(message, EventType.REJECTED, address, now, data, retention_days=retention)
        return _Prepared(message, Content(), [event], {address: RejectReason.INVALID_MEMBER.value})

    def _page_result(
        self,
        principal: Principal,
        prepared: list[_Prepared],
        stored: dict[str, StoredMessage],
        failures: dict[str, str],
    ) -> PageResult:
        """Each member's outcome: from this try's screening, or, for a message an earlier try stored,
        from its stored state (rejected: failed, suppressed or rejected as the address is now)."""
        result = PageResult(failures=[FailedMember(to=address, reason=reason) for address, reason in failures.items()])
        earlier = [
            item.message.to[0]
            for item in prepared
            if item.message.id in stored
            and item.message.to[0] not in failures
            and RecipientState.REJECTED in stored[item.message.id].recipients.values()
        ]
        suppressed = self._suppressions.suppressed(principal.account.id, earlier) if earlier else set()
        for item in prepared:
            address = item.message.to[0]
            if address in failures:
                outcome = Outcome.FAILED
            elif item.message.id in stored:
                rejected = RecipientState.REJECTED in stored[item.message.id].recipients.values()
                outcome = Outcome.ACCEPTED
                if rejected:
                    outcome = Outcome.SUPPRESSED if address.lower() in suppressed else Outcome.REJECTED
            elif not item.rejected:
                outcome = Outcome.ACCEPTED
            else:
                reason = next(iter(item.rejected.values()))
                suppressed_reasons = (SUPPRESSED, RejectReason.ALL_RECIPIENTS_SUPPRESSED.value)
                outcome = Outcome.SUPPRESSED if reason in suppressed_reasons else Outcome.REJECTED
            result.outcomes[address] = outcome
        return result

    def _prepare(
        self,
        principal: Principal,
        request: SendRequest,
        template: Template | None,
        send_at: datetime | None,
        now: datetime,
        *,
        message_id: str,
        batch_id: str | None = None,
        render_until: float | None = None,
    ) -> _Prepared:
        """One message of a send (or of a batch, one per recipient): rendered, not yet screened."""
        budget = RenderBudget.start(until=render_until)
        subject, html, text = _render(template, request.subject, request.html, request.text, request.vars, budget)
        message = self._new_message(
            principal,
            id=message_id,
            batch_id=batch_id,
            from_=request.from_,
            to=request.to,
            cc=request.cc,
            bcc=request.bcc,
            subject=subject,
            tags=request.tags,
            headers=request.headers,
            metadata=request.metadata,
            template_id=request.template_id,
            webhook_url=str(request.webhook_url) if request.webhook_url else None,
            track_opens=request.track_opens,
            track_clicks=request.track_clicks,
            ip_pool=request.ip_pool,
            schedule=Schedule.SCHEDULED if send_at else Schedule.NOW,
            send_at=send_at,
            created_at=now,
        )
        content = Content(
            html=html, text=text, vars=request.vars, attachments=request.attachments, reply_to=request.reply_to
        )
        return _Prepared(message, content)

    def _new_message(self, principal: Principal, **fields: Any) -> Message:
        """A message of `principal`'s, with what its key and account decide (test, routing, verification)."""
        outcomes = _test_outcomes(principal)
        routed = principal.env is Environment.LIVE and routed_to_sandbox(principal.account, principal.key)
        return Message(
            account_id=principal.account.id,
            key_id=principal.key_id,
            test=principal.env is Environment.TEST or routed,
            routed=routed,
            send_outcomes=outcomes.send if outcomes else None,
            verify_before_send=effective_verify_before_send(
                principal.key.verify_before_send if principal.key else None,
                None,  # the sending domain's own setting: sending domains have none yet
                principal.account.verify_before_send,
            ),
            verify_outcomes=outcomes.verify if outcomes else None,
            **{**fields, "ip_pool": fields.get("ip_pool") or principal.account.default_ip_pool_id},
        )

    def send_mime(
        self, principal: Principal, request: MimeSendRequest, idempotent: IdempotentCall | None = None
    ) -> MessageAccepted | ListSendResult:
        """A message submitted over SMTP: the same checks, quota, screening, storage and events as
        POST /v3/messages, delivered as submitted (no link or pixel rewriting: its bodies are the
        sender's bytes). Under X-Svc-Idempotency-Key, a resubmission returns the first answer.

        One envelope recipient that is a list's address makes it a list send, as POST /v3/messages
        to that address (each member's copy made from its subject and bodies: mime_bodies.py). A
        list's address among other recipients is refused, as a list `to` beside cc is over the API."""
        self._check_ip_pool(principal, request.ip_pool)
        mailing_list = self._list_at(principal, request.recipients)
        if mailing_list is not None:
            single = _list_request_of(request)
            return self._send_to_list(principal, single, mailing_list, idempotent, scope="smtp.list")
        self._refuse_lists_among(principal, request.recipients)
        names = _Names.of(self._ids, principal, SMTP, idempotent)
        return self._once(
            idempotent, SMTP, principal, MessageAccepted, lambda: self._send_mime(principal, request, names)
        )

    def _send_mime(self, principal: Principal, request: MimeSendRequest, names: _Names) -> MessageAccepted:
        request.check_recipient_limits()
        if request.template_id is not None:
            raise ValidationFailed(
                "X-Svc-Template: only a message to a mailing list's address is made from a template; any other "
                "is delivered as submitted."
            )
        if request.webhook_url:
            self._check_webhook_url(str(request.webhook_url))
        now = self._clock.now()
        message_id = names.message(0)
        reservation = self._reservation(principal, names, None, request.recipients, now)
        try:
            return self._accept_mime(principal, request, message_id, names, now, reservation)
        except Exception:  # an invocation that dies (BaseException in the crash harness) gives nothing back
            self._give_back(reservation)
            raise

    def _accept_mime(
        self,
        principal: Principal,
        request: MimeSendRequest,
        message_id: str,
        names: _Names,
        now: datetime,
        reservation: _Reservation | None,
    ) -> MessageAccepted:
        reads = self._reads_of_one(principal, None, request.recipients, reservation)
        suppressed = reads.answer("suppressed", set())
        message = self._new_message(
            principal,
            id=message_id,
            from_=request.from_,
            to=request.recipients,
            subject=request.subject,
            tags=request.tags,
            headers=request.headers,
            metadata=request.metadata,
            webhook_url=str(request.webhook_url) if request.webhook_url else None,
            track_opens=False,
            track_clicks=False,
            ip_pool=request.ip_pool,
            created_at=now,
        )
        item = _Prepared(message, Content(mime=request.mime.decode("latin-1")))
        return self._accept_one(
            principal, item, names, None, now, send=SMTP, suppressed=suppressed, reservation=reservation
        )

    def preview(self, principal: Principal, request: SendRequest) -> tuple[Message, Content]:
        """What POST /v3/messages would store for `request` (validated and rendered the same way), stored
        nowhere, queued nowhere and counted nowhere: the content check reads it (message_content)."""
        request.check_recipient_limits()
        request.check_attachments()
        now = self._clock.now()
        template = self._template(principal, request.template_id)
        item = self._prepare(principal, request, template, None, now, message_id=self._ids.new_id("msg_"))
        return item.message, item.content

    # -- reading and cancelling --------------------------------------------------------------

    def get(self, principal: Principal, message_id: str) -> MessageView:
        return MessageView.of(self._own(principal, message_id))

    def scheduled(self, principal: Principal, *, page: int, per_page: int) -> Page[ScheduledMessage]:
        found, total = self._messages.list_scheduled(principal.account.id, page=page, per_page=per_page)
        items = [ScheduledMessage.model_validate(m.model_dump(by_alias=True)) for m in found if m.send_at]
        return make_page(items, page=page, per_page=per_page, total_count=total)

    def cancel(self, principal: Principal, message_id: str) -> ScheduledMessageCancellation:
        message = self._own(principal, message_id)
        if principal.scope is Scope.SEND_ONLY and message.key_id != principal.key_id:
            raise Forbidden("A send_only key may cancel only the scheduled sends it made.", code="insufficient_scope")
        now = self._clock.now()
        if not _cancellable(message, now):
            raise ValidationFailed(
                f"Message {message_id} is not a scheduled send waiting to go out (status {message.status}); "
                "only scheduled sends can be cancelled before their send_at."
            )
        recipients = [r for r, state in message.recipients.items() if state is RecipientState.QUEUED]
        for recipient in recipients:
            message.recipients[recipient] = RecipientState.REJECTED
        message.status = message_status(list(message.recipients.values()))
        message.schedule = Schedule.CANCELLED
        retention = retention_days(principal.account, now)
        reason = {"reason": RejectReason.CANCELLED.value}
        events = [
            message_event(message, EventType.REJECTED, r, now, reason, retention_days=retention) for r in recipients
        ]
        if not self._messages.cancel(message, events, now):
            raise ValidationFailed(f"Message {message_id} went out or was cancelled meanwhile.")
        self._queue.unschedule(message.id)  # a schedule that fires anyway finds a cancelled message
        return ScheduledMessageCancellation(id=message.id, message="The scheduled send was cancelled.")

    # -- the steps ----------------------------------------------------------------------------

    def _own(self, principal: Principal, message_id: str) -> Message:
        message = self._messages.get(message_id)
        if message is None or message.account_id != principal.account.id:
            raise NotFound(f"No message {message_id} in this account.")
        return message

    def _check_not_paused(self, principal: Principal, *, platform_paused: bool | None = None) -> None:
        """503 while the operator holds live sending; `platform_paused`: the platform's hold, read already."""
        if principal.env is not Environment.LIVE:
            return
        if platform_paused is None:
            platform_paused = self._accounts.platform_sending_paused()
        if live_sending_paused(principal.account, platform_paused):
            raise ServiceUnavailable(
                "Live sending is paused by the operator; retry later.",
                code="sending_paused",
                retry_after=SENDING_PAUSED_RETRY_AFTER,
            )

    def _template(self, principal: Principal, template_id: str | None) -> Template | None:
        if template_id is None:
            return None
        template = self._templates.get_template(principal.account.id, template_id)
        if template is None or not template.active:
            raise TemplateNotFound(f"No active template {template_id} in this account.")
        return template

    def _screen(
        self, principal: Principal, prepared: list[_Prepared], now: datetime, suppressed: set[str] | None = None
    ) -> list[_Prepared]:
        """Queued events for everyone; rejected-before-send recipients get their rejected event.
        `suppressed`: the recipients' suppressions when the caller read them already."""
        account = principal.account
        retention = retention_days(account, now)
        verified: dict[str, bool] = {}
        if suppressed is None:
            addresses = [r for item in prepared for r in item.message.all_recipients]
            suppressed = self._suppressions.suppressed(account.id, addresses) if addresses else set()
        for item in prepared:
            message = item.message
            recipients = message.all_recipients
            domain = message.sender_domain
            leaves = not message.test  # simulated mail (test keys, routed sends) needs no domain, no sandbox pass
            if leaves and domain not in verified:
                verified[domain] = self._domains.is_verified(account.id, domain)
            rejected = rejections(
                recipients,
                leaves=leaves,
                domain_verified=verified.get(domain, False),
                account=account,
                suppressed=suppressed,
            )
            message.recipients = {
                r: RecipientState.REJECTED if r in rejected else RecipientState.QUEUED for r in recipients
            }
            message.attempts = {}
            message.expires_at = retention_expiry(now, retention)
            message.status = message_status(list(message.recipients.values()))
            item.events = [
                message_event(message, EventType.QUEUED, r, now, retention_days=retention) for r in recipients
            ]
            item.rejected = rejected
            rejected_at = now + timedelta(microseconds=1)  # after its queued event, as it happened
            item.events += [
                message_event(message, EventType.REJECTED, r, rejected_at, {"reason": reason}, retention_days=retention)
                for r, reason in rejected.items()
            ]
            item.events += _duplicate_events(item, now, retention)
        return prepared

    def _stored_before(
        self, prepared: list[_Prepared], names: _Names, now: datetime
    ) -> tuple[dict[str, StoredMessage], datetime]:
        """The messages an earlier try of this keyed send stored before it was cut off, and the time it
        accepted them, which this try takes on so that their events come out the same. Chunks are
        stored in order: when none of the first chunk is stored, nothing is (one read, fresh or not)."""
        ids = [item.message.id for item in prepared]
        if not names.keyed or not ids or not self._messages.stored(ids[:STORE_CHUNK]):
            return {}, now
        stored = self._messages.stored(ids)
        accepted = min(message.created_at for message in stored.values())
        for item in prepared:
            item.message.created_at = accepted
        return stored, accepted

    def _commit(
        self,
        principal: Principal,
        prepared: list[_Prepared],
        send_at: datetime | None,
        now: datetime,
        stored: dict[str, StoredMessage],
        *,
        charge: str | None = None,
        reservation: _Reservation | None = None,
    ) -> list[_Prepared]:
        """Stores (and queues, when scheduled) what `stored` (an earlier try's) lacks; returns what it
        stored. A `charge` names the quota's count (usage/ports.py): a retry of a try that died after
        it counts nothing. A `reservation` (a single unkeyed send's) is its count made already."""
        if stored:
            # That try's messages have their jobs (the outbox's, or queued before them when scheduled);
            # their events are put again in case it was cut off between a chunk's messages and their
            # events (same keys: a no-op where they were written).
            mended = [event for item in prepared if item.message.id in stored for event in _mended(item, stored)]
            self._messages.create([], [], mended)
        prepared = [item for item in prepared if item.message.id not in stored]
        if not prepared:
            return prepared
        count = sum(_queued_count(item) for item in prepared)
        test = principal.env is Environment.TEST
        limits = email_limits(principal.account, test=test)
        month, day = month_key(now), day_key(now)
        chunks = [prepared[start : start + STORE_CHUNK] for start in range(0, len(prepared), STORE_CHUNK)]
        if reservation is not None:
            self._settle(reservation, count, now)
        elif count:
            stopped = self._quotas.consume_emails(
                principal.account.id, count, month=month, day=day, limits=limits, charge=charge
            )
            if stopped is not None:
                raise quota_refusal(stopped, limits, now)
        started: list[int] = []  # chunks whose storing began
        finished: list[int] = []  # chunks stored: those are sent, whatever follows
        try:
            sealed = self._vault.seal([(item.message.id, item.content) for item in prepared])
            for item in prepared:
                if not item.deliverable:
                    item.message.schedule = Schedule.NOW  # nothing to wait for

            def commit(index: int) -> Callable[[], None]:
                def task() -> None:
                    started.append(index)
                    sealed_chunk = sealed[index * STORE_CHUNK : (index + 1) * STORE_CHUNK]
                    self._commit_chunk(chunks[index], sealed_chunk, send_at)

                return task

            # The first chunk alone, then the rest side by side: a retry learns from the first chunk
            # alone whether an earlier try stored anything (`_stored_before`).
            run_each([commit(0)], lambda _: finished.append(0))
            run_each([commit(index) for index in range(1, len(chunks))], lambda index: finished.append(index + 1))
        except BaseException:
            committed = sum(_queued_count(item) for index in finished for item in chunks[index])
            # A chunk cut off while it was stored may have made it in anyway.
            cut_off = [item for index in set(started) - set(finished) for item in chunks[index]]
            committed += self._emails_stored(cut_off)
            if count > committed:
                self._quotas.release_emails(
                    principal.account.id, count - committed, month=month, day=day, test=test, charge=charge
                )
            raise
        return prepared

    def _commit_chunk(self, chunk: list[_Prepared], sealed: list[Sealed], send_at: datetime | None) -> None:
        """Stores a chunk's messages and events; scheduled, queues their jobs first (a schedule firing
        before its message is stored finds it after a short wait). Messages going out now get theirs
        from the outbox."""
        if send_at is not None:
            self._schedule(chunk, send_at)
        events = [event for item in chunk for event in item.events]
        self._messages.create([item.message for item in chunk], sealed, events)

    def _schedule(self, chunk: list[_Prepared], send_at: datetime) -> None:
        """The dispatch jobs of a chunk's deliverable messages, for their send_at."""
        queued_at = self._clock.now()  # a resumed try's `now` is its first try's
        jobs = [
            DispatchJob(message_id=item.message.id, account_id=item.message.account_id, enqueued_at=queued_at)
            for item in chunk
            if item.deliverable
        ]
        if jobs:
            self._queue.enqueue(jobs, not_before=send_at)

    def _emails_stored(self, chunk: list[_Prepared]) -> int:
        """The emails of a chunk cut off while it was stored that made it in anyway (they will be sent,
        and a retry will not store them again); all of them when that cannot be read, so that the
        quota may count too much but never too little."""
        if not chunk:
            return 0
        try:
            stored = self._messages.stored([item.message.id for item in chunk])
        except Exception:
            return sum(_queued_count(item) for item in chunk)
        return sum(_queued_count(item) for item in chunk if item.message.id in stored)

    def _count_accepted(self, principal: Principal, send: str, prepared: list[_Prepared], *, invalid: int = 0) -> None:
        """The meter's counts of an accepted send, once it is stored: a replay under its
        Idempotency-Key returns the stored answer without coming here, so it counts once."""
        dimensions = {"send": send, "mode": _mode(principal)}
        if prepared:
            self._meter.count(MESSAGES_ACCEPTED, len(prepared), **dimensions)
            self._meter.count(RECIPIENTS_ACCEPTED, sum(_queued_count(item) for item in prepared), **dimensions)
        reasons = Counter(reason for item in prepared for reason in item.rejected.values())
        reasons[INVALID] += invalid
        for reason, count in reasons.items():
            if count:
                self._meter.count(RECIPIENTS_REJECTED, count, reason=reason, **dimensions)


@dataclass
class _Reservation:
    """A single send's emails counted beside its screening reads, before it is known how many of its
    recipients go out. What it holds is given back once: what screening rejected (_settle, after
    which _commit accounts for the rest), or all of it when the send fails before (_give_back)."""

    account_id: str
    count: int  # its distinct recipients
    month: str
    day: str
    limits: EmailLimits
    stopped: str | None = None  # the limit that refused the count
    failure: BaseException | None = None  # the count's own failure
    held: int = 0  # emails it counted and has not given back, until _commit takes them over


@dataclass(frozen=True)
class _Reads:
    """What reads made side by side found: by name, each one's result or its failure."""

    found: dict[str, tuple[Any, BaseException | None]]

    def answer(self, read: str, default: Any) -> Any:
        """The read's result (`default` when it was not made); its failure is raised here."""
        result, failure = self.found.get(read, (default, None))
        if failure is not None:
            raise failure
        return result


@dataclass(frozen=True)
class _Names:
    """The ids of one send's messages and batch: random, or under an Idempotency-Key derived from the
    account, environment, use case, key and recipient index, so that a retry of a request cut off
    mid-commit names the messages its first try stored (and stores only the rest)."""

    ids: IdFactory
    key: tuple[str, ...] = ()

    @classmethod
    def of(cls, ids: IdFactory, principal: Principal, scope: str, idempotent: IdempotentCall | None) -> _Names:
        if idempotent is None:
            return cls(ids)
        return cls(ids, (principal.account.id, principal.env.value, scope, idempotent.key))

    @property
    def keyed(self) -> bool:
        return bool(self.key)

    def message(self, index: int) -> str:
        return keyed_id("msg_", *self.key, str(index)) if self.key else self.ids.new_id("msg_")

    def batch(self) -> str:
        return keyed_id("batch_", *self.key) if self.key else self.ids.new_id("batch_")

    def charge(self) -> str | None:
        """A keyed send's quota charge (usage/ports.py): a retry of a try that died after counting finds it."""
        return keyed_id("charge_", *self.key) if self.key else None

    def list_send(self) -> str:
        return keyed_id("lsend_", *self.key) if self.key else self.ids.new_id("lsend_")


def _shared(request: BatchSendRequest) -> dict[str, Any]:
    """The fields a batch's recipients share, as _single lays each recipient's own over them."""
    return request.model_dump(by_alias=True, exclude={"recipients", "send_at"}, exclude_none=True)


def _single(request: BatchSendRequest, index: int, shared: dict[str, Any] | None = None) -> SendRequest:
    """A batch's recipient as a single send: the shared fields (`shared`, else dumped here) with the
    recipient's own over them."""
    recipient = request.recipients[index]
    shared = _shared(request) if shared is None else shared
    overrides = recipient.model_dump(exclude_none=True, exclude={"to", "vars"})
    return SendRequest.model_validate(
        {**shared, **overrides, "to": [recipient.to], "vars": recipient.vars, "send_at": request.send_at}
    )


def _duplicate_events(item: _Prepared, now: datetime, retention: int) -> list[Event]:
    """A `duplicate` event for each extra occurrence of a recipient's address: across the message's
    to, cc and bcc (data: field, position, address as given), and a batch's later recipients naming
    it again (data: index, address as given). Its recipient is the one sent the single copy."""
    message = item.message
    events = [
        message_event(
            message,
            EventType.DUPLICATE,
            repeat.recipient,
            now,
            repeat.data(),
            retention_days=retention,
            step=f"{repeat.field}:{repeat.position}",
        )
        for repeat in message.duplicates()
    ]
    events += [
        message_event(
            message,
            EventType.DUPLICATE,
            message.to[0],
            now,
            {"index": index, "address": given},
            retention_days=retention,
            step=f"batch:{index}",
        )
        for index, given in item.repeats
    ]
    return events


def _mended(item: _Prepared, stored: dict[str, StoredMessage]) -> list[Event]:
    """The acceptance events of a message an earlier try stored, as that try wrote them: every
    queued and duplicate event, and a rejected one where the stored message rejected the recipient too."""
    recipients = stored[item.message.id].recipients
    return [
        event
        for event in item.events
        if event.type in (EventType.QUEUED, EventType.DUPLICATE)
        or (event.recipient is not None and recipients.get(event.recipient) is RecipientState.REJECTED)
    ]


def _mode(principal: Principal) -> str:
    """test for a simulated send (a test key's, or a live one routed to the sandbox), else live."""
    simulated = principal.env is Environment.TEST or routed_to_sandbox(principal.account, principal.key)
    return (Environment.TEST if simulated else Environment.LIVE).value


def _render(
    template: Template | None,
    subject: str | None,
    html: str | None,
    text: str | None,
    variables: dict[str, Any],
    budget: RenderBudget,
) -> tuple[str, str | None, str | None]:
    """The request's own subject/html/text win over the template's; only template text is rendered,
    the three parts under one budget."""
    if template is None:
        return subject or "", html, text
    check_vars(template, variables)
    if subject is None:
        subject = render_subject(template.subject, variables, budget=budget)
    return (
        subject,
        html if html is not None else render_text(template.html, variables, html=True, budget=budget),
        text if text is not None else render_text(template.text_body, variables, budget=budget),
    )


def _queued_count(item: _Prepared) -> int:
    return sum(1 for state in item.message.recipients.values() if state is RecipientState.QUEUED)


def _send_at(requested: datetime | None, now: datetime) -> datetime | None:
    """None to send now (also for a send_at already past); the time otherwise, within bounds."""
    if requested is None or requested <= now:
        return None
    if requested > now + timedelta(days=MAX_SCHEDULE_DAYS):
        raise ValidationFailed(f"send_at: at most {MAX_SCHEDULE_DAYS} days ahead.")
    return requested


def _test_outcomes(principal: Principal) -> TestOutcomes | None:
    """The simulator's weights: a test key's own, stored on each of its messages."""
    if principal.env is not Environment.TEST or principal.key is None:
        return None
    return principal.key.test_outcomes


def _list_request_of(request: MimeSendRequest) -> SendRequest:
    """The send an SMTP message to a list's address stands for: its From, X-Svc-* and custom
    headers, and its Subject and bodies, or, under X-Svc-Template, the template's, rendered with
    each member's variables (no tracking, as for any SMTP message)."""
    bodies = bodies_of(request.mime)
    if bodies.attachments:
        raise ValidationFailed("attachments: a send to a mailing list takes no attachments.")
    templated = request.template_id is not None
    fields: dict[str, Any] = {
        "from": request.from_,
        "to": request.recipients,
        "template_id": request.template_id,
        "subject": None if templated else request.subject,
        "text": None if templated else bodies.text,
        "html": None if templated else bodies.html,
        "tags": request.tags,
        "headers": request.headers,
        "metadata": request.metadata,
        "webhook_url": request.webhook_url,
        "reply_to": bodies.reply_to,
        "track_opens": False,
        "track_clicks": False,
    }
    try:
        return SendRequest.model_validate({name: value for name, value in fields.items() if value is not None})
    except ValidationError as error:
        raise ValidationFailed(f"a message to a mailing list: {_reason(error)}") from error


def _cancellable(message: Message, now: datetime) -> bool:
    return (
        message.schedule is Schedule.SCHEDULED
        and message.send_at is not None
        and message.send_at > now
        and message.status is MessageStatus.QUEUED
        and all(state in (RecipientState.QUEUED, RecipientState.REJECTED) for state in message.recipients.values())
    )


def _reason(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != 0)
    text = str(first.get("msg", "is invalid")).removeprefix("Value error, ")
    return f"{where}: {text}" if where else text
