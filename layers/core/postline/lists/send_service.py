"""List sends after the 202: the list worker's fan-out (GET /v3/lists/{id}/sends/{send_id} reads the
job: lists/service.py).

POST /v3/messages to a list's address stores the job (pending) and queues it (sending/service.py).
The worker claims the job under a lease (sending), reads the list's subscribed members from the
job's cursor PAGE_MEMBERS at a time, and has the send service make, screen, count, queue and store
one message per member (send_list_page: the batch send's commit, its chunks written side by side).
After each page it stores the checkpoint (cursor and counts), conditional on still holding the job.
After PAGES_PER_RUN pages it gives the lease back and queues the job again, so every invocation is
bounded (100,000 members: 200 pages, 50 invocations); at the end of the list the job is done.

Pages side by side (`parallel_pages`, the deployed worker's PARALLEL_PAGES): the worker reads that
many pages of members one after another (a Query each, the cursor chaining them), sends them at
once (shared/parallel.py), and stores one checkpoint for the group: the pages in order, as one
page after another would have. A group that fails part-way stores the pages that finished before
the first unfinished one (the cursor can only move over a run of them); its later pages that did
finish are redone by the next attempt, which finds their messages stored and counts them then
(deterministic ids), or, when the send fails for good, stay mailed but uncounted (at most
parallel_pages - 1 pages). This needs the events table's keys sharded for a large account (events/
sharding.py): a group's `queued` events go to the account's day partitions at that rate.

Page tasks (`fanout_min_pages`, the deployed worker's FANOUT_MIN_PAGES = 3): a list that does not
end within two pages is not sent by its runs at all. Its first run reads three pages (not eight)
and, finding a third, hands the pages out instead: it reads each further page's bounds (the same
Query, returning only where the page ends: Select COUNT), records a batch of up to 10 (hand_out:
their bounds in an item of their own, then the job's handed_out, cursor and handing_from, a SET of
those fields under its attempt) and queues a page task for each (one SendMessageBatch: kind
send_page with the page's index, the address it starts after and the one it ends at), up to
LEAD_PAGES_PER_RUN pages a run. Each page task runs in
an invocation of its own (the list worker's SQS event source, its MaximumConcurrency explicit in
the template), as many side by side as that allows: it reads its page's members by their bounds
(lists/store.py subscribed_range: who joined or left since counts as now; no member falls between
two pages), sends them through the same page path (deterministic message ids, the page's quota
charge named by where it starts) and counts the page once: its counts ADDed to the job in one
transaction with the page's marker item, which must be new (lists/send_store.py). The page task
that finds every page handed out counted, the whole list handed out, ends the job done; a run
that dies after its record and before its queue call leaves them recorded, and the next delivery
of its message queues them again (a page counted is not sent again).
Failures: a page task redelivered by SQS redoes its page (stored messages are counted from what was
stored, not stored, queued or charged again); a stop (the quota, the sender gone, MAX_ATTEMPTS
deliveries) fails the job with the pages counted so far, and the other page tasks, finding it
failed, send nothing. Cancelling: a page task looks at the job first and sends nothing once it is
cancelling or cancelled; pages already being sent finish and are counted (those members were mailed).
A cancel that lands while page tasks add their counts may answer 409 (its audit entry states the
counts it read): retried, it lands. Lists of one or two pages stay on the runs' path: one
invocation sends them side by side, cheaper than three invocations and as fast.

An attempt that dies between a page's messages and its checkpoint leaves its lease to run out; the
message's redelivery claims the job as the next attempt and redoes that page from the checkpoint:
its messages have deterministic ids, so those already stored are counted from what was stored and
not stored (nor queued, nor charged to the quota) again.

Cancelling (lists/service.py `cancel_send`, the store's conditional moves in lists/send_store.py):
a job no attempt holds is cancelled at once, and its message, when it comes, is dropped. A job under
a live lease becomes cancelling: that attempt looks before each further page (one GetItem a page),
and its next checkpoint is refused, so it sends no further page; it stores the job as cancelled
with the counts of the pages it sent (a page in flight included: those members stay mailed). If
that attempt dies instead, the message's next delivery, once the lease has run out, ends the job
cancelled as its last checkpoint left it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from datetime import timedelta

from postline.accounts.ports import AccountStore
from postline.keys.access import Scope
from postline.keys.domain import ApiKey
from postline.keys.identity import Principal
from postline.lists.domain import ListMember
from postline.lists.ports import Keys, ListSender, ListSendJobs, ListSendQueue, ListStore, PrincipalSource
from postline.lists.sends import (
    ENDED,
    LEAD_PAGES_PER_RUN,
    PAGE_MEMBERS,
    PAGE_TASKS_PER_BATCH,
    PAGES_PER_RUN,
    RUNNING,
    ListSend,
    ListSendStatus,
    PageRange,
    PageResult,
    checkpointed,
    fanned_out_done,
)
from postline.shared.errors import ApiError
from postline.shared.parallel import run_each
from postline.shared.ports import Clock

LEASE = timedelta(seconds=330)  # the worker's 300 s timeout and a margin, under the queue's 360 s visibility
MAX_ATTEMPTS = 4  # deliveries of one message; then the job fails rather than waiting in the DLQ (5)
GAVE_UP = "The send could not be completed; the members counted so far were sent."
_NO_SENDER = "The API key (or account) that started this send no longer exists or may not send."


class ListSendBusyError(Exception):
    """Another attempt holds the job's lease: the message is retried after its visibility timeout."""


class _LostJobError(Exception):
    """A newer attempt took the job (this one's lease ran out): it carries on, this one stops."""


class _StopError(Exception):
    """The send cannot go on (its key or account is gone, the quota is spent): it fails as it stands."""


class ListSendService:
    def __init__(
        self,
        *,
        jobs: ListSendJobs,
        lists: ListStore,
        sender: ListSender,
        principals: PrincipalSource,
        queue: ListSendQueue,
        clock: Clock,
        page_members: int = PAGE_MEMBERS,
        pages_per_run: int = PAGES_PER_RUN,
        parallel_pages: int = 1,
        fanout_min_pages: int | None = None,
        lead_pages_per_run: int = LEAD_PAGES_PER_RUN,
    ) -> None:
        """fanout_min_pages: a list of at least that many pages is sent by page tasks (None: never)."""
        self._jobs = jobs
        self._lists = lists
        self._sender = sender
        self._principals = principals
        self._queue = queue
        self._clock = clock
        self._page_members = page_members
        self._pages_per_run = pages_per_run
        self._parallel_pages = max(1, parallel_pages)
        self._fanout_min_pages = fanout_min_pages
        self._lead_pages_per_run = lead_pages_per_run

    # -- the worker --------------------------------------------------------------------------------

    def run(self, account_id: str, send_id: str, *, receive_count: int) -> None:
        """Sends on from the job's checkpoint. Raises to have the message retried."""
        job = self._jobs.get(account_id, send_id)
        if job is not None and job.status is ListSendStatus.CANCELLING:
            # its cancel was recorded when asked for (lists/service.py): this only ends it
            if self._jobs.cancel_unheld(job, self._clock.now(), None) is None:  # its attempt still runs
                raise ListSendBusyError(f"list send {send_id} is being cancelled by the attempt sending it")
            return
        if job is None or job.status not in RUNNING:
            return  # done already, cancelled, or gone: a repeated message
        if job.send_at is not None and job.send_at > self._clock.now():  # came before its time
            self._queue.enqueue_send(account_id, job.list_id, send_id, not_before=job.send_at)
            return
        claimed = self._jobs.claim(job, self._clock.now(), LEASE)
        if claimed is None:
            raise ListSendBusyError(f"list send {send_id} is being sent by another attempt")
        if receive_count > MAX_ATTEMPTS:  # earlier attempts died without a word (timeouts): stop here
            self._fail(claimed, GAVE_UP)
            return
        try:
            principal = self._principals.principal_of(claimed)
            if principal is None:
                raise _StopError(_NO_SENDER)
            if claimed.handed_out is not None:  # sent by page tasks: this run hands the next pages out
                self._lead(claimed, [], redelivered=receive_count > 1)
            else:
                self._pages(principal, claimed)
        except _LostJobError:
            return
        except _StopError as error:
            self._fail(claimed, str(error))
        except ApiError as error:  # quota spent, template deactivated, sending paused by the operator
            self._fail(claimed, error.message)
        except Exception:
            if receive_count >= MAX_ATTEMPTS:
                with suppress(Exception):
                    self._fail(claimed, GAVE_UP)
                return
            if not self._jobs.release(claimed) and self._cancelled(self._latest(claimed)):
                return  # cancelled meanwhile: stopped as its last checkpoint left it
            raise

    def _pages(self, principal: Principal, job: ListSend) -> None:
        current, sent = job, 0
        while sent < self._pages_per_run:
            if sent and self._cancelled(current):  # cancelled since the last checkpoint: no further page
                return
            pages = min(self._parallel_pages, self._pages_per_run - sent)
            if self._may_fan_out(current):  # as many as it takes to tell: the rest only by their bounds
                pages = min(pages, self._fanout_min_pages or pages)
            group = self._read_group(current, pages)
            if self._fans_out(current, group):
                self._lead(current.model_copy(update={"handed_out": 0}), group)
                return
            if not sent:
                current = self._jobs.with_request(current)  # read once per run, not before a fan-out
            current, end = self._send_group(principal, current, group)
            sent += len(group)
            if end:  # the end of the list
                done = current.model_copy(
                    update={"status": ListSendStatus.DONE, "completed_at": self._clock.now(), "lease_until": None}
                )
                self._save(done)
                return
            current = self._save(current)
        # Bounded work per invocation: the next one goes on from this checkpoint.
        if not self._jobs.release(current):  # cancelled (ended here), or taken by a newer attempt
            self._cancelled(current)
            return
        self._queue.enqueue_send(current.account_id, current.list_id, current.id)

    def _may_fan_out(self, job: ListSend) -> bool:
        return self._fanout_min_pages is not None and not job.pages and job.cursor is None

    def _fans_out(self, job: ListSend, group: list[tuple[list[ListMember], str | None]]) -> bool:
        """Whether a job's first run hands its pages out to page tasks: a list that does not end
        within fanout_min_pages - 1 pages (a shorter one is sent by this run, as it costs less)."""
        if not self._may_fan_out(job) or self._fanout_min_pages is None:
            return False
        return len(group) >= self._fanout_min_pages or group[-1][1] is not None

    def _lead(
        self, job: ListSend, group: list[tuple[list[ListMember], str | None]], *, redelivered: bool = False
    ) -> None:
        """The run of a job sent by page tasks: from the job's cursor (`group`: the pages read there
        already), it reads the pages' bounds and hands them out, PAGE_TASKS_PER_BATCH at a time:
        first the record (hand_out: their bounds, the cursor after them), then their page tasks. A
        run that dies between the two leaves them recorded, and the next delivery of its message queues
        again (a page is counted once, whoever sends it). At the end of the list the page tasks end
        the job; after lead_pages_per_run pages the run gives the lease back and queues the job again."""
        current = job
        if redelivered and (handing := self._jobs.handing(current)):  # maybe never queued: its run died first?
            self._queue.enqueue_pages(current.account_id, current.list_id, current.id, handing)
        if current.read_all:  # a repeated message after the last pages were handed out
            if not self._jobs.release(current):
                self._cancelled(self._latest(current))
            self._end_if_done(self._jobs.get(current.account_id, current.id))
            return
        cursor = current.cursor
        bounds: list[tuple[str | None, str | None]] = []  # pages read, not yet handed out
        for _, after in group:
            bounds.append((cursor, after))
            cursor = after
        ended = bool(group) and group[-1][1] is None
        handed = 0
        while True:
            while not ended and len(bounds) < PAGE_TASKS_PER_BATCH and handed + len(bounds) < self._lead_pages_per_run:
                after = self._lists.subscribed_page_end(current.list_id, after=cursor, limit=self._page_members)
                bounds.append((cursor, after))
                cursor, ended = after, after is None
            batch, bounds = bounds[:PAGE_TASKS_PER_BATCH], bounds[PAGE_TASKS_PER_BATCH:]
            last = ended and not bounds
            base = current.handed_out or 0
            pages = [PageRange(index=base + n, after=low, through=high) for n, (low, high) in enumerate(batch)]
            stored = self._jobs.hand_out(current, pages, cursor=pages[-1].through, read_all=last)
            if stored is None:  # cancelling (it ends here), or taken by a newer attempt
                self._cancelled(current)
                return
            self._queue.enqueue_pages(current.account_id, current.list_id, current.id, pages)
            current, handed = stored, handed + len(pages)
            if last:
                return  # the page tasks end it: the last one counted finds every page handed out counted
            if handed >= self._lead_pages_per_run and not bounds:
                if not self._jobs.release(current):
                    self._cancelled(current)
                    return
                self._queue.enqueue_send(current.account_id, current.list_id, current.id)
                return

    # -- a page task -----------------------------------------------------------------------------------

    def run_page(self, account_id: str, send_id: str, page: PageRange, *, receive_count: int) -> None:
        """A page task: sends its page's members (the page path: deterministic message ids) and
        counts the page once; the page counted last ends the job. Raises to have the message retried
        (a redone page stores, queues, charges and counts nothing twice)."""
        job = self._jobs.get(account_id, send_id)
        if job is None or job.status is not ListSendStatus.SENDING or job.handed_out is None:
            return  # ended (done, failed, cancelled) or being cancelled: no further page
        if self._jobs.page_counted(job, page.index):  # a repeated message
            self._end_if_done(job)
            return
        if receive_count > MAX_ATTEMPTS:
            self._fail_fanned_out(job, GAVE_UP)
            return
        try:
            principal = self._principals.principal_of(job)
            if principal is None:
                self._fail_fanned_out(job, _NO_SENDER)
                return
            members = self._lists.subscribed_range(job.list_id, after=page.after, through=page.through)
            # the cursor the page starts from names its quota charge, as a run's page (sending: send_list_page)
            paged = self._jobs.with_request(job).model_copy(update={"cursor": page.after})
            result = self._sender.send_list_page(principal, paged, members) if members else None
        except ApiError as error:  # quota spent, template deactivated, sending paused by the operator
            self._fail_fanned_out(job, error.message)
            return
        except Exception:
            if receive_count >= MAX_ATTEMPTS:
                with suppress(Exception):
                    self._fail_fanned_out(job, GAVE_UP)
                return
            raise
        counted = self._jobs.count_page(job, page.index, result or PageResult())
        self._end_if_done(counted or self._jobs.get(account_id, send_id))

    def _end_if_done(self, job: ListSend | None) -> None:
        if job is not None and job.status is ListSendStatus.SENDING and fanned_out_done(job):
            ended = job.model_copy(update={"completed_at": self._clock.now()})
            self._jobs.end_fanned_out(ended, ListSendStatus.DONE, held={ListSendStatus.SENDING})

    def _fail_fanned_out(self, job: ListSend, message: str) -> bool:
        """Fails a job of page tasks with its counts as stored (the pages counted so far): its other
        page tasks then send nothing."""
        ended = job.model_copy(update={"completed_at": self._clock.now()})
        held = {ListSendStatus.SENDING}
        return self._jobs.end_fanned_out(ended, ListSendStatus.FAILED, held=held, error_message=message) is not None

    def _read_group(self, job: ListSend, pages: int) -> list[tuple[list[ListMember], str | None]]:
        """Up to `pages` pages of members from the job's cursor, each with the cursor after it (None:
        the list ends there)."""
        group: list[tuple[list[ListMember], str | None]] = []
        cursor = job.cursor
        for _ in range(pages):
            members, after = self._lists.subscribed_page(job.list_id, after=cursor, limit=self._page_members)
            group.append((members, after))
            if after is None:
                break
            cursor = after
        return group

    def _send_group(
        self, principal: Principal, job: ListSend, group: list[tuple[list[ListMember], str | None]]
    ) -> tuple[ListSend, bool]:
        """Sends the group's pages side by side; the job with them all checkpointed, and whether the
        list ended. On a failure, stores the pages that finished before the first unfinished one,
        then raises it."""
        results: list[PageResult | None] = [None] * len(group)

        def page(index: int) -> Callable[[], None]:
            def send() -> None:
                members = group[index][0]
                # the cursor the page starts from names its quota charge (sending: send_list_page)
                start = job if index == 0 else job.model_copy(update={"cursor": group[index - 1][1]})
                results[index] = self._sender.send_list_page(principal, start, members) if members else PageResult()

            return send

        try:
            run_each([page(index) for index in range(len(group))], lambda _: None, workers=len(group))
        except Exception:
            finished = job
            for (_, after), result in zip(group, results, strict=True):
                if result is None:
                    break
                finished = checkpointed(finished, result, after)
            if finished is not job:
                self._save(finished)
            raise
        current = job
        for (_, after), result in zip(group, results, strict=True):
            current = checkpointed(current, result or PageResult(), after)
        return current, group[-1][1] is None

    def _save(self, job: ListSend) -> ListSend:
        """Stores the checkpoint (or the end). Refused, the attempt stops: it lost the job, or the
        job is being cancelled, which it then ends with these counts."""
        if not self._jobs.save(job):
            self._cancelled(job)
            raise _LostJobError(job.id)
        return job

    def _latest(self, job: ListSend) -> ListSend:
        """The job as stored, with `job`'s attempt (its last checkpoint, as this attempt left it)."""
        latest = self._jobs.get(job.account_id, job.id)
        return latest.model_copy(update={"attempt": job.attempt}) if latest is not None else job

    def _cancelled(self, job: ListSend) -> bool:
        """If the job is being cancelled while `job`'s attempt holds it: ends it cancelled with
        `job`'s counts (True). False when it is not (that attempt lost it, or it ended otherwise)."""
        stored = self._jobs.get(job.account_id, job.id)
        if stored is None or stored.status is not ListSendStatus.CANCELLING or stored.attempt != job.attempt:
            return False
        if stored.handed_out is not None:  # sent by page tasks: its counts are theirs, as stored
            ending = stored.model_copy(update={"completed_at": self._clock.now()})
            held = {ListSendStatus.CANCELLING}
            ended_now = self._jobs.end_fanned_out(ending, ListSendStatus.CANCELLED, held=held, attempt=job.attempt)
            return ended_now is not None
        ended = job.model_copy(
            update={
                "status": ListSendStatus.CANCELLED,
                "cancel_requested_at": stored.cancel_requested_at,
                "completed_at": self._clock.now(),
                "lease_until": None,
            }
        )
        return self._jobs.end_cancelled(ended)

    def _fail(self, claimed: ListSend, message: str) -> None:
        """Fails the job as its last checkpoint left it (this run's pages counted), if this attempt holds it."""
        current = self._latest(claimed)
        if current.handed_out is not None:  # sent by page tasks: its counts as stored
            if not self._fail_fanned_out(current, message):
                self._cancelled(current)  # cancelled meanwhile: it ends so
            return
        failed = current.model_copy(
            update={
                "status": ListSendStatus.FAILED,
                "error_message": message,
                "completed_at": self._clock.now(),
                "lease_until": None,
            }
        )
        if not self._jobs.save(failed) and current.status not in ENDED:
            self._cancelled(current)  # cancelled meanwhile: it ends so, as far as it got


class StoredPrincipals:
    """The sender of a list send as it is now: its account and API key (or console user), read again
    by the worker; None when the key was deleted, the account is gone or may not use the API. A send
    an organisation made for its subaccount (On-Behalf-Of) needs both accounts usable and the
    subaccount still the organisation's."""

    def __init__(self, *, keys: Keys, accounts: AccountStore) -> None:
        self._keys = keys
        self._accounts = accounts

    def principal_of(self, job: ListSend) -> Principal | None:
        key: ApiKey | None = None
        credential_account_id = job.key_account_id or job.account_id
        if job.key_id is not None:
            key, credential_account = self._keys.get_key_with_account(credential_account_id, job.key_id)
            if key is None:
                return None
            scope = key.scope
        else:
            credential_account = self._accounts.get_account(credential_account_id)
            scope = Scope.FULL_ACCESS
        if credential_account is None or credential_account.blocked_code() is not None:
            return None
        if job.key_account_id is None:
            return Principal(account=credential_account, scope=scope, env=job.env, key=key, user_id=job.user_id)
        account = self._accounts.get_account(job.account_id)
        if account is None or account.blocked_code() is not None or account.parent_account_id != job.key_account_id:
            return None
        return Principal(
            account=account,
            scope=scope,
            env=job.env,
            key=key,
            user_id=job.user_id,
            credential_account=credential_account,
        )
