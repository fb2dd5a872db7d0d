"""What the audit log needs from storage.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry


class AuditStore(Protocol):
    def record(self, entry: AuditEntry) -> None: ...

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]: ...
