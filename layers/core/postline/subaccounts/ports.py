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
    from postline.subaccounts.domain import PurgeJob


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

    def delete_subaccount(self, account: Account, audits: Sequence[AuditEntry], purge: PurgeJob) -> None:
        """Trashes the account, frees its slug and its place in the parent's count, and stores the
        purge job of its data, in one transaction."""
        ...


class SubaccountKeys(Protocol):
    """A deleted subaccount's keys, revoked as it is deleted."""

    def list_keys(self, account_id: str) -> list[ApiKey]: ...

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None: ...


class AccountLookup(Protocol):
    """An organisation's accounts by id (subaccounts/organisation.py: the parent of a subaccount)."""

    def get_account(self, account_id: str) -> Account | None: ...


class PurgeJobs(Protocol):
    """Deleted subaccounts' purges waiting for their next step."""

    def due_purges(self, limit: int) -> list[PurgeJob]: ...

    def save_purge(self, job: PurgeJob) -> None:
        """Records the job's progress (its phase and counts), so the next run resumes there."""
        ...

    def finish_purge(self, job: PurgeJob, audit: AuditEntry) -> None:
        """Removes the job, recording `audit` (in the organisation's log) in the same transaction."""
        ...


class AccountData(Protocol):
    """A deleted subaccount's stored data, removed at most `limit` items (or files) a call; each
    returns how many it removed, 0 once there is nothing left of its kind."""

    def delete_list_members(self, account_id: str, limit: int) -> int: ...

    def delete_suppressions(self, account_id: str, limit: int) -> int: ...

    def delete_upload_files(self, account_id: str, limit: int) -> int: ...

    def delete_items(self, account_id: str, limit: int) -> int:
        """Items of its partition but its account item (kept, trashed, as the tombstone)."""
        ...

    # What each delete_* would remove if called until it returns 0 (a purge's phase, counted as it begins).
    def count_list_members(self, account_id: str) -> int:
        """Its lists' members, and each list's item."""
        ...

    def count_suppressions(self, account_id: str) -> int: ...

    def count_upload_files(self, account_id: str) -> int: ...

    def count_items(self, account_id: str) -> int: ...


class DomainPurge(Protocol):
    def purge_domains(self, account_id: str, limit: int) -> int:
        """Deletes up to `limit` of the account's sending domains (with their grants and provider
        identities); how many it deleted."""
        ...

    def count_domains(self, account_id: str) -> int:
        """How many sending domains the account has (what purge_domains would delete in all)."""
        ...
