"""Suppression lists over the API: list, get, add one, remove one (by id, or by type and address),
bulk add and bulk remove. Every write call is audited once (bulk: one entry with its counts).

Bulk calls share a per-account minute window (domain.BULK_CALLS_PER_MINUTE calls and
BULK_ENTRIES_PER_MINUTE entries; the import route counts its call there too): past either, 429
rate_limit_exceeded with Retry-After. A bulk add reads which addresses are on the list already
(BatchGetItem) and writes only the others (BatchWriteItem), so an existing entry keeps its id and
created_at and still counts as added; a retried call writes nothing twice. Entries are charged once
per call and window (domain.bulk_call_digest): the identical retry of a call cut at API Gateway's
29 s (its function ran on, or was stopped half-way) resumes the work without paying for it again.

Removing an unsubscribes entry needs `remove_unsubscribes: true`: the address asked not to be mailed,
and the caller says so explicitly; the audit entry records it.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import unquote

from postline.audit.domain import Actor, AuditEntry
from postline.audit.ports import AuditStore
from postline.audit.service import new_audit_entry
from postline.auth import ratelimit
from postline.keys.identity import Principal
from postline.shared.addresses import normalize_email
from postline.shared.errors import Conflict, NotFound, RateLimited, ValidationFailed
from postline.shared.pagination import Page, make_page
from postline.shared.ports import Clock, IdFactory
from postline.suppressions.domain import (
    BULK_CALLS_PER_MINUTE,
    BULK_ENTRIES_PER_MINUTE,
    Suppression,
    SuppressionSource,
    SuppressionType,
    bulk_call_digest,
    new_suppression,
    sort_entries,
)
from postline.suppressions.models import (
    BulkSuppressionDelete,
    BulkSuppressionDeleteResult,
    BulkSuppressionRequest,
    BulkSuppressionResult,
    SkippedEntry,
    SuppressionCreate,
    SuppressionFilters,
    SuppressionRemoval,
)
from postline.suppressions.ports import BulkWindow, SuppressionStore

UNSUBSCRIBE_REMOVAL = (
    "Removing an unsubscribes entry mails an address that asked not to be mailed: "
    'send {"remove_unsubscribes": true} to confirm.'
)


class SuppressionService:
    def __init__(
        self, *, store: SuppressionStore, window: BulkWindow, audit: AuditStore, ids: IdFactory, clock: Clock
    ) -> None:
        self._store = store
        self._window = window
        self._audit = audit
        self._ids = ids
        self._clock = clock

    # -- reads ------------------------------------------------------------------------------------------

    def list_page(
        self, principal: Principal, filters: SuppressionFilters, *, page: int, per_page: int
    ) -> Page[Suppression]:
        if filters.since and filters.until and filters.since > filters.until:
            raise ValidationFailed("since: must not be after until")
        items, total = self._store.list_page(principal.account.id, filters, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)

    def get(self, principal: Principal, suppression_id: str) -> Suppression:
        return self._stored(principal.account.id, suppression_id)

    # -- one entry --------------------------------------------------------------------------------------

    def add(self, principal: Principal, request: SuppressionCreate) -> tuple[Suppression, bool]:
        """The entry, and whether this call created it (an address on the list already keeps its entry)."""
        now = self._clock.now()
        account_id = principal.account.id
        entry = new_suppression(
            account_id,
            request.type,
            request.email,
            now,
            reason=request.reason,
            source=SuppressionSource.MANUAL,
            override_unsubscribes=request.override_unsubscribes,
        )
        audit = self._entry_audit(principal.actor(), entry, "suppression.created", now)
        created = self._store.create(entry, audit)
        if created is not None:
            return created, True
        existing = self._store.find(account_id, request.type, request.email)
        if existing is None:  # removed between the two: rare, and the client's retry settles it
            raise Conflict("The entry changed concurrently; retry.")
        return existing, False

    def remove(self, principal: Principal, suppression_id: str, removal: SuppressionRemoval) -> Suppression:
        entry = self._stored(principal.account.id, suppression_id)
        return self._remove(principal, entry, removal)

    def remove_address(
        self, principal: Principal, kind: SuppressionType, address: str, removal: SuppressionRemoval
    ) -> Suppression:
        try:
            email = normalize_email(unquote(address))  # API Gateway passes path parameters as sent
        except ValueError as error:
            raise NotFound(f"{address!r} is not on the {kind.value} list.") from error
        entry = self._store.find(principal.account.id, kind, email)
        if entry is None:
            raise NotFound(f"{email} is not on the {kind.value} list.")
        return self._remove(principal, entry, removal)

    def _remove(self, principal: Principal, entry: Suppression, removal: SuppressionRemoval) -> Suppression:
        _check_removal(entry.type, removal.remove_unsubscribes)
        confirmed = "; removal of an unsubscribe confirmed" if entry.type is SuppressionType.UNSUBSCRIBES else ""
        audit = self._entry_audit(principal.actor(), entry, "suppression.deleted", self._clock.now(), confirmed)
        if not self._store.remove(entry, audit):
            raise NotFound(f"Suppression {entry.id} was removed already.")
        return entry

    # -- bulk -------------------------------------------------------------------------------------------

    def bulk_add(self, principal: Principal, request: BulkSuppressionRequest) -> BulkSuppressionResult:
        account_id = principal.account.id
        call = bulk_call_digest("add", request.model_dump_json())
        admit_bulk_call(self._window, self._clock.now(), account_id, entries=len(request.entries), call=call)
        now = self._clock.now()
        plan = sort_entries([entry.email for entry in request.entries])
        emails = [email for _, email in plan.accepted]
        present = self._store.present(account_id, request.type, emails)
        absent = [
            new_suppression(
                account_id,
                request.type,
                email,
                now,
                reason=request.entries[index].reason,
                source=SuppressionSource.MANUAL,
                override_unsubscribes=request.override_unsubscribes,
            )
            for index, email in plan.accepted
            if email not in present
        ]
        self._store.put_many(absent)
        details = (
            f"{request.type.value}: {len(plan.accepted)} added ({len(absent)} new, {len(present)} already listed), "
            f"{len(plan.skipped)} skipped"
        )
        entry = new_audit_entry(
            self._ids, principal.actor(), account_id, "suppressions.bulk_added", request.type.value, details, now=now
        )
        self._audit.record(entry)
        skipped = [SkippedEntry(index=s.index, email=s.email, reason=s.reason) for s in plan.skipped]
        return BulkSuppressionResult(added=len(plan.accepted), skipped=skipped)

    def bulk_remove(self, principal: Principal, request: BulkSuppressionDelete) -> BulkSuppressionDeleteResult:
        account_id = principal.account.id
        _check_removal(request.type, request.remove_unsubscribes)
        call = bulk_call_digest("delete", request.model_dump_json())
        admit_bulk_call(self._window, self._clock.now(), account_id, entries=len(request.emails), call=call)
        now = self._clock.now()
        plan = sort_entries(request.emails)
        present = self._store.present(account_id, request.type, [email for _, email in plan.accepted])
        self._store.delete_many(account_id, request.type, sorted(present))
        removed = len(present)
        not_found = len(request.emails) - removed
        confirmed = "; removal of unsubscribes confirmed" if request.type is SuppressionType.UNSUBSCRIBES else ""
        details = f"{request.type.value}: {removed} removed, {not_found} not found{confirmed}"
        entry = new_audit_entry(
            self._ids, principal.actor(), account_id, "suppressions.bulk_deleted", request.type.value, details, now=now
        )
        self._audit.record(entry)
        return BulkSuppressionDeleteResult(removed=removed, not_found=not_found)

    # -- helpers ----------------------------------------------------------------------------------------

    def _stored(self, account_id: str, suppression_id: str) -> Suppression:
        entry = self._store.get(account_id, suppression_id)
        if entry is None:
            raise NotFound(f"No suppression {suppression_id} in this account.")
        return entry

    def _entry_audit(
        self, actor: Actor, entry: Suppression, action: str, now: datetime, details: str = ""
    ) -> AuditEntry:
        summary = f"{entry.type.value} {entry.email}{details}"
        return new_audit_entry(self._ids, actor, entry.account_id, action, entry.id, summary, now=now)


def _check_removal(kind: SuppressionType, confirmed: bool) -> None:
    if kind is SuppressionType.UNSUBSCRIBES and not confirmed:
        raise ValidationFailed(UNSUBSCRIBE_REMOVAL)


def admit_bulk_call(window: BulkWindow, now: datetime, account_id: str, *, entries: int = 0, call: str = "") -> None:
    """Counts a call (and its entries, unless the call `call` paid for them in this window already) in
    the account's bulk window; 429 rate_limit_exceeded past it."""
    if entries and not call:
        raise ValueError("entries are charged to a call: pass its digest")
    start = ratelimit.window_start(now)
    expires_at = start + 2 * ratelimit.WINDOW_SECONDS
    calls = window.count_bulk_call(account_id, start, expires_at=expires_at)
    decision = ratelimit.decide(limit=BULK_CALLS_PER_MINUTE, used=calls, now=now)
    if not decision.allowed:
        raise RateLimited(
            f"At most {BULK_CALLS_PER_MINUTE} bulk suppression calls (bulk add, bulk delete, import) a minute; "
            f"retry in {decision.reset_seconds}s.",
            code="rate_limit_exceeded",
            retry_after=decision.reset_seconds,
        )
    if entries and not window.take_bulk_entries(
        account_id, start, entries, limit=BULK_ENTRIES_PER_MINUTE, expires_at=expires_at, call=call
    ):
        raise RateLimited(
            f"At most {BULK_ENTRIES_PER_MINUTE:,} entries a minute through the bulk routes; "
            f"retry in {decision.reset_seconds}s.",
            code="rate_limit_exceeded",
            retry_after=decision.reset_seconds,
        )
