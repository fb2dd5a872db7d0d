"""Sending to a mailing list: a send whose `to` is exactly one address, the address of one of the
account's lists, becomes a list send (README, Mailing lists, "Sending to a list").

Pure rules and models: the job a list send runs as (the jobs table, lists/send_store.py), the
answer POST /v3/messages gives (202, at once) and GET /v3/lists/{id}/sends/{send_id} shows, how a
member's variables are made, and the id of each member's message.

- Variables, lowest to highest precedence: the request's `vars`, then `email` (the member's
  address) and `name` (the member's name, when it has one), then the member's own `vars`. The
  request gives defaults for everyone; what is stored for a member is about that member, so it wins.
- A member's message id is derived from the list send and the member's address: a worker that
  redoes a page after a crash names the same messages, finds those already stored and stores only
  the rest, so nobody is sent to twice.
- Counts: `accepted` (queued for delivery), `suppressed` (on a suppression list, allowlist rules
  applied as on every send), `rejected` (rejected before send for another reason: an unverified
  domain, the sandbox), `failed` (no message could be made for the member, e.g. its vars do not fit
  the template: a message stored rejected with reason invalid_member). Their sum is `members`, the
  subscribed members read so far.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from postline.keys.access import Environment
from postline.lists.domain import ListMember
from postline.shared.base import Model
from postline.shared.ids import keyed_id

PAGE_MEMBERS = 500  # members read (DynamoDB Query Limit) and sent per page
PAGES_PER_RUN = 4  # pages per worker invocation, then the job is queued again with its cursor
# The deployed worker (wiring): pages sent side by side, and its pages per invocation then.
PARALLEL_PAGES = 8
PARALLEL_PAGES_PER_RUN = 32
# Page tasks (lists/send_service.py): a list longer than FANOUT_MIN_PAGES - 1 pages is sent by page
# tasks, each page in an invocation of its own; the job's own runs only read the pages' bounds and
# hand them out, PAGE_TASKS_PER_BATCH a write and a SendMessageBatch, up to LEAD_PAGES_PER_RUN a run.
FANOUT_MIN_PAGES = 3
PAGE_TASKS_PER_BATCH = 10  # SQS's SendMessageBatch maximum
LEAD_PAGES_PER_RUN = 400  # 200,000 members: a Query a page, well inside the worker's timeout
MAX_REPORTED_FAILURES = 100
MAX_REQUEST_CHARS = 256_000  # the stored request (content and vars) stays well inside an item's 400 KB


class ListSendStatus(StrEnum):
    PENDING = "pending"  # queued, no page sent yet
    SENDING = "sending"  # a worker holds it (lease) or it waits for its next run
    DONE = "done"
    FAILED = "failed"  # stopped (quota, template gone, key deleted): counts show how far it got
    CANCELLING = "cancelling"  # cancelled while a worker sends a page: it stops at that page's checkpoint
    CANCELLED = "cancelled"  # stopped by its sender: counts show who was mailed before it stopped


RUNNING = (ListSendStatus.PENDING, ListSendStatus.SENDING)
ENDED = (ListSendStatus.DONE, ListSendStatus.FAILED, ListSendStatus.CANCELLED)


class FailedMember(Model):
    to: str
    reason: str


class PageRange(Model):
    """One page a page task sends: the subscribed members after `after` (None: from the start) up to
    and including `through` (None: to the end of the list), as the job's run read their bounds."""

    index: int
    after: str | None = None
    through: str | None = None


class ListSend(Model):
    """The job: the request to send to each member, the cursor, the counts and the worker's lease."""

    id: str
    account_id: str
    list_id: str
    list_address: str
    key_id: str | None = None  # the API key that sent it (None: a console user's send)
    # The account the key or console user belongs to when it acted for this one, its subaccount
    # (On-Behalf-Of); None: this account's own.
    key_account_id: str | None = None
    user_id: str | None = None
    env: Environment
    # The SendRequest as sent, by alias, without to/cc/bcc/vars/send_at, and the request's vars. They
    # are stored in an item of their own (lists/send_store.py), written once and read once per run,
    # so each page's checkpoint rewrites only this small job item: one write unit, not one per KB of
    # content.
    request: dict[str, Any] = Field(default_factory=dict, exclude=True)
    vars: dict[str, Any] = Field(default_factory=dict, exclude=True)
    send_at: datetime | None = None
    status: ListSendStatus = ListSendStatus.PENDING
    cursor: str | None = None  # the last member address of the pages done (None: from the start)
    pages: int = 0
    members: int = 0
    accepted: int = 0
    suppressed: int = 0
    rejected: int = 0
    failed: int = 0
    failed_members: list[FailedMember] = Field(default_factory=list)
    # Sent by page tasks: the pages handed out so far (None: its runs send the pages themselves), the
    # index of the first of the last ones handed out (their bounds in an item of their own, queued
    # again by a run that follows one that died before its queue call), and whether the whole list
    # has been handed out. It is done when `pages` (those counted) reaches `handed_out` with `read_all`.
    handed_out: int | None = None
    handing_from: int | None = None
    read_all: bool = False
    error_message: str | None = None
    cancel_requested_at: datetime | None = None
    attempt: int = 0
    lease_until: int | None = None
    created_at: datetime
    completed_at: datetime | None = None


class ListSendResult(Model):
    """202 of POST /v3/messages (or /v3/messages.batch) to a list's address, and GET
    /v3/lists/{id}/sends/{send_id}: the fan-out's progress. Every member's message carries
    batch_id = list_send_id."""

    list_send: bool = Field(default=True, description="Always true: this send went to a mailing list.")
    list_send_id: str
    list_id: str
    to: str = Field(description="The list's address.")
    status: ListSendStatus
    members: int = Field(description="Subscribed members read so far: accepted + suppressed + rejected + failed.")
    accepted: int
    suppressed: int
    rejected: int
    failed: int
    failed_recipients: list[FailedMember] | None = Field(
        default=None, description=f"The first {MAX_REPORTED_FAILURES} members no message could be made for."
    )
    error_message: str | None = None
    cancel_requested_at: datetime | None = Field(
        default=None, description="When its sender cancelled it (DELETE /v3/lists/{id}/sends/{send_id})."
    )
    created_at: datetime
    completed_at: datetime | None = None

    @classmethod
    def of(cls, job: ListSend) -> ListSendResult:
        return cls(
            list_send_id=job.id,
            list_id=job.list_id,
            to=job.list_address,
            status=job.status,
            members=job.members,
            accepted=job.accepted,
            suppressed=job.suppressed,
            rejected=job.rejected,
            failed=job.failed,
            failed_recipients=job.failed_members[:MAX_REPORTED_FAILURES] or None,
            error_message=job.error_message,
            cancel_requested_at=job.cancel_requested_at,
            created_at=job.created_at,
            completed_at=job.completed_at,
        )


class Outcome(StrEnum):
    """What became of one member of a page."""

    ACCEPTED = "accepted"
    SUPPRESSED = "suppressed"
    REJECTED = "rejected"
    FAILED = "failed"


class PageResult(Model):
    outcomes: dict[str, Outcome] = Field(default_factory=dict)  # member address -> outcome
    failures: list[FailedMember] = Field(default_factory=list)


def member_vars(request_vars: dict[str, Any], member: ListMember) -> dict[str, Any]:
    """The template variables of a member's message (precedence in the module's text)."""
    own: dict[str, Any] = {"email": member.address}
    if member.name is not None:
        own["name"] = member.name
    return {**request_vars, **own, **(member.vars or {})}


def member_message_id(list_send_id: str, address: str) -> str:
    return keyed_id("msg_", "list", list_send_id, address)


def outcome_counts(page: PageResult) -> dict[str, int]:
    """A page's counts by field of the job: members, accepted, suppressed, rejected, failed."""
    counts = {outcome.value: 0 for outcome in Outcome}
    for outcome in page.outcomes.values():
        counts[outcome.value] += 1
    return {"members": len(page.outcomes), **counts}


def fanned_out_done(job: ListSend) -> bool:
    """A job of page tasks whose every page handed out has been counted, the whole list handed out."""
    return job.handed_out is not None and job.read_all and job.pages >= job.handed_out


def checkpointed(job: ListSend, page: PageResult, cursor: str | None) -> ListSend:
    """The job after one more page: its counts, failures and cursor."""
    counts = {outcome: 0 for outcome in Outcome}
    for outcome in page.outcomes.values():
        counts[outcome] += 1
    room = MAX_REPORTED_FAILURES - len(job.failed_members)
    return job.model_copy(
        update={
            "status": ListSendStatus.SENDING,
            "cursor": cursor if cursor is not None else job.cursor,
            "pages": job.pages + 1,
            "members": job.members + len(page.outcomes),
            "accepted": job.accepted + counts[Outcome.ACCEPTED],
            "suppressed": job.suppressed + counts[Outcome.SUPPRESSED],
            "rejected": job.rejected + counts[Outcome.REJECTED],
            "failed": job.failed + counts[Outcome.FAILED],
            "failed_members": job.failed_members + page.failures[: max(room, 0)],
        }
    )
