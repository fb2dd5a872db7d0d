"""Reading the audit log: an account's entries, newest first (the caller's account, named by id: the
audit area sits below the keys that identify callers); and how every service makes an entry
(new_audit_entry)."""

from __future__ import annotations

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
    return audit_entry(
        entry_id=ids.new_id(),
        account_id=account_id,
        actor=actor,
        action=action,
        target=target,
        details=details,
        now=now,
    )
