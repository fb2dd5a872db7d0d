"""What the list service needs from the outside: the store (lists/store.py on DynamoDB) and the job
queue (lists/job_queue.py on SQS); and what a list send's worker needs (lists/send_service.py): the
sender of a page of members (sending), the sender's key and account as they are now."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry
    from postline.keys.domain import ApiKey
    from postline.keys.identity import Principal
    from postline.lists.domain import ListMember, MailingList
    from postline.lists.models import MemberFilters
    from postline.lists.sends import ListSend, ListSendStatus, PageRange, PageResult


class ListStore(Protocol):
    def create_list(self, mailing_list: MailingList, audit: AuditEntry, *, counted: bool) -> None: ...

    def get_list(self, account_id: str, list_id: str) -> MailingList | None: ...

    def list_id_at(self, account_id: str, address: str) -> str | None: ...

    def list_page(self, account_id: str, *, page: int, per_page: int) -> tuple[list[MailingList], int]: ...

    def update_list(self, mailing_list: MailingList, audit: AuditEntry) -> MailingList: ...

    def delete_list(self, mailing_list: MailingList, audit: AuditEntry, *, counted: bool) -> None: ...

    def remove_members(self, list_id: str, *, limit: int) -> int: ...

    def deletion_done(self, account_id: str, list_id: str) -> None: ...

    def add_member(self, account_id: str, member: ListMember, audit: AuditEntry) -> None: ...

    def get_member(self, list_id: str, address: str) -> tuple[ListMember, int] | None: ...

    def members_page(
        self, list_id: str, filters: MemberFilters, *, page: int, per_page: int
    ) -> tuple[list[ListMember], int]: ...

    def update_member(self, member: ListMember, revision: int, audit: AuditEntry) -> bool: ...

    def delete_member(self, account_id: str, list_id: str, address: str, audit: AuditEntry) -> bool: ...

    def subscribed_page(
        self, list_id: str, *, after: str | None, limit: int
    ) -> tuple[list[ListMember], str | None]: ...

    def subscribed_page_end(self, list_id: str, *, after: str | None, limit: int) -> str | None:
        """Where subscribed_page's page from `after` ends (None: the end of the list), its members unread."""
        ...

    def subscribed_range(self, list_id: str, *, after: str | None, through: str | None) -> list[ListMember]:
        """The subscribed members after `after` up to and including `through` (None: from the start,
        to the end): a page task's page."""
        ...

    def unsubscribe_member(self, account_id: str, list_id: str, address: str, audit: AuditEntry) -> bool:
        """Sets a subscribed member's `subscribed` false; False when it is not a subscribed member."""
        ...

    def members_at(self, list_id: str, addresses: list[str]) -> dict[str, tuple[ListMember, int]]: ...

    def upsert_members(
        self, account_id: str, list_id: str, created: list[ListMember], changed: list[tuple[ListMember, int]]
    ) -> list[str]: ...


class ListJobQueue(Protocol):
    def enqueue_deletion(self, account_id: str, list_id: str) -> None: ...

    def unschedule_send(self, send_id: str) -> None:
        """Deletes a scheduled list send's one-time schedule, if it has one."""
        ...


class ListSendQueue(Protocol):
    def enqueue_send(
        self, account_id: str, list_id: str, send_id: str, *, not_before: datetime | None = None
    ) -> None: ...

    def enqueue_pages(self, account_id: str, list_id: str, send_id: str, pages: list[PageRange]) -> None:
        """A page task a page (SendMessageBatch): raises unless every one was queued."""
        ...


class ListLookup(Protocol):
    """What the send path reads of lists: whether a `to` is a list's address, and the list."""

    def list_id_at(self, account_id: str, address: str) -> str | None: ...

    def list_addresses_among(self, account_id: str, addresses: list[str]) -> set[str]: ...

    def get_list(self, account_id: str, list_id: str) -> MailingList | None: ...


class ListSendJobs(Protocol):
    def create(self, job: ListSend) -> bool: ...

    def get(self, account_id: str, send_id: str) -> ListSend | None:
        """The job without its request (see with_request)."""
        ...

    def with_request(self, job: ListSend) -> ListSend:
        """`job` with the request and vars it sends (stored apart, so checkpoints stay small)."""
        ...

    def claim(self, job: ListSend, now: datetime, lease: timedelta) -> ListSend | None: ...

    def save(self, job: ListSend) -> bool: ...

    def release(self, job: ListSend) -> bool: ...

    def cancel_unheld(self, job: ListSend, now: datetime, audit: AuditEntry | None) -> ListSend | None:
        """No attempt holds it -> cancelled, with the audit entry in the same write (None: none, the
        worker ending a cancel already recorded); None, writing nothing, when the job is not as read
        (status, lease, counts)."""
        ...

    def request_cancel(self, job: ListSend, now: datetime, audit: AuditEntry) -> ListSend | None:
        """Sending under a live lease -> cancelling, with the audit entry; None as cancel_unheld."""
        ...

    def end_cancelled(self, job: ListSend) -> bool: ...

    def fail_pending(self, job: ListSend) -> None: ...

    # A job of page tasks: its runs hand pages out, page tasks count them, whoever counts last ends it.

    def hand_out(self, job: ListSend, pages: list[PageRange], *, cursor: str | None, read_all: bool) -> ListSend | None:
        """Records `pages` handed out (their bounds apart, then the job: the cursor after them;
        read_all: the list's last ones, which also gives the lease back) if `job`'s attempt still
        holds it sending: the job after; None when it does not (lost, or cancelling)."""
        ...

    def handing(self, job: ListSend) -> list[PageRange]:
        """The last pages the job's runs handed out (empty: none)."""
        ...

    def page_counted(self, job: ListSend, index: int) -> bool: ...

    def count_page(self, job: ListSend, index: int, page: PageResult) -> ListSend | None:
        """Adds the page's counts (and first failures) to the job together with its page's marker,
        once: the job after; None when the page was counted before (nothing written)."""
        ...

    def end_fanned_out(
        self,
        job: ListSend,
        to: ListSendStatus,
        *,
        held: set[ListSendStatus],
        attempt: int | None = None,
        error_message: str | None = None,
    ) -> ListSend | None:
        """A job of page tasks in a `held` status (and, given, under `attempt`) -> `to`, its counts as
        stored: the job after; None when it is not so."""
        ...


class ListSender(Protocol):
    def send_list_page(self, principal: Principal, job: ListSend, members: list[ListMember]) -> PageResult: ...


class Keys(Protocol):
    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]: ...


class PrincipalSource(Protocol):
    def principal_of(self, job: ListSend) -> Principal | None: ...
