"""What the subaccount service and the authenticator need from storage.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry
    from postline.keys.domain import ApiKey


class SubaccountLookup(Protocol):
    def find_subaccount(self, parent_id: str, reference: str) -> Account | None:
        """The subaccount of `parent_id` that `reference` names (its id or its slug), if it exists and
        is not deleted; None otherwise (another organisation's, a sibling's own id, anything else)."""
        ...


class SubaccountStore(SubaccountLookup, Protocol):
    def list_subaccounts(self, parent_id: str, *, page: int, per_page: int) -> tuple[list[Account], int]:
        """One page of the parent's subaccounts by slug, and how many it has."""
        ...

    def create_subaccount(self, account: Account, *, max_subaccounts: int, audits: Sequence[AuditEntry]) -> None:
        """Raises Forbidden(plan_limit_reached) when the parent holds max_subaccounts already, and
        ValidationFailed when its slug is taken in the organisation."""
        ...

    def update_subaccount(self, account: Account, fields: Sequence[str], audits: Sequence[AuditEntry]) -> None:
        """Writes `fields` of the stored subaccount (name, suspended_by_parent), only while it still
        belongs to its parent and is not deleted."""
        ...

    def delete_subaccount(self, account: Account, audits: Sequence[AuditEntry]) -> None:
        """Trashes the account, frees its slug and its place in the parent's count."""
        ...


class SubaccountKeys(Protocol):
    """A deleted subaccount's keys, revoked as it is deleted."""

    def list_keys(self, account_id: str) -> list[ApiKey]: ...

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None: ...


class AccountLookup(Protocol):
    """An organisation's accounts by id (subaccounts/organisation.py: the parent of a subaccount)."""

    def get_account(self, account_id: str) -> Account | None: ...
