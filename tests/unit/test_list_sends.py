"""Sending to a list: the expansion rules (member vars over request vars, `name` and `email`, the
deterministic message ids, the checkpoint's counts), a page sent by the send service (suppressed
members counted, a redone page storing and queueing nothing twice), and the worker's run (bounded
pages per invocation with the rest queued, a lost lease, the end of the list, a stop that fails the
job as far as it got)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline.audit.domain import Actor, AuditEntry, audit_entry
from postline.keys.access import Environment
from postline.keys.identity import Principal
from postline.lists.domain import ListMember, MailingList
from postline.lists.send_service import ListSendBusyError, ListSendService
from postline.lists.sends import (
    MAX_REPORTED_FAILURES,
    FailedMember,
    ListSend,
    ListSendResult,
    ListSendStatus,
    Outcome,
    PageRange,
    PageResult,
    checkpointed,
    member_message_id,
    member_vars,
    outcome_counts,
)
from postline.sending.domain import IdempotentCall, RecipientState
from postline.sending.models import SendRequest
from postline.sending.service import SendService
from postline.shared.errors import ApiError, ServiceUnavailable, ValidationFailed
from tests.fakes.domains import OneVerifiedDomain
from tests.fakes.shared import FixedClock
from tests.fakes.templates import NoTemplates
from tests.fakes.usage import UnlimitedQuotas
from tests.unit.sending.test_metrics import Sending
from tests.unit.world import build_world

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def member(address: str, *, name: str | None = None, **variables: object) -> ListMember:
    return ListMember(id="m", list_id="l1", address=address, name=name, vars=variables or None, created_at=NOW)


def job(**fields: object) -> ListSend:
    base: dict[str, object] = {
        "id": "lsend_1",
        "account_id": "acct_1",
        "list_id": "l1",
        "list_address": "news@lists.example",
        "key_id": "key_1",
        "env": Environment.LIVE,
        "request": {"from": "hello@postline.test", "subject": "Hi", "text": "Hello"},
        "created_at": NOW,
    }
    return ListSend.model_validate({**base, **fields})


# -- the rules --------------------------------------------------------------------------------------


def test_member_vars_win_over_name_and_email_which_win_over_the_requests() -> None:
    request = {"team": "Ops", "name": "friend", "plan": "free"}
    assert member_vars(request, member("a@x.example", name="Ann", plan="pro")) == {
        "team": "Ops",
        "name": "Ann",
        "plan": "pro",
        "email": "a@x.example",
    }
    assert member_vars(request, member("b@x.example"))["name"] == "friend"  # no name: the request's default
    assert member_vars({}, member("c@x.example", name="Cy", name_override=1, email="own@x.example"))["email"] == (
        "own@x.example"
    )


def test_message_ids_are_derived_from_the_send_and_the_address() -> None:
    first = member_message_id("lsend_1", "a@x.example")
    assert first == member_message_id("lsend_1", "a@x.example") and first.startswith("msg_")
    assert first != member_message_id("lsend_2", "a@x.example")
    assert first != member_message_id("lsend_1", "b@x.example")


def test_a_checkpoint_adds_the_pages_counts_and_keeps_the_first_failures() -> None:
    page = PageResult(
        outcomes={"a": Outcome.ACCEPTED, "b": Outcome.ACCEPTED, "c": Outcome.SUPPRESSED, "d": Outcome.FAILED},
        failures=[FailedMember(to="d", reason="bad")],
    )
    after = checkpointed(job(accepted=3, members=3), page, "d")
    assert (after.members, after.accepted, after.suppressed, after.failed, after.rejected) == (7, 5, 1, 1, 0)
    assert (after.cursor, after.pages, after.status) == ("d", 1, ListSendStatus.SENDING)
    full = job(failed_members=[FailedMember(to=f"x{n}", reason="r") for n in range(MAX_REPORTED_FAILURES)])
    assert len(checkpointed(full, page, None).failed_members) == MAX_REPORTED_FAILURES
    assert checkpointed(job(cursor="k"), PageResult(), None).cursor == "k"  # the end keeps the last cursor


# -- a page, through the send service -------------------------------------------------------------


@pytest.fixture
def sending() -> Sending:
    return Sending(build_world(), suppressed=("blocked@x.example",))


def test_a_page_queues_one_message_per_member_and_counts_the_suppressed(sending: Sending) -> None:
    principal = sending.principal()
    service = sending.send_service()
    members = [member("a@x.example", name="Ann"), member("blocked@x.example"), member("c@x.example")]
    result = service.send_list_page(principal, job(account_id=principal.account.id), members)
    assert result.outcomes == {
        "a@x.example": Outcome.ACCEPTED,
        "blocked@x.example": Outcome.SUPPRESSED,
        "c@x.example": Outcome.ACCEPTED,
    }
    stored = sending.messages.items[member_message_id("lsend_1", "a@x.example")]
    assert (stored.batch_id, stored.list_id, stored.to) == ("lsend_1", "l1", ["a@x.example"])
    blocked = sending.messages.items[member_message_id("lsend_1", "blocked@x.example")]
    assert blocked.recipients == {"blocked@x.example": RecipientState.REJECTED}
    assert sorted(j.message_id for j in sending.queue.jobs) == sorted(
        member_message_id("lsend_1", a) for a in ("a@x.example", "c@x.example")
    )


def test_a_redone_page_stores_and_queues_nothing_twice_and_counts_the_same(sending: Sending) -> None:
    principal = sending.principal()
    members = [member("a@x.example"), member("blocked@x.example"), member("c@x.example")]
    the_job = job(account_id=principal.account.id)
    first = sending.send_service().send_list_page(principal, the_job, members[:2])  # cut off after two
    assert len(sending.queue.jobs) == 1
    events = len(sending.messages.events)
    again = sending.send_service().send_list_page(principal, the_job, members)
    assert again.outcomes == {**first.outcomes, "c@x.example": Outcome.ACCEPTED}
    assert len(sending.queue.jobs) == 2 and len(sending.messages.items) == 3
    assert len(sending.messages.events) == events + 1  # c's queued event only


# -- the worker's run ------------------------------------------------------------------------------


class Jobs:
    """ListSendJobs in memory, with the adapter's lease and attempt conditions."""

    def __init__(self, clock: FixedClock) -> None:
        self.items: dict[str, ListSend] = {}
        self.requests: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # apart from the job, as stored
        self.audits: list[AuditEntry] = []  # written with a cancel's move, as the store's transaction does
        self.clock = clock
        self.counted_pages: set[int] = set()  # the page markers
        self.handed: list[list[PageRange]] = []  # the HANDING item, as each run's record wrote it

    def create(self, item: ListSend) -> bool:
        if item.id in self.items:
            return False
        self.items[item.id] = item.model_copy(update={"request": {}, "vars": {}})
        self.requests[item.id] = (item.request, item.vars)
        return True

    def with_request(self, item: ListSend) -> ListSend:
        request, variables = self.requests[item.id]
        return item.model_copy(update={"request": request, "vars": variables})

    def get(self, account_id: str, send_id: str) -> ListSend | None:
        return self.items.get(send_id)

    def claim(self, item: ListSend, now: datetime, lease: timedelta) -> ListSend | None:
        current = self.items[item.id]
        held = current.status is ListSendStatus.SENDING and (current.lease_until or 0) >= now.timestamp()
        if current.status not in (ListSendStatus.PENDING, ListSendStatus.SENDING) or held:
            return None
        claimed = current.model_copy(update={
            "status": ListSendStatus.SENDING, "attempt": current.attempt + 1,
            "lease_until": int((now + lease).timestamp()),
        })  # fmt: skip
        self.items[item.id] = claimed
        return claimed

    def save(self, item: ListSend) -> bool:
        current = self.items[item.id]
        if current.status is not ListSendStatus.SENDING or current.attempt != item.attempt:
            return False
        self.items[item.id] = item
        return True

    def release(self, item: ListSend) -> bool:
        current = self.items[item.id]
        if current.status is not ListSendStatus.SENDING or current.attempt != item.attempt:
            return False
        self.items[item.id] = current.model_copy(update={"lease_until": 0})
        return True

    def cancel_unheld(self, item: ListSend, now: datetime, audit: AuditEntry | None) -> ListSend | None:
        current = self.items[item.id]
        live = (current.lease_until or 0) >= now.timestamp()
        if current.status not in (ListSendStatus.PENDING, ListSendStatus.SENDING, ListSendStatus.CANCELLING) or live:
            return None
        if (current.members, current.accepted) != (item.members, item.accepted):
            return None
        if audit is not None:
            self.audits.append(audit)
        ended = current.model_copy(update={
            "status": ListSendStatus.CANCELLED, "completed_at": now,
            "cancel_requested_at": current.cancel_requested_at or now,
        })  # fmt: skip
        self.items[item.id] = ended
        return ended

    def request_cancel(self, item: ListSend, now: datetime, audit: AuditEntry) -> ListSend | None:
        current = self.items[item.id]
        if current.status is not ListSendStatus.SENDING or (current.lease_until or 0) < now.timestamp():
            return None
        if (current.members, current.accepted) != (item.members, item.accepted):
            return None
        self.audits.append(audit)
        cancelling = current.model_copy(update={"status": ListSendStatus.CANCELLING, "cancel_requested_at": now})
        self.items[item.id] = cancelling
        return cancelling

    def end_cancelled(self, item: ListSend) -> bool:
        current = self.items[item.id]
        if current.status is not ListSendStatus.CANCELLING or current.attempt != item.attempt:
            return False
        self.items[item.id] = item
        return True

    def fail_pending(self, item: ListSend) -> None:
        pass

    # a list sent by page tasks: the adapter's conditions, its counts ADDed once a page

    def hand_out(
        self, item: ListSend, pages: list[PageRange], *, cursor: str | None, read_all: bool
    ) -> ListSend | None:
        self.handed.append(pages)  # the bounds first, as the store writes them
        current = self.items[item.id]
        if current.status is not ListSendStatus.SENDING or current.attempt != item.attempt:
            return None
        update: dict[str, object] = {
            "handed_out": (item.handed_out or 0) + len(pages), "handing_from": pages[0].index, "read_all": read_all,
            **({"cursor": cursor} if cursor is not None else {}), **({"lease_until": 0} if read_all else {}),
        }  # fmt: skip
        self.items[item.id] = current.model_copy(update=update)
        return self.items[item.id]

    def handing(self, item: ListSend) -> list[PageRange]:
        return self.handed[-1] if self.handed and item.handing_from is not None else []

    def page_counted(self, item: ListSend, index: int) -> bool:
        return index in self.counted_pages

    def count_page(self, item: ListSend, index: int, page: PageResult) -> ListSend | None:
        if self.page_counted(item, index):
            return None
        self.counted_pages.add(index)
        current = self.items[item.id]
        counts = outcome_counts(page)
        room = MAX_REPORTED_FAILURES - len(item.failed_members)
        self.items[item.id] = current.model_copy(update={
            "pages": current.pages + 1, **{name: getattr(current, name) + n for name, n in counts.items()},
            "failed_members": current.failed_members + page.failures[: max(room, 0)],
        })  # fmt: skip
        return self.items[item.id]

    def end_fanned_out(
        self,
        item: ListSend,
        to: ListSendStatus,
        *,
        held: set[ListSendStatus],
        attempt: int | None = None,
        error_message: str | None = None,
    ) -> ListSend | None:
        current = self.items[item.id]
        if current.status not in held or (attempt is not None and current.attempt != attempt):
            return None
        self.items[item.id] = current.model_copy(update={
            "status": to, "completed_at": item.completed_at, "lease_until": 0,
            **({"error_message": error_message} if error_message is not None else {}),
            **({"cancel_requested_at": item.cancel_requested_at} if to is ListSendStatus.CANCELLED else {}),
        })  # fmt: skip
        return self.items[item.id]


class Members:
    """subscribed_page over a sorted list of addresses."""

    def __init__(self, count: int) -> None:
        self.addresses = [f"m{n:03d}@x.example" for n in range(count)]

    def subscribed_page(self, list_id: str, *, after: str | None, limit: int) -> tuple[list[ListMember], str | None]:
        start = 0 if after is None else self.addresses.index(after) + 1
        page = self.addresses[start : start + limit]
        last = page[-1] if start + limit < len(self.addresses) else None
        return [member(address) for address in page], last

    def subscribed_page_end(self, list_id: str, *, after: str | None, limit: int) -> str | None:
        return self.subscribed_page(list_id, after=after, limit=limit)[1]

    def subscribed_range(self, list_id: str, *, after: str | None, through: str | None) -> list[ListMember]:
        return [member(a) for a in self.addresses if (after is None or a > after) and (through is None or a <= through)]


class Sender:
    def __init__(self, *, stop_at: int | None = None, during: dict[int, Callable[[], object]] | None = None) -> None:
        self.pages: list[list[str]] = []
        self.starts: list[str | None] = []
        self.stop_at = stop_at
        self.during = during or {}  # page number (0-based) -> what happens while it is sent

    def send_list_page(self, principal: Principal, item: ListSend, members: list[ListMember]) -> PageResult:
        if self.stop_at is not None and len(self.pages) == self.stop_at:
            raise ApiError("The daily email quota is spent.")
        if len(self.pages) in self.during:
            self.during[len(self.pages)]()
        self.pages.append([m.address for m in members])
        self.starts.append(item.cursor)  # names the page's quota charge
        return PageResult(outcomes=dict.fromkeys((m.address for m in members), Outcome.ACCEPTED))


class Principals:
    def __init__(self, principal: Principal | None) -> None:
        self.principal = principal

    def principal_of(self, item: ListSend) -> Principal | None:
        return self.principal


class Queue:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.not_before: list[datetime | None] = []
        self.pages: list[PageRange] = []

    def enqueue_send(self, account_id: str, list_id: str, send_id: str, *, not_before: datetime | None = None) -> None:
        self.sent.append(send_id)
        self.not_before.append(not_before)

    def enqueue_pages(self, account_id: str, list_id: str, send_id: str, pages: list[PageRange]) -> None:
        self.__dict__.setdefault("pages", []).extend(pages)


class Worker:
    def __init__(
        self,
        members: int,
        *,
        sender: Sender | None = None,
        principal: bool = True,
        pages_per_run: int = 2,
        parallel_pages: int = 1,
        fanout_min_pages: int | None = None,
        lead_pages_per_run: int = 400,
    ) -> None:
        world = build_world()
        account = world.account()
        self.clock = FixedClock(NOW)
        self.jobs, self.queue, self.sender = Jobs(self.clock), Queue(), sender or Sender()
        self.jobs.create(job())
        self.lists_addresses = [f"m{n:03d}@x.example" for n in range(members)]
        self.service = ListSendService(
            jobs=self.jobs,
            lists=Members(members),  # type: ignore[arg-type]
            sender=self.sender,
            principals=Principals(world.console_principal(account) if principal else None),
            queue=self.queue,
            clock=self.clock,
            page_members=10,
            pages_per_run=pages_per_run,
            parallel_pages=parallel_pages,
            fanout_min_pages=fanout_min_pages,
            lead_pages_per_run=lead_pages_per_run,
        )

    def run(self, receive_count: int = 1) -> ListSend:
        self.service.run("acct_1", "lsend_1", receive_count=receive_count)
        return self.jobs.items["lsend_1"]


def test_a_run_sends_a_bounded_number_of_pages_then_queues_the_rest() -> None:
    worker = Worker(45)
    after = worker.run()
    assert (after.status, after.members, after.pages, after.cursor) == (ListSendStatus.SENDING, 20, 2, "m019@x.example")
    assert worker.queue.sent == ["lsend_1"] and after.lease_until == 0
    worker.run()
    done = worker.run()
    assert (done.status, done.members, done.accepted, done.pages) == (ListSendStatus.DONE, 45, 45, 5)
    sent = [address for page in worker.sender.pages for address in page]
    assert sent == sorted(set(sent)) and len(sent) == 45  # every member once, in order
    assert worker.queue.sent == ["lsend_1", "lsend_1"]
    assert worker.run().pages == 5  # a repeated message finds it done


def test_pages_side_by_side_send_every_member_once_with_one_checkpoint_a_group() -> None:
    worker = Worker(95, pages_per_run=6, parallel_pages=3)
    saves: list[int] = []
    real_save = worker.jobs.save

    def counted(item: ListSend) -> bool:
        saves.append(item.pages)
        return real_save(item)

    worker.jobs.save = counted  # type: ignore[method-assign]
    after = worker.run()
    assert (after.status, after.members, after.pages, after.cursor) == (ListSendStatus.SENDING, 60, 6, "m059@x.example")
    assert saves == [3, 6]  # a checkpoint a group of three pages
    done = worker.run()
    assert (done.status, done.members, done.accepted, done.pages) == (ListSendStatus.DONE, 95, 95, 10)
    sent = sorted(address for page in worker.sender.pages for address in page)
    assert sent == sorted(set(sent)) and len(sent) == 95  # every member once
    assert saves[-1] == 10
    assert sorted(worker.sender.starts, key=str) == [None] + [f"m0{n}9@x.example" for n in range(9)]  # a charge a page


def test_a_group_that_fails_part_way_keeps_the_pages_before_the_failure() -> None:
    class FailsOne(Sender):
        def send_list_page(self, principal: Principal, item: ListSend, members: list[ListMember]) -> PageResult:
            if members[0].address == "m020@x.example":  # the group's third page
                raise ApiError("The daily email quota is spent.")
            return super().send_list_page(principal, item, members)

    worker = Worker(95, sender=FailsOne(), pages_per_run=6, parallel_pages=4)
    failed = worker.run()
    assert failed.status is ListSendStatus.FAILED
    assert (failed.members, failed.pages, failed.cursor) == (20, 2, "m019@x.example")  # the first two pages


def test_a_held_lease_makes_the_message_wait_and_a_lost_one_stops_the_old_attempt() -> None:
    worker = Worker(45)
    worker.jobs.claim(worker.jobs.items["lsend_1"], NOW, timedelta(seconds=330))  # a live attempt elsewhere
    with pytest.raises(ListSendBusyError):
        worker.run()
    worker.clock.advance(331)  # that attempt died: its lease ran out
    assert worker.run().members == 20


def test_a_stop_fails_the_job_as_far_as_it_got_and_a_missing_sender_fails_it_at_once() -> None:
    worker = Worker(45, sender=Sender(stop_at=1))
    failed = worker.run()
    assert (failed.status, failed.members, failed.error_message) == (
        ListSendStatus.FAILED,
        10,
        "The daily email quota is spent.",
    )
    orphan = Worker(45, principal=False).run()
    assert orphan.status is ListSendStatus.FAILED and "no longer exists" in (orphan.error_message or "")


def test_a_scheduled_send_that_comes_early_waits_again_and_reads_its_members_when_due() -> None:
    worker = Worker(5)
    due = NOW + timedelta(hours=2)
    worker.jobs.items["lsend_1"] = worker.jobs.items["lsend_1"].model_copy(update={"send_at": due})
    waiting = worker.run()
    assert (waiting.status, waiting.members, worker.sender.pages) == (ListSendStatus.PENDING, 0, [])
    assert worker.queue.not_before == [due]  # queued again for its time, not sent
    worker.clock.advance(2 * 3600)
    assert worker.run().status is ListSendStatus.DONE and len(worker.sender.pages[0]) == 5


def test_an_empty_list_is_done_at_once() -> None:
    done = Worker(0).run()
    assert (done.status, done.members, done.pages) == (ListSendStatus.DONE, 0, 1)


# -- cancelling ----------------------------------------------------------------------------------------


def _cancel(worker: Worker) -> ListSend | None:
    """What the DELETE route does (lists/service.py): cancelled at once, else cancelling."""
    current = worker.jobs.items["lsend_1"]
    now = worker.clock.now()
    audit = audit_entry(entry_id=f"a{len(worker.jobs.audits)}", account_id=current.account_id, actor=Actor.system(),
                        action="list.send_cancelled", target=current.list_id, details="cancel", now=now)  # fmt: skip
    return worker.jobs.cancel_unheld(current, now, audit) or worker.jobs.request_cancel(current, now, audit)


def test_a_pending_send_cancelled_mails_nobody_and_its_message_is_dropped() -> None:
    worker = Worker(25)
    assert (cancelled := _cancel(worker)) is not None and cancelled.status is ListSendStatus.CANCELLED
    assert _cancel(worker) is None and len(worker.jobs.audits) == 1  # a refused cancel records nothing
    after = worker.run()
    assert (after.status, after.members, worker.sender.pages, worker.queue.sent) == (
        ListSendStatus.CANCELLED, 0, [], []
    )  # fmt: skip


def test_a_cancel_during_a_page_stops_at_its_checkpoint_with_that_page_counted() -> None:
    worker = Worker(45)
    stops: list[ListSend | None] = []
    worker.sender.during = {1: lambda: stops.append(_cancel(worker))}  # while the second page is sent
    ended = worker.run()
    assert stops[0] is not None and stops[0].status is ListSendStatus.CANCELLING
    assert (ended.status, ended.members, ended.accepted, ended.pages) == (ListSendStatus.CANCELLED, 20, 20, 2)
    assert ended.cancel_requested_at == NOW and ended.completed_at == NOW
    assert len(worker.sender.pages) == 2 and worker.queue.sent == []  # no third page, nothing queued
    assert worker.run().members == 20  # a repeated message finds it cancelled


def test_a_cancel_between_two_pages_of_a_run_sends_no_further_page() -> None:
    worker = Worker(45)
    real_save = worker.jobs.save

    def checkpoint_then_cancel(item: ListSend) -> bool:
        saved = real_save(item)
        if item.pages == 1:
            _cancel(worker)  # the worker is held between its first and second page
        return saved

    worker.jobs.save = checkpoint_then_cancel  # type: ignore[method-assign]
    ended = worker.run()
    assert (ended.status, ended.members, ended.pages, len(worker.sender.pages)) == (ListSendStatus.CANCELLED, 10, 1, 1)
    assert worker.queue.sent == []


def test_a_send_between_runs_is_cancelled_at_once_and_its_next_run_sends_nothing() -> None:
    worker = Worker(45)
    worker.run()  # two pages, lease given back, queued again
    ended = _cancel(worker)
    assert ended is not None and (ended.status, ended.members) == (ListSendStatus.CANCELLED, 20)
    assert worker.run().status is ListSendStatus.CANCELLED and len(worker.sender.pages) == 2


def test_a_cancel_whose_attempt_died_ends_once_its_lease_ran_out() -> None:
    worker = Worker(45)
    worker.jobs.claim(worker.jobs.items["lsend_1"], NOW, timedelta(seconds=330))  # an attempt that will die
    assert (cancelling := _cancel(worker)) is not None and cancelling.status is ListSendStatus.CANCELLING
    with pytest.raises(ListSendBusyError):  # its attempt may still count a page
        worker.run()
    worker.clock.advance(331)
    ended = worker.run()
    assert (ended.status, ended.members, worker.sender.pages) == (ListSendStatus.CANCELLED, 0, [])


def test_a_cancel_as_a_run_gives_its_lease_back_ends_it_without_queueing_more() -> None:
    worker = Worker(45)
    real_release = worker.jobs.release

    def cancelled_first(item: ListSend) -> bool:
        _cancel(worker)  # lands after the run's last checkpoint, before its release
        return real_release(item)

    worker.jobs.release = cancelled_first  # type: ignore[method-assign]
    ended = worker.run()
    assert (ended.status, ended.members, worker.queue.sent) == (ListSendStatus.CANCELLED, 20, [])


# -- page tasks: a longer list's pages each in an invocation of its own ---------------------------------


def _fanning(members: int, **options: Any) -> Worker:
    return Worker(members, pages_per_run=6, parallel_pages=3, fanout_min_pages=3, **options)


def _page_tasks(worker: Worker, order: Callable[[list[PageRange]], list[PageRange]] = list) -> ListSend:
    """Runs the queued page tasks (each once, in `order`) and returns the job."""
    for page in order(list(worker.queue.pages)):
        worker.service.run_page("acct_1", "lsend_1", page, receive_count=1)
    return worker.jobs.items["lsend_1"]


def _mailed(worker: Worker) -> list[str]:
    return sorted(address for page in worker.sender.pages for address in page)


def test_a_longer_list_is_handed_out_to_page_tasks_each_counted_once_and_the_last_ends_it() -> None:
    worker = _fanning(95)
    led = worker.run()
    assert (led.status, led.handed_out, led.read_all, led.pages, led.members) == (
        ListSendStatus.SENDING,
        10,
        True,
        0,
        0,
    )
    assert worker.sender.pages == [] and worker.queue.sent == []  # the run sends no page itself
    pages = worker.queue.pages
    assert [page.index for page in pages] == list(range(10))
    assert [(page.after, page.through) for page in pages[:2]] == [(None, "m009@x.example"),
                                                                  ("m009@x.example", "m019@x.example")]  # fmt: skip
    assert pages[-1].through is None  # the last page runs to the end of the list
    done = _page_tasks(worker, lambda queued: queued[::-1])  # in any order
    assert (done.status, done.pages, done.members, done.accepted) == (ListSendStatus.DONE, 10, 95, 95)
    assert done.completed_at == NOW
    assert _mailed(worker) == worker.lists_addresses  # every member once
    assert sorted(worker.sender.starts, key=str) == [None] + [f"m0{n}9@x.example" for n in range(9)]  # a charge a page
    again = _page_tasks(worker)  # every page task delivered again: nothing sent, nothing counted twice
    assert (again.members, again.pages, len(worker.sender.pages)) == (95, 10, 10)


def test_a_short_list_is_sent_by_its_run_and_the_runs_read_bounds_only_up_to_their_bound() -> None:
    short = _fanning(25)  # three pages of 10: not within two, yet one group: handed out
    assert short.run().handed_out == 3
    two = _fanning(20)  # two pages: its run sends them itself
    sent = two.run()
    assert (sent.status, sent.members, sent.handed_out, two.queue.pages) == (ListSendStatus.DONE, 20, None, [])
    bounded = _fanning(95, lead_pages_per_run=4)
    first = bounded.run()  # 3 pages read with the first group, then one more: four, the run's bound
    assert (first.handed_out, first.read_all, first.lease_until, bounded.queue.sent) == (4, False, 0, ["lsend_1"])
    second = bounded.run()
    assert (second.handed_out, second.read_all) == (8, False)
    third = bounded.run()
    assert (third.handed_out, third.read_all) == (10, True)
    assert _page_tasks(bounded).status is ListSendStatus.DONE and _mailed(bounded) == bounded.lists_addresses


def test_a_page_task_that_dies_after_sending_is_redone_and_counts_once() -> None:
    worker = _fanning(95)
    worker.run()
    real_count = worker.jobs.count_page
    dies = {3}

    def dies_once(item: ListSend, index: int, page: PageResult) -> ListSend | None:
        if index in dies:
            dies.discard(index)
            raise ConnectionError("the worker died after the page's messages")
        return real_count(item, index, page)

    worker.jobs.count_page = dies_once  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        _page_tasks(worker)
    page = worker.queue.pages[3]
    worker.service.run_page("acct_1", "lsend_1", page, receive_count=2)  # SQS delivers it again
    done = _page_tasks(worker)
    assert (done.status, done.pages, done.members, done.accepted) == (ListSendStatus.DONE, 10, 95, 95)


def test_a_run_that_dies_before_queueing_its_pages_has_them_queued_by_the_next() -> None:
    worker = _fanning(95, lead_pages_per_run=4)
    real_enqueue = worker.queue.enqueue_pages
    calls = iter([True, False])

    def fails_second(account_id: str, list_id: str, send_id: str, pages: list[PageRange]) -> None:
        if not next(calls, True):
            raise ConnectionError("SQS unreachable")
        real_enqueue(account_id, list_id, send_id, pages)

    worker.queue.enqueue_pages = fails_second  # type: ignore[method-assign]
    worker.run()  # hands out 4 in one batch, queued
    with pytest.raises(ConnectionError):  # records 4 more, then fails to queue them: redelivered
        worker.run()
    assert worker.jobs.items["lsend_1"].handed_out == 8 and len(worker.queue.pages) == 4
    worker.clock.advance(331)
    worker.run(receive_count=2)  # queues the 4 first, then hands out the last 2
    assert [page.index for page in worker.queue.pages] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    done = _page_tasks(worker)
    assert (done.status, done.members, done.pages) == (ListSendStatus.DONE, 95, 10)


def test_a_cancelled_send_of_page_tasks_sends_no_further_page_and_keeps_the_pages_counted() -> None:
    worker = _fanning(95)
    worker.run()
    for page in worker.queue.pages[:4]:
        worker.service.run_page("acct_1", "lsend_1", page, receive_count=1)
    assert (ended := _cancel(worker)) is not None and ended.status is ListSendStatus.CANCELLED  # no run holds it
    after = _page_tasks(worker)
    assert (after.status, after.members, after.pages, len(worker.sender.pages)) == (ListSendStatus.CANCELLED, 40, 4, 4)
    held = _fanning(95, lead_pages_per_run=4)
    real_hand_out = held.jobs.hand_out

    def cancelled_while_reading(item: ListSend, pages: list[PageRange], **options: Any) -> ListSend | None:
        if item.handed_out:
            _cancel(held)  # the run holds its lease: cancelling
        return real_hand_out(item, pages, **options)

    held.jobs.hand_out = cancelled_while_reading  # type: ignore[method-assign]
    held.run()
    held.clock.advance(331)
    stopped = held.run()
    assert (stopped.status, stopped.handed_out, held.queue.sent) == (ListSendStatus.CANCELLED, 4, ["lsend_1"])


def test_a_page_task_stopped_by_the_quota_fails_the_job_with_the_pages_counted() -> None:
    worker = _fanning(95, sender=Sender(stop_at=2))
    worker.run()
    failed = _page_tasks(worker)
    assert (failed.status, failed.members, failed.pages) == (ListSendStatus.FAILED, 20, 2)
    assert failed.error_message == "The daily email quota is spent." and len(worker.sender.pages) == 2
    gone = _fanning(95, principal=False)
    gone.run()  # its run needs no sender; its first page task finds none and fails it
    assert _page_tasks(gone).status is ListSendStatus.FAILED and gone.sender.pages == []


# -- the 202: what makes a list send, and what is refused at once ------------------------------------


class Lists:
    """ListLookup over one list."""

    def __init__(self, mailing_list: MailingList) -> None:
        self.mailing_list = mailing_list

    def list_id_at(self, account_id: str, address: str) -> str | None:
        found = account_id == self.mailing_list.account_id and address == self.mailing_list.address
        return self.mailing_list.id if found else None

    def get_list(self, account_id: str, list_id: str) -> MailingList | None:
        return self.mailing_list if list_id == self.mailing_list.id else None

    def list_addresses_among(self, account_id: str, addresses: list[str]) -> set[str]:
        return {address for address in addresses if self.list_id_at(account_id, address)}


class Accepting:
    def __init__(self, sending: Sending) -> None:
        principal = sending.principal()
        self.principal = replace(principal, account=principal.account.model_copy(update={"list_count": 1}))
        account_id = self.principal.account.id
        self.mailing_list = MailingList(id="l1", account_id=account_id, address="news@lists.example", name="N",
                                        created_at=NOW)  # fmt: skip
        self.jobs, self.queue = Jobs(FixedClock(NOW)), Queue()
        self.service = SendService(
            messages=sending.messages,
            vault=sending.vault,
            queue=sending.queue,
            quotas=UnlimitedQuotas(),
            suppressions=sending.suppressions,
            domains=OneVerifiedDomain(),
            templates=NoTemplates(),
            accounts=sending.world.store,
            check_webhook_url=lambda url: None,
            idempotency=sending.idempotency,
            ids=sending.world.ids,
            clock=sending.world.clock,
            meter=sending.meter,
            lists=Lists(self.mailing_list),
            list_sends=self.jobs,
            list_queue=self.queue,
        )

    def send(self, idempotency_key: str | None = None, **fields: object) -> object:
        body = {"from": "hello@postline.test", "to": ["News@Lists.Example"], "subject": "s", "text": "t", **fields}
        call = IdempotentCall(idempotency_key, body) if idempotency_key else None
        return self.service.send(self.principal, SendRequest.model_validate(body), call)


def test_an_account_without_lists_never_looks_a_to_up(sending: Sending) -> None:
    accepting = Accepting(sending)
    accepting.principal = replace(
        accepting.principal, account=accepting.principal.account.model_copy(update={"list_count": 0})
    )
    answer = accepting.send()  # the list's address, but the account's count says it has none: stale
    assert not isinstance(answer, ListSendResult) and accepting.jobs.items == {}


def test_a_send_to_a_lists_address_stores_and_queues_a_job_and_answers_at_once(sending: Sending) -> None:
    accepting = Accepting(sending)
    answer = accepting.send(vars={"team": "Ops"}, tags=["news"])
    assert isinstance(answer, ListSendResult) and answer.list_send
    assert (answer.status, answer.to, answer.members) == (ListSendStatus.PENDING, "news@lists.example", 0)
    stored = accepting.jobs.with_request(accepting.jobs.items[answer.list_send_id])
    assert (stored.vars, stored.request["tags"], stored.key_id) == (
        {"team": "Ops"},
        ["news"],
        accepting.principal.key_id,
    )
    assert "to" not in stored.request and accepting.queue.sent == [answer.list_send_id]
    assert sending.messages.items == {}  # nothing is sent in the API call
    other = accepting.service.send(
        accepting.principal, SendRequest.model_validate({"from": "hello@postline.test", "to": ["a@x.example"],
                                                         "subject": "s", "text": "t"}))  # fmt: skip
    assert not isinstance(other, ListSendResult)  # any other address is an ordinary send


def test_a_keyed_list_send_is_created_once(sending: Sending) -> None:
    accepting = Accepting(sending)
    first = accepting.send("k-1")
    again = accepting.send("k-1")
    assert first == again and len(accepting.jobs.items) == 1 and len(accepting.queue.sent) == 1


def test_cc_bcc_and_attachments_are_refused_with_a_list(sending: Sending) -> None:
    accepting = Accepting(sending)
    for fields in ({"cc": ["c@x.example"]}, {"bcc": ["c@x.example"]},
                   {"attachments": [{"filename": "a.txt", "content": "aGk="}]}):  # fmt: skip
        with pytest.raises(ValidationFailed):
            accepting.send(**fields)
    assert accepting.jobs.items == {} and accepting.queue.sent == []


def test_the_operators_hold_stops_a_list_send_before_its_next_page(sending: Sending) -> None:
    principal = sending.principal()
    sending.world.operator.set_sending_paused(principal.account.id, True)
    held = sending.world.store.get_account(principal.account.id)
    assert held is not None
    paused = Principal(account=held, scope=principal.scope, env=principal.env, key=principal.key)
    with pytest.raises(ServiceUnavailable):
        sending.send_service().send_list_page(paused, job(account_id=held.id), [member("a@x.example")])
    assert sending.messages.items == {} and sending.queue.jobs == []
