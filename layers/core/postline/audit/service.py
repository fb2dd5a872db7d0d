"""Reading the audit log: an account's entries, newest first (the caller's account, named by id: the
audit area sits below the keys that identify callers); and how every service makes an entry
(new_audit_entry)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from postline.audit.domain import Actor, AuditEntry, audit_entry
from postline.audit.ports import AuditStore
from postline.shared.pagination import Page, make_page
from postline.shared.ports import IdFactory


class AuditService:
    def __init__(self, *, audit: AuditStore) -> None:
        self._audit = audit

    def list_page(self, account_id: str, *, page: int, per_page: int) -> Page[AuditEntry]:
        items, total = self._audit.list_audit(account_id, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)


# The entries new_audit_entry makes while a collection is open (entries_made): the HTTP layer copies
# those of a write made on behalf of a subaccount into its organisation's log.
_made: ContextVar[list[AuditEntry] | None] = ContextVar("postline_audit_entries_made", default=None)


@contextmanager
def entries_made() -> Iterator[list[AuditEntry]]:
    """Collects every entry new_audit_entry makes in this context (this thread) until it closes."""
    made: list[AuditEntry] = []
    token = _made.set(made)
    try:
        yield made
    finally:
        _made.reset(token)


def organisation_copy(entry: AuditEntry, *, entry_id: str, organisation_id: str, subaccount: str) -> AuditEntry:
    """The organisation's record of `entry`, a write its credential made on behalf of a subaccount:
    the same actor, action, target and time, in the organisation's log, saying for which subaccount."""
    details = f"on behalf of subaccount {subaccount}" + (f": {entry.details}" if entry.details else "")
    return entry.model_copy(update={"id": entry_id, "account_id": organisation_id, "details": details})


def new_audit_entry(
    ids: IdFactory,
    actor: Actor,
    account_id: str | None,
    action: str,
    target: str | None,
    details: str | None = None,
    *,
    now: datetime,
) -> AuditEntry:
    """The one way a service makes an audit entry: who (`actor`), in which account (None: the
    platform's), did what (`action`) to what (`target`), at the time of the change, under a new id
    (staff and system actors redacted: audit/domain.py audit_entry). A store writes it in the
    transaction of the change it describes, or AuditStore.record on its own."""
    entry = audit_entry(
        entry_id=ids.new_id(),
        account_id=account_id,
        actor=actor,
        action=action,
        target=target,
        details=details,
        now=now,
    )
    made = _made.get()
    if made is not None:
        made.append(entry)
    return entry
