"""Mailing lists over the API: lists (create, list, get by id or address, update, delete) and their
members (add one, bulk upsert, list, get, update, delete). Every write is audited: single writes in
their own transaction, a bulk upsert once per call with its counts.

Deleting a list removes it and its address at once (its address is free again) and queues the
removal of its members, which the list worker does in bounded pages (functions/workers/list_jobs.py).
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import unquote

from postline.audit.domain import AuditEntry
from postline.audit.ports import AuditStore
from postline.audit.service import new_audit_entry
from postline.keys.access import Scope
from postline.keys.identity import Principal
from postline.lists.domain import (
    ListMember,
    MailingList,
    chunks,
    looks_like_address,
    member_id,
    merged_vars,
    new_list_id,
    normalize_email,
)
from postline.lists.models import (
    BulkMembersRequest,
    BulkMembersResult,
    ListCreate,
    ListUpdate,
    MemberCreate,
    MemberFilters,
    MemberUpdate,
    SkippedMember,
)
from postline.lists.ports import ListJobQueue, ListSendJobs, ListStore
from postline.lists.sends import RUNNING, ListSend, ListSendResult, ListSendStatus
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.shared.pagination import Page, make_page
from postline.shared.ports import Clock, IdFactory
from postline.suppressions.domain import sort_entries

_CHUNK_ATTEMPTS = 5
_CANCEL_ATTEMPTS = 3
REMOVE_PAGE = 1_000  # members the worker removes per page
REMOVE_PAGES = 50  # pages per job message before it queues the rest


class ListService:
    def __init__(
        self,
        *,
        store: ListStore,
        queue: ListJobQueue,
        audit: AuditStore,
        ids: IdFactory,
        clock: Clock,
        sends: ListSendJobs | None = None,
    ) -> None:
        self._sends = sends
        self._store = store
        self._queue = queue
        self._audit = audit
        self._ids = ids
        self._clock = clock

    # -- lists ------------------------------------------------------------------------------------------

    def create(self, principal: Principal, request: ListCreate) -> MailingList:
        now = self._clock.now()
        mailing_list = MailingList(
            id=new_list_id(now),
            account_id=principal.account.id,
            address=request.address,
            name=request.name,
            description=request.description,
            member_count=0,
            created_at=now,
        )
        audit = self._list_audit(principal, mailing_list, "list.created", mailing_list.address, now)
        self._store.create_list(mailing_list, audit, counted=principal.account.list_count is not None)
        return mailing_list

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[MailingList]:
        items, total = self._store.list_page(principal.account.id, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)

    def get(self, principal: Principal, reference: str) -> MailingList:
        """By id, or by address (a reference with an @, URL-encoded or not)."""
        account_id = principal.account.id
        list_id: str | None = reference
        if looks_like_address(unquote(reference)):
            try:
                list_id = self._store.list_id_at(account_id, normalize_email(unquote(reference)))
            except ValueError:
                list_id = None
        found = self._store.get_list(account_id, list_id) if list_id else None
        if found is None:
            raise NotFound(f"No list {unquote(reference)} in this account.")
        return found

    def update(self, principal: Principal, reference: str, request: ListUpdate) -> MailingList:
        current = self.get(principal, reference)
        changed = current.model_copy(update=request.model_dump(exclude_unset=True))
        now = self._clock.now()
        fields = ", ".join(sorted(request.model_fields_set))
        audit = self._list_audit(principal, current, "list.updated", fields, now)
        return self._store.update_list(changed, audit)

    def delete(self, principal: Principal, reference: str) -> MailingList:
        current = self.get(principal, reference)
        details = f"{current.address}, {current.member_count} members removed in the background"
        audit = self._list_audit(principal, current, "list.deleted", details)
        self._store.delete_list(current, audit, counted=principal.account.list_count is not None)
        self._queue.enqueue_deletion(current.account_id, current.id)
        return current

    def remove_members(self, account_id: str, list_id: str) -> bool:
        """The worker's step: removes up to REMOVE_PAGES pages of a deleted list's members; True when
        none are left (and the deletion marker is gone), False when the caller queues the rest."""
        for _ in range(REMOVE_PAGES):
            if self._store.remove_members(list_id, limit=REMOVE_PAGE) == 0:
                self._store.deletion_done(account_id, list_id)
                return True
        self._queue.enqueue_deletion(account_id, list_id)
        return False

    def get_send(self, principal: Principal, reference: str, send_id: str) -> ListSendResult:
        """A send to one of the account's lists (lists/sends.py), by the list's id or address and the
        send's id; it stays readable after the list is deleted, by either."""
        return ListSendResult.of(self._send(principal, reference, send_id))

    def cancel_send(self, principal: Principal, reference: str, send_id: str) -> ListSendResult:
        """Stops a list send (module text of lists/send_service.py): pending or scheduled, nobody is
        mailed (cancelled at once, its schedule deleted); sending, no further page goes out
        (cancelled, or cancelling until the worker's page in flight is counted). An ended or cancelling send:
        400, as for a scheduled message that can no longer be cancelled; a race with the worker: 409.
        Like a scheduled message's cancel, a send_only key may cancel the sends it made."""
        job = self._send(principal, reference, send_id)
        if principal.scope is Scope.SEND_ONLY and job.key_id != principal.key_id:
            raise Forbidden("A send_only key may cancel only the list sends it made.", code="insufficient_scope")
        sends = self._sends
        if sends is None:  # _send found the job through it: never so
            raise NotFound(f"No send {send_id} in this account.")
        now = self._clock.now()

        def audit(job: ListSend, status: ListSendStatus) -> AuditEntry:
            """The entry written with the move (in its transaction), stating the counts it holds on."""
            details = f"{send_id}: {status.value} after {job.members} members ({job.accepted} accepted)"
            return new_audit_entry(
                self._ids, principal.actor(), job.account_id, "list.send_cancelled", job.list_id, details, now=now
            )

        for _ in range(_CANCEL_ATTEMPTS):  # each miss means the job moved meanwhile: read it again
            if job.status not in RUNNING:
                raise ValidationFailed(
                    f"List send {send_id} is {job.status.value}: only a pending, scheduled or sending one can be "
                    "cancelled."
                )
            stopped = sends.cancel_unheld(job, now, audit(job, ListSendStatus.CANCELLED)) or sends.request_cancel(
                job, now, audit(job, ListSendStatus.CANCELLING)
            )
            if stopped is not None:
                break
            job = self._send(principal, reference, send_id)
        else:
            raise Conflict(f"List send {send_id} changed concurrently; retry.")
        if job.send_at is not None and stopped.status is ListSendStatus.CANCELLED:
            self._queue.unschedule_send(job.id)  # a schedule that fires anyway finds the job cancelled
        return ListSendResult.of(stopped)

    def _send(self, principal: Principal, reference: str, send_id: str) -> ListSend:
        job = self._sends.get(principal.account.id, send_id) if self._sends else None
        wanted = unquote(reference)
        if job is not None and (job.list_id == wanted or job.list_address == wanted.strip().lower()):
            return job
        raise NotFound(f"No send {send_id} to list {wanted} in this account.")

    # -- members ----------------------------------------------------------------------------------------

    def add_member(self, principal: Principal, reference: str, request: MemberCreate) -> ListMember:
        mailing_list = self.get(principal, reference)
        now = self._clock.now()
        member = ListMember(
            id=member_id(mailing_list.id, request.address),
            list_id=mailing_list.id,
            address=request.address,
            name=request.name,
            vars=request.vars or None,
            subscribed=request.subscribed,
            created_at=now,
        )
        audit = self._list_audit(principal, mailing_list, "list.member_added", member.address, now)
        self._store.add_member(mailing_list.account_id, member, audit)
        return member

    def members_page(
        self, principal: Principal, reference: str, filters: MemberFilters, *, page: int, per_page: int
    ) -> Page[ListMember]:
        mailing_list = self.get(principal, reference)
        items, total = self._store.members_page(mailing_list.id, filters, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)

    def get_member(self, principal: Principal, reference: str, address: str) -> ListMember:
        mailing_list = self.get(principal, reference)
        return self._member(mailing_list, address)[0]

    def update_member(self, principal: Principal, reference: str, address: str, request: MemberUpdate) -> ListMember:
        mailing_list = self.get(principal, reference)
        current, revision = self._member(mailing_list, address)
        changes = request.model_dump(exclude_unset=True)
        if "vars" in changes:
            changes["vars"] = changes["vars"] or None
        changed = current.model_copy(update=changes)
        details = f"{current.address}: " + ", ".join(sorted(request.model_fields_set))
        audit = self._list_audit(principal, mailing_list, "list.member_updated", details)
        if not self._store.update_member(changed, revision, audit):
            raise Conflict(f"{current.address} changed concurrently (or was removed); retry.")
        return changed

    def delete_member(self, principal: Principal, reference: str, address: str) -> ListMember:
        mailing_list = self.get(principal, reference)
        current, _ = self._member(mailing_list, address)
        audit = self._list_audit(principal, mailing_list, "list.member_deleted", current.address)
        if not self._store.delete_member(mailing_list.account_id, mailing_list.id, current.address, audit):
            raise NotFound(f"{current.address} is not a member of this list.")
        return current

    def bulk_upsert(self, principal: Principal, reference: str, request: BulkMembersRequest) -> BulkMembersResult:
        """Upserts by address, 99 members to a transaction with the count; a chunk that meets a
        concurrent writer is read again and retried, so nothing is counted twice."""
        mailing_list = self.get(principal, reference)
        now = self._clock.now()
        plan = sort_entries([member.address for member in request.members])
        created = updated = 0
        for chunk in chunks(plan.accepted):
            new, changed = self._upsert_chunk(mailing_list, request, chunk, now)
            created += new
            updated += changed
        details = f"{created} created, {updated} updated, {len(plan.skipped)} skipped"
        self._audit.record(self._list_audit(principal, mailing_list, "list.members_upserted", details, now))
        skipped = [SkippedMember(index=s.index, address=s.email, reason=s.reason) for s in plan.skipped]
        after = self._store.get_list(mailing_list.account_id, mailing_list.id)
        return BulkMembersResult(
            created=created, updated=updated, skipped=skipped, member_count=after.member_count if after else 0
        )

    def _upsert_chunk(
        self, mailing_list: MailingList, request: BulkMembersRequest, chunk: list[tuple[int, str]], now: datetime
    ) -> tuple[int, int]:
        for _ in range(_CHUNK_ATTEMPTS):
            stored = self._store.members_at(mailing_list.id, [address for _, address in chunk])
            created: list[ListMember] = []
            changed: list[tuple[ListMember, int]] = []
            for index, address in chunk:
                given = request.members[index]
                if address in stored:
                    current, revision = stored[address]
                    updates: dict[str, object] = {"vars": merged_vars(current.vars, given.vars,
                                                                      replace=request.replace_vars)}  # fmt: skip
                    if given.name is not None:
                        updates["name"] = given.name
                    if given.subscribed is not None:
                        updates["subscribed"] = given.subscribed
                    changed.append((current.model_copy(update=updates), revision))
                else:
                    created.append(
                        ListMember(
                            id=member_id(mailing_list.id, address),
                            list_id=mailing_list.id,
                            address=address,
                            name=given.name,
                            vars=merged_vars(None, given.vars, replace=True),
                            subscribed=True if given.subscribed is None else given.subscribed,
                            created_at=now,
                        )
                    )
            codes = self._store.upsert_members(mailing_list.account_id, mailing_list.id, created, changed)
            if not codes:
                return len(created), len(changed)
            if codes[-1] == "ConditionalCheckFailed":  # the count's condition: the list is gone
                raise NotFound(f"No list {mailing_list.id} in this account.")
        raise Conflict("The list's members changed concurrently too often; retry.")

    # -- helpers ----------------------------------------------------------------------------------------

    def _member(self, mailing_list: MailingList, address: str) -> tuple[ListMember, int]:
        try:
            email = normalize_email(unquote(address))  # API Gateway passes path parameters as sent
        except ValueError as error:
            raise NotFound(f"{unquote(address)!r} is not a member of this list.") from error
        found = self._store.get_member(mailing_list.id, email)
        if found is None:
            raise NotFound(f"{email} is not a member of this list.")
        return found

    def _list_audit(
        self, principal: Principal, mailing_list: MailingList, action: str, details: str, now: datetime | None = None
    ) -> AuditEntry:
        """The caller's entry about a list or its members, at `now` (the clock's time when None)."""
        when = self._clock.now() if now is None else now
        return new_audit_entry(
            self._ids, principal.actor(), mailing_list.account_id, action, mailing_list.id, details, now=when
        )
