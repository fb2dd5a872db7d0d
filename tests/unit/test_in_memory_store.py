"""The fakes keep the DynamoDB adapter's contract, which the service tests rely on.

These cover the paths a single-threaded service test cannot reach: a write racing a rotation,
a touch racing a delete, a key for an account that is gone.
"""

from __future__ import annotations

import pytest

from postline.audit.domain import Actor, AuditEntry, audit_entry
from postline.keys.access import Environment, Scope
from postline.shared.errors import Conflict, Forbidden, NotFound

from .world import World


def system_audit(world: World, account_id: str | None) -> AuditEntry:
    return audit_entry(
        entry_id=world.ids.new_id(),
        account_id=account_id,
        actor=Actor.system(),
        action="test.write",
        target=None,
        now=world.clock.now(),
    )


def test_a_write_with_a_stale_hash_after_a_rotation_is_a_transient_conflict(world: World) -> None:
    account = world.account()
    created = world.key(account)
    stale = world.store.get_key(account.id, created.id)
    assert stale is not None
    world.keys.rotate(world.console_principal(account), created.id)
    audit_before = len(world.store.audit_entries())

    with pytest.raises(Conflict, match="changed concurrently; retry"):  # a retry reads the key again
        world.store.update_key(stale.model_copy(update={"name": "lost update"}), system_audit(world, account.id))
    with pytest.raises(Conflict, match="rotated concurrently; retry"):
        world.store.rotate_key(stale, previous_hash=stale.key_hash, audit=system_audit(world, account.id))
    with pytest.raises(NotFound):  # one that is not there at all
        world.store.update_key(stale.model_copy(update={"id": "key_gone"}), system_audit(world, account.id))

    current = world.store.get_key(account.id, created.id)
    assert current is not None
    assert (current.name, current.key_hash != stale.key_hash) == ("ci", True)
    assert len(world.store.audit_entries()) == audit_before


def test_touching_a_deleted_key_writes_nothing(world: World) -> None:
    account = world.account()
    created = world.key(account)
    stored = world.store.get_key(account.id, created.id)
    assert stored is not None
    world.keys.delete(world.console_principal(account), created.id)

    world.store.touch_last_used(stored, world.clock.now())

    assert world.store.touch_writes == 0
    assert world.store.get_key(account.id, created.id) is None


def test_concurrent_touches_in_one_minute_write_once(world: World) -> None:
    account = world.account()
    created = world.key(account)
    stored = world.store.get_key(account.id, created.id)
    assert stored is not None
    world.store.touch_last_used(stored, world.clock.now())
    world.store.touch_last_used(stored, world.clock.advance(59))  # a request that read the key before
    assert world.store.touch_writes == 1
    world.store.touch_last_used(stored, world.clock.advance(1))
    assert world.store.touch_writes == 2


def test_a_key_for_a_missing_account_is_refused_like_the_plan_limit(world: World) -> None:
    api_key, _ = world.keys.new_key(account_id="acct_gone", name="ci", scope=Scope.FULL_ACCESS, env=Environment.LIVE)
    with pytest.raises(Forbidden) as caught:
        world.store.create_key(api_key, max_keys=10, audit=system_audit(world, "acct_gone"))
    assert caught.value.code == "plan_limit_reached"


def test_reads_return_copies(world: World) -> None:
    account = world.account()
    read = world.store.get_account(account.id)
    assert read is not None
    read.name = "changed in the caller only"
    stored = world.store.get_account(account.id)
    assert stored is not None and stored.name == "Acme"


def test_rate_windows_count_per_account_and_window_and_keep_their_first_expiry(world: World) -> None:
    counters = world.counters
    assert [counters.count_request("a", 60, expires_at=180) for _ in range(3)] == [1, 2, 3]
    assert counters.count_request("a", 120, expires_at=240) == 1
    assert counters.count_request("b", 60, expires_at=999) == 1
    assert counters.expiries[("a", 60)] == 180
