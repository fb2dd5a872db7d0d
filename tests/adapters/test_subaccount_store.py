"""The subaccount store against moto on template.yaml's resources table: the slug's uniqueness, the
plan's count on the parent's item, writes conditional on the subaccount still being the parent's,
deletion, and the operator's account writes leaving the organisation's fields alone."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from postline.accounts.domain import Account, AccountStatus, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.subaccounts.domain import PurgeJob, PurgePhase
from postline.subaccounts.store import DynamoSubaccountStore
from postline.wiring import accounts
from postline.wiring import audit as audit_root
from postline.wiring import subaccounts as subaccounts_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(stack: InProcessStack) -> DynamoSubaccountStore:
    return subaccounts_root.subaccount_store()


def _audit(account_id: str, action: str = "subaccount.created", target: str | None = None) -> AuditEntry:
    actor = Actor(ActorType.USER, "key_parent", "127.0.0.1")
    return audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=actor, action=action, target=target,
                       now=NOW)  # fmt: skip


def _parent() -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex}", name="org", plan=Plan.PROFESSIONAL, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    return account


def _sub(parent: Account, slug: str) -> Account:
    return Account(id=str(uuid.uuid4()), name=slug.title(), parent_account_id=parent.id, slug=slug, created_at=NOW)


def _create(store: DynamoSubaccountStore, sub: Account, limit: int = 25) -> Account:
    parent = sub.parent_account_id or ""
    store.create_subaccount(sub, max_subaccounts=limit, audits=[_audit(parent, target=sub.id), _audit(sub.id)])
    return sub


def _purge(sub: Account) -> PurgeJob:
    return PurgeJob(account_id=sub.id, parent_account_id=sub.parent_account_id or "", slug=sub.slug or "",
                    created_at=NOW)  # fmt: skip


def _actions(account_id: str) -> list[str]:
    return [e.action for e in audit_root.audit_store().list_audit(account_id, page=1, per_page=25)[0]]


def test_a_subaccount_is_an_account_found_by_id_or_slug_under_its_parent_only(store: DynamoSubaccountStore) -> None:
    parent, other = _parent(), _parent()
    sub = _create(store, _sub(parent, "acme"))
    stored = accounts.account_store().get_account(sub.id)
    assert stored == sub.model_copy(update={"list_count": 0})  # the list count starts at 0, as any account's
    assert store.find_subaccount(parent.id, sub.id) == stored == store.find_subaccount(parent.id, "acme")
    for parent_id, reference in ((other.id, sub.id), (other.id, "acme"), (parent.id, "nope"), (parent.id, parent.id),
                                 (parent.id, "ACME"), (sub.id, sub.id)):  # fmt: skip
        assert store.find_subaccount(parent_id, reference) is None
    assert sorted(_actions(parent.id)) == ["account.created", "subaccount.created"]  # at the same moment
    assert _actions(sub.id) == ["subaccount.created"]


def test_the_slug_is_unique_in_the_organisation_and_a_refused_create_writes_nothing(
    store: DynamoSubaccountStore,
) -> None:
    parent, other = _parent(), _parent()
    _create(store, _sub(parent, "acme"))
    taken = _sub(parent, "acme")
    with pytest.raises(ValidationFailed, match="taken"):
        _create(store, taken)
    assert accounts.account_store().get_account(taken.id) is None and _actions(taken.id) == []
    _create(store, _sub(other, "acme"))
    assert store.list_subaccounts(parent.id, page=1, per_page=25)[1] == 1


def test_the_plans_count_rides_on_the_parents_item(store: DynamoSubaccountStore) -> None:
    # Atomicity under concurrency is DynamoDB's guarantee for a conditional transaction (moto's
    # in-process backend does not lock); this checks that the limit rides on that condition.
    parent = _parent()
    first, second = _create(store, _sub(parent, "a"), limit=2), _create(store, _sub(parent, "b"), limit=2)
    refused = _sub(parent, "c")
    with pytest.raises(Forbidden) as caught:
        _create(store, refused, limit=2)
    assert caught.value.code == "plan_limit_reached"
    assert accounts.account_store().get_account(refused.id) is None
    store.delete_subaccount(first, [_audit(parent.id, "subaccount.deleted")], _purge(first))
    _create(store, refused, limit=2)  # a deletion gives its place back
    assert [a.id for a in store.list_subaccounts(parent.id, page=1, per_page=25)[0]] == [second.id, refused.id]


def test_the_list_is_by_slug_page_numbered(store: DynamoSubaccountStore) -> None:
    parent = _parent()
    for slug in ("delta", "alpha", "charlie", "bravo"):
        _create(store, _sub(parent, slug))
    page, total = store.list_subaccounts(parent.id, page=2, per_page=3)
    assert ([a.slug for a in page], total) == (["delta"], 4)
    assert [a.slug for a in store.list_subaccounts(parent.id, page=1, per_page=3)[0]] == ["alpha", "bravo", "charlie"]
    assert store.list_subaccounts(parent.id, page=3, per_page=3) == ([], 4)


def test_an_update_writes_only_its_fields(store: DynamoSubaccountStore) -> None:
    parent = _parent()
    sub = _create(store, _sub(parent, "acme"))
    store.update_subaccount(sub.model_copy(update={"suspended_by_parent": True}), ["suspended_by_parent"],
                            [_audit(parent.id, "subaccount.suspended")])  # fmt: skip
    # A rename computed from a read before the suspension does not lift it.
    store.update_subaccount(sub.model_copy(update={"name": "Acme GmbH"}), ["name"], [_audit(parent.id)])
    stored = store.find_subaccount(parent.id, "acme")
    assert stored is not None and (stored.name, stored.suspended_by_parent) == ("Acme GmbH", True)
    assert stored.blocked_code() == "account_suspended"


def test_the_operators_account_writes_leave_the_organisations_fields_alone(store: DynamoSubaccountStore) -> None:
    parent = _parent()
    sub = _create(store, _sub(parent, "acme"))
    stale = accounts.account_store().get_account(sub.id)
    assert stale is not None
    store.update_subaccount(sub.model_copy(update={"suspended_by_parent": True}), ["suspended_by_parent"], [])
    accounts.account_store().update_account(stale.model_copy(update={"plan": Plan.PROFESSIONAL, "slug": "x"}),
                                            _audit(sub.id, "account.plan_changed"))  # fmt: skip
    stored = accounts.account_store().get_account(sub.id)
    assert stored is not None
    assert (stored.plan, stored.slug, stored.suspended_by_parent, stored.parent_account_id) == (
        Plan.PROFESSIONAL, "acme", True, parent.id)  # fmt: skip


def test_delete_trashes_it_frees_its_slug_and_later_writes_meet_it_gone(store: DynamoSubaccountStore) -> None:
    parent = _parent()
    sub = _create(store, _sub(parent, "acme"))
    store.delete_subaccount(
        sub, [_audit(parent.id, "subaccount.deleted"), _audit(sub.id, "subaccount.deleted")], _purge(sub)
    )
    stored = accounts.account_store().get_account(sub.id)
    assert stored is not None and stored.status is AccountStatus.TRASHED
    assert store.find_subaccount(parent.id, sub.id) is None and store.find_subaccount(parent.id, "acme") is None
    assert store.list_subaccounts(parent.id, page=1, per_page=25) == ([], 0)
    assert "subaccount.deleted" in _actions(sub.id) and "subaccount.deleted" in _actions(parent.id)
    # It is still stored (trashed): a write computed before the deletion is a conflict, whose retry reads 404.
    with pytest.raises(Conflict):
        store.update_subaccount(sub.model_copy(update={"name": "late"}), ["name"], [])
    with pytest.raises(Conflict):
        store.delete_subaccount(sub, [], _purge(sub))
    with pytest.raises(NotFound):
        store.update_subaccount(_sub(parent, "never"), ["name"], [])
    again = _create(store, _sub(parent, "acme"))
    assert store.find_subaccount(parent.id, "acme") == accounts.account_store().get_account(again.id)


def test_a_deletion_stores_its_purge_job_whose_progress_is_saved_and_whose_end_is_audited(
    store: DynamoSubaccountStore,
) -> None:
    parent = _parent()
    sub = _create(store, _sub(parent, "acme"))
    store.delete_subaccount(sub, [_audit(parent.id, "subaccount.deleted")], _purge(sub))
    [job] = [j for j in store.due_purges(100) if j.account_id == sub.id]
    assert (job.parent_account_id, job.slug, job.phase) == (parent.id, "acme", PurgePhase.KEYS)
    store.save_purge(job.model_copy(update={"phase": PurgePhase.ITEMS, "removed": {"domains": 2}}))
    [saved] = [j for j in store.due_purges(100) if j.account_id == sub.id]
    assert (saved.phase, saved.removed) == (PurgePhase.ITEMS, {"domains": 2})
    store.finish_purge(saved, _audit(parent.id, "subaccount.purged", sub.id))
    assert [j for j in store.due_purges(100) if j.account_id == sub.id] == []
    assert "subaccount.purged" in _actions(parent.id)
