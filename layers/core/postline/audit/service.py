"""Reading the audit log: an account's entries, newest first (the caller's account, named by id: the
audit area sits below the keys that identify callers)."""

from __future__ import annotations

from postline.audit.domain import AuditEntry
from postline.audit.ports import AuditStore
from postline.shared.pagination import Page, make_page


class AuditService:
    def __init__(self, *, audit: AuditStore) -> None:
        self._audit = audit

    def list_page(self, account_id: str, *, page: int, per_page: int) -> Page[AuditEntry]:
        items, total = self._audit.list_audit(account_id, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)
