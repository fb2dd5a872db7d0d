"""The IP pool store against moto on template.yaml's resources table: the plan's count on the
account's item, the default pool on it, versioned pool writes, an address held once and moved
between pools in one transaction, platform pools in their own partition."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.ip_pools.domain import Pool, PoolType
from postline.ip_pools.store import DynamoIpPoolStore
from postline.shared.errors import Conflict, Forbidden, ValidationFailed
from postline.wiring import accounts
from postline.wiring import ip_pools as ip_pools_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(stack: InProcessStack) -> DynamoIpPoolStore:
    return ip_pools_root.ip_pool_store()


def _audit(account_id: str | None, action: str = "ip_pool.created") -> AuditEntry:
    actor = Actor(ActorType.USER, "key_1", "127.0.0.1")
    return audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=actor, action=action, target=None,
                       now=NOW)  # fmt: skip


def _account() -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex}", name="a", plan=Plan.PROFESSIONAL, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    return account


def _pool(account_id: str | None, name: str, kind: PoolType = PoolType.DEDICATED) -> Pool:
    return Pool(id=str(uuid.uuid4()), account_id=account_id, name=name, type=kind, created_at=NOW)


def test_pools_are_counted_against_the_plan_and_the_default_kept_on_the_account(store: DynamoIpPoolStore) -> None:
    account = _account()
    first, second, third = (_pool(account.id, name) for name in ("a", "b", "c"))
    store.create_pool(first, max_pools=2, make_default=True, audit=_audit(account.id))
    store.create_pool(second, max_pools=2, make_default=False, audit=_audit(account.id))
    with pytest.raises(Forbidden) as refused:
        store.create_pool(third, max_pools=2, make_default=False, audit=_audit(account.id))
    assert refused.value.code == "plan_limit_reached"
    stored = accounts.account_store().get_account(account.id)
    assert stored is not None and stored.default_ip_pool_id == first.id
    assert sorted(p.name for p in store.list_pools(account.id)) == ["a", "b"]  # same created_at: by id

    store.delete_pool(first, was_default=True, audit=_audit(account.id, "ip_pool.deleted"))
    stored = accounts.account_store().get_account(account.id)
    assert stored is not None and stored.default_ip_pool_id is None
    store.create_pool(third, max_pools=2, make_default=False, audit=_audit(account.id))  # room again
    assert store.get_pool(account.id, first.id) is None and store.get_pool(account.id, third.id) == third


def test_writes_are_at_the_version_read(store: DynamoIpPoolStore) -> None:
    account = _account()
    pool = _pool(account.id, "a")
    store.create_pool(pool, max_pools=5, make_default=False, audit=_audit(account.id))
    renamed = pool.model_copy(update={"name": "renamed", "version": 1})
    store.save_pool(renamed, default=True, audit=_audit(account.id, "ip_pool.updated"))
    with pytest.raises(Conflict):  # a second writer that read version 0
        store.save_pool(pool.model_copy(update={"name": "late", "version": 1}), default=None, audit=_audit(account.id))
    assert store.get_pool(account.id, pool.id) == renamed
    store.save_pool(renamed.model_copy(update={"version": 2}), default=False, audit=_audit(account.id))
    stored = accounts.account_store().get_account(account.id)
    assert stored is not None and stored.default_ip_pool_id is None


def test_an_address_is_held_once_and_moved_between_pools(store: DynamoIpPoolStore) -> None:
    account = _account()
    platform = _pool(None, f"shared-{uuid.uuid4().hex[:6]}", PoolType.SHARED)
    store.create_pool(platform, max_pools=None, make_default=False, audit=_audit(None))
    assert store.get_pool(None, platform.id) == platform and store.get_pool(account.id, platform.id) is None
    source, target = _pool(account.id, "a"), _pool(account.id, "b", PoolType.WARMING)
    for pool in (source, target):
        store.create_pool(pool, max_pools=5, make_default=False, audit=_audit(account.id))
    ip = f"127.0.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 2}"
    holding = source.model_copy(update={"ips": [ip], "version": 1})
    store.allocate_ip(ip, holding, _audit(None, "ip.allocated"))
    assert store.ip_holder(ip) == (account.id, source.id)
    with pytest.raises(ValidationFailed):
        store.allocate_ip(ip, platform.model_copy(update={"ips": [ip], "version": 1}), _audit(None, "ip.allocated"))

    emptied = holding.model_copy(update={"ips": [], "version": 2})
    filled = target.model_copy(update={"ips": [ip], "version": 1})
    store.move_ip(ip, emptied, filled, _audit(account.id, "ip_pool.ip_assigned"))
    assert store.ip_holder(ip) == (account.id, target.id)
    assert store.get_pool(account.id, source.id) == emptied and store.get_pool(account.id, target.id) == filled
    with pytest.raises(Conflict):  # the same move again: the versions and the holder have moved on
        store.move_ip(ip, emptied, filled, _audit(account.id, "ip_pool.ip_assigned"))

    store.release_ip(ip, filled.model_copy(update={"ips": [], "version": 2}), _audit(None, "ip.released"))
    assert store.ip_holder(ip) is None
