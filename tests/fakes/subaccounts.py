"""Fakes of the subaccounts area's ports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from postline.accounts.domain import Account
from postline.audit.domain import AuditEntry
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.shared.pagination import page_window
from postline.subaccounts.domain import PurgeJob, belongs_to, is_slug, is_subaccount_id
from tests.fakes.keys import InMemoryStore

if TYPE_CHECKING:
    from postline.subaccounts.ports import AccountData, DomainPurge, PurgeJobs, SubaccountStore


class InMemorySubaccounts:
    """SubaccountStore over an InMemoryStore's accounts, as the adapter: a slug unique per parent, the
    plan's count checked first, writes only while the subaccount is its parent's and not deleted
    (else NotFound when gone, Conflict when trashed), a deletion trashes it and frees its slug."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self._slugs: dict[tuple[str, str], str] = {}  # (parent, slug) -> subaccount id
        self.purges: dict[str, PurgeJob] = {}  # subaccount id -> its purge job

    def find_subaccount(self, parent_id: str, reference: str) -> Account | None:
        found = reference if is_subaccount_id(reference) else None
        if is_slug(reference):
            found = self._slugs.get((parent_id, reference))
        account = self._store.get_account(found) if found else None
        return account if account is not None and belongs_to(account, parent_id) else None

    def list_subaccounts(self, parent_id: str, *, page: int, per_page: int) -> tuple[list[Account], int]:
        ids = [sub for (parent, _), sub in sorted(self._slugs.items()) if parent == parent_id]
        start, stop = page_window(page, per_page)
        accounts = [self._store.get_account(sub) for sub in ids[start:stop]]
        return [a for a in accounts if a is not None and belongs_to(a, parent_id)], len(ids)

    def create_subaccount(self, account: Account, *, max_subaccounts: int, audits: Sequence[AuditEntry]) -> None:
        parent, slug = account.parent_account_id or "", account.slug or ""
        if self._store.get_account(parent) is None or sum(p == parent for p, _ in self._slugs) >= max_subaccounts:
            raise Forbidden(f"Your plan allows at most {max_subaccounts} subaccounts", code="plan_limit_reached")
        if (parent, slug) in self._slugs:
            raise ValidationFailed(f"slug: {slug!r} is taken")
        self._store._accounts[account.id] = {**account.model_dump(mode="json"), "list_count": 0}
        self._store._key_counts[account.id] = 0
        self._slugs[(parent, slug)] = account.id
        for audit in audits:
            self._store.record(audit)

    def update_subaccount(self, account: Account, fields: Sequence[str], audits: Sequence[AuditEntry]) -> None:
        self._stored(account).update(account.model_dump(mode="json", include=set(fields)))
        for audit in audits:
            self._store.record(audit)

    def delete_subaccount(self, account: Account, audits: Sequence[AuditEntry], purge: PurgeJob) -> None:
        self._stored(account)["status"] = "trashed"
        del self._slugs[(account.parent_account_id or "", account.slug or "")]
        for audit in audits:
            self._store.record(audit)
        self.purges[purge.account_id] = purge

    # -- PurgeJobs --

    def due_purges(self, limit: int) -> list[PurgeJob]:
        return [job.model_copy() for _, job in sorted(self.purges.items())][:limit]

    def save_purge(self, job: PurgeJob) -> None:
        self.purges[job.account_id] = job.model_copy()

    def finish_purge(self, job: PurgeJob, audit: AuditEntry) -> None:
        del self.purges[job.account_id]
        self._store.record(audit)

    def _stored(self, account: Account) -> dict[str, Any]:
        stored = self._store._accounts.get(account.id)
        if stored is None:
            raise NotFound(f"subaccount {account.id} not found")
        if not belongs_to(Account.model_validate(stored), account.parent_account_id or ""):
            raise Conflict(f"subaccount {account.id} changed concurrently; retry")
        return stored


class StoredData:
    """AccountData and DomainPurge over plain collections of what each account holds, by kind
    ("list_members", "suppressions", "uploads", "items", "domains"): each call removes up to `limit`."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, str], list[str]] = {}  # (account, kind) -> its things
        self.calls = 0

    def hold(self, account_id: str, kind: str, count: int) -> None:
        self.held[(account_id, kind)] = [f"{kind}-{n}" for n in range(count)]

    def _remove(self, account_id: str, kind: str, limit: int) -> int:
        self.calls += 1
        things = self.held.get((account_id, kind), [])
        removed, self.held[(account_id, kind)] = things[:limit], things[limit:]
        return len(removed)

    def delete_list_members(self, account_id: str, limit: int) -> int:
        return self._remove(account_id, "list_members", limit)

    def delete_suppressions(self, account_id: str, limit: int) -> int:
        return self._remove(account_id, "suppressions", limit)

    def delete_upload_files(self, account_id: str, limit: int) -> int:
        return self._remove(account_id, "uploads", limit)

    def delete_items(self, account_id: str, limit: int) -> int:
        return self._remove(account_id, "items", limit)

    def purge_domains(self, account_id: str, limit: int) -> int:
        return self._remove(account_id, "domains", limit)

    def _count(self, account_id: str, kind: str) -> int:
        self.calls += 1
        return len(self.held.get((account_id, kind), []))

    def count_list_members(self, account_id: str) -> int:
        return self._count(account_id, "list_members")

    def count_suppressions(self, account_id: str) -> int:
        return self._count(account_id, "suppressions")

    def count_upload_files(self, account_id: str) -> int:
        return self._count(account_id, "uploads")

    def count_items(self, account_id: str) -> int:
        return self._count(account_id, "items")

    def count_domains(self, account_id: str) -> int:
        return self._count(account_id, "domains")


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _subaccounts: SubaccountStore = InMemorySubaccounts(InMemoryStore())
    _purges: PurgeJobs = InMemorySubaccounts(InMemoryStore())
    _data: AccountData = StoredData()
    _domain_purge: DomainPurge = StoredData()
