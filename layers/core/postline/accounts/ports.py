"""What account use cases need from storage.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry


class AccountStore(Protocol):
    def get_account(self, account_id: str) -> Account | None: ...

    def create_account(self, account: Account, audit: AuditEntry) -> None: ...

    def update_account(self, account: Account, audit: AuditEntry) -> None: ...

    def platform_sending_paused(self) -> bool: ...

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None: ...
