"""The resources table's stores (accounts, keys, audit) and the counters, against moto on template.yaml's tables."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey
from postline.keys.store import DynamoKeyStore
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.usage.store import DynamoCounterStore
from postline.wiring import accounts, usage
from postline.wiring import audit as audit_root
from postline.wiring import keys as keys_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def keys(stack: InProcessStack) -> DynamoKeyStore:
    return keys_root.key_store()


def _audit(account_id: str, action: str = "test.action", at: datetime = NOW) -> AuditEntry:
    return audit_entry(
        entry_id=str(uuid.uuid4()),
        account_id=account_id,
        actor=Actor(ActorType.USER, "u", "127.0.0.1"),
        action=action,
        target=None,
        now=at,
    )


def _account() -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex}", name="a", plan=Plan.FREE, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    return account


def _key(account: Account, key_hash: str | None = None) -> ApiKey:
    return ApiKey(
        id=f"key_{uuid.uuid4().hex}",
        account_id=account.id,
        name="k",
        prefix="pl_live_abcd",
        scope=Scope.FULL_ACCESS,
        env=Environment.LIVE,
        key_hash=key_hash or uuid.uuid4().hex,
        created_at=NOW,
    )


def test_the_plan_limit_is_enforced_by_the_conditional_count(keys: DynamoKeyStore) -> None:
    # Atomicity under concurrency is DynamoDB's guarantee for a conditional transaction (moto's
    # in-process backend does not lock); this checks that the limit rides on that condition.
    account = _account()
    for _ in range(3):
        keys.create_key(_key(account), max_keys=3, audit=_audit(account.id, "key.created"))
    with pytest.raises(Forbidden) as refused:
        keys.create_key(_key(account), max_keys=3, audit=_audit(account.id, "key.created"))
    assert refused.value.code == "plan_limit_reached"
    assert len(keys.list_keys(account.id)) == 3


def test_a_failed_create_writes_nothing(keys: DynamoKeyStore) -> None:
    account = _account()
    key = _key(account)
    with pytest.raises(Forbidden):
        keys.create_key(key, max_keys=0, audit=_audit(account.id, "key.created"))
    assert keys.find_key_by_hash(key.key_hash) is None
    assert [e.action for e in audit_root.audit_store().list_audit(account.id, page=1, per_page=10)[0]] == [
        "account.created"
    ]


def test_rotation_moves_the_lookup_and_loses_a_race_cleanly(keys: DynamoKeyStore) -> None:
    account = _account()
    key = _key(account, "old")
    keys.create_key(key, max_keys=10, audit=_audit(account.id))
    rotated = key.model_copy(update={"key_hash": "new"})
    keys.rotate_key(rotated, previous_hash="old", audit=_audit(account.id, "key.rotated"))
    assert keys.find_key_by_hash("old") is None
    assert keys.find_key_by_hash("new") == (account.id, key.id)
    # A second rotation computed from the stale read must not resurrect anything.
    with pytest.raises(Conflict, match="rotated concurrently; retry"):  # the key is there: 409, a retry reads it again
        keys.rotate_key(key.model_copy(update={"key_hash": "other"}), previous_hash="old", audit=_audit(account.id))
    assert keys.find_key_by_hash("other") is None
    gone = key.model_copy(update={"id": "key_not_stored", "key_hash": "other"})
    with pytest.raises(NotFound, match="API key not found"):
        keys.rotate_key(gone, previous_hash="old", audit=_audit(account.id))
    assert keys.get_key(account.id, key.id).key_hash == "new"  # type: ignore[union-attr]


def test_last_used_is_written_at_most_once_a_minute_and_survives_updates(keys: DynamoKeyStore) -> None:
    account = _account()
    key = _key(account)
    keys.create_key(key, max_keys=10, audit=_audit(account.id))
    keys.touch_last_used(key, NOW)
    keys.touch_last_used(key, NOW + timedelta(seconds=30))
    assert keys.get_key(account.id, key.id).last_used_at == NOW  # type: ignore[union-attr]
    keys.touch_last_used(key, NOW + timedelta(seconds=61))
    fresh = keys.get_key(account.id, key.id)
    assert fresh is not None and fresh.last_used_at == NOW + timedelta(seconds=61)
    keys.update_key(fresh.model_copy(update={"name": "renamed"}), _audit(account.id, "key.updated"))
    assert keys.get_key(account.id, key.id).last_used_at == NOW + timedelta(seconds=61)  # type: ignore[union-attr]


def test_delete_frees_the_plan_slot(keys: DynamoKeyStore) -> None:
    account = _account()
    key = _key(account)
    keys.create_key(key, max_keys=1, audit=_audit(account.id))
    keys.delete_key(key, _audit(account.id, "key.deleted"))
    assert keys.find_key_by_hash(key.key_hash) is None
    keys.create_key(_key(account), max_keys=1, audit=_audit(account.id))
    with pytest.raises(NotFound):
        keys.delete_key(key, _audit(account.id, "key.deleted"))


def test_an_account_id_taken_is_a_permanent_refusal_and_writes_nothing(keys: DynamoKeyStore) -> None:
    account = _account()
    again = Account(id=account.id, name="other", plan=Plan.PROFESSIONAL, created_at=NOW)
    with pytest.raises(ValidationFailed, match="already exists"):
        accounts.account_store().create_account(again, _audit(account.id, "account.created.again"))
    stored = accounts.account_store().get_account(account.id)
    assert stored is not None and (stored.name, stored.plan) == ("a", Plan.FREE)
    entries, total = audit_root.audit_store().list_audit(account.id, page=1, per_page=25)
    assert (total, [e.action for e in entries]) == (1, ["account.created"])


def test_audit_pages_are_newest_first_across_query_pages(keys: DynamoKeyStore) -> None:
    account = _account()
    for minute in range(1, 61):
        audit_root.audit_store().record(_audit(account.id, f"a.{minute:02d}", NOW + timedelta(minutes=minute)))
    page_one, total = audit_root.audit_store().list_audit(account.id, page=1, per_page=25)
    page_three, _ = audit_root.audit_store().list_audit(account.id, page=3, per_page=25)
    assert total == 61
    assert [e.action for e in page_one[:2]] == ["a.60", "a.59"]
    assert [e.action for e in page_three] == [f"a.{m:02d}" for m in range(10, 0, -1)] + ["account.created"]
    assert audit_root.audit_store().list_audit(account.id, page=4, per_page=25) == ([], 61)


def test_rate_windows_count_per_account_and_window(stack: InProcessStack) -> None:
    counters: DynamoCounterStore = usage.counter_store()
    account_id = uuid.uuid4().hex
    assert [counters.count_request(account_id, 60, expires_at=180) for _ in range(3)] == [1, 2, 3]
    assert counters.count_request(account_id, 120, expires_at=240) == 1
    assert counters.count_request(uuid.uuid4().hex, 60, expires_at=180) == 1
    counters.uncount_request(account_id, 60)  # a refused request's count taken back
    assert counters.count_request(account_id, 60, expires_at=180) == 3


def test_a_cached_hash_lookup_never_revives_a_deleted_or_rotated_key(keys: DynamoKeyStore) -> None:
    account = _account()
    key = _key(account, "h1")
    keys.create_key(key, max_keys=10, audit=_audit(account.id))
    assert keys.find_key_by_hash("h1") == (account.id, key.id)  # now cached
    keys.rotate_key(key.model_copy(update={"key_hash": "h2"}), previous_hash="h1", audit=_audit(account.id))
    stale_ids = keys.find_key_by_hash("h1")
    assert stale_ids == (account.id, key.id)  # the cache may still answer...
    current, _ = keys.get_key_with_account(*stale_ids)
    assert current is not None and current.key_hash == "h2"  # ...but the key item, which auth compares, says no
    assert keys.known_key("h1") == stale_ids and keys.known_key("h2") is None  # known only once found
