"""Reading the audit log."""

from __future__ import annotations

from postline.domain.audit import AuditEntry
from postline.domain.identity import Principal
from postline.domain.pagination import Page, make_page
from postline.services.ports import AuditStore


class AuditService:
    def __init__(self, *, audit: AuditStore) -> None:
        self._audit = audit

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[AuditEntry]:
        items, total = self._audit.list_audit(principal.account.id, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)
