"""API key management: create, list, get, PATCH, rotate, delete, audited."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from postline.accounts.domain import Account, Plan
from postline.audit.domain import ActorType, AuditEntry
from postline.keys.access import Environment, Scope
from postline.keys.domain import TestOutcomes
from postline.keys.identity import Principal
from postline.keys.models import KeyCreate, KeyCreated, KeyDetail, KeyUpdate
from postline.shared.errors import Forbidden, NotFound, Unauthorized, ValidationFailed

from .world import World

CUSTOM_OUTCOMES = {"send": {"delivered": 8.0, "bounce": 2.0}, "verify": {"valid": 1.0, "invalid": 1.0}}


def create(world: World, principal: Principal, **fields: Any) -> KeyCreated:
    return world.keys.create(principal, KeyCreate.model_validate({"name": "ci", **fields}))


def new_audit(world: World, before: int) -> list[AuditEntry]:
    return world.store.audit_entries()[before:]


@pytest.fixture
def account(world: World) -> Account:
    return world.account()


@pytest.fixture
def caller(world: World, account: Account) -> Principal:
    """A full-access live key of the account, as the API would authenticate it."""
    created = world.key(account)
    return world.auth.authenticate(f"Bearer {created.key}", "203.0.113.9")


# -- create ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env", "prefix"), [(Environment.LIVE, "pl_live_"), (Environment.TEST, "pl_test_")])
def test_create_returns_the_secret_with_its_environment_prefix(
    world: World, caller: Principal, env: Environment, prefix: str
) -> None:
    created = create(world, caller, env=env.value, scope="send_only")
    assert created.key.startswith(prefix)
    assert len(created.key) == len(prefix) + 40
    assert created.prefix == created.key[:12]
    assert (created.name, created.scope, created.env) == ("ci", Scope.SEND_ONLY, env)
    assert created.created_at == world.clock.now()
    assert set(created.model_dump()) == {"id", "name", "prefix", "scope", "env", "key", "created_at"}


def test_create_defaults_to_a_full_access_live_key(world: World, caller: Principal) -> None:
    created = create(world, caller)
    detail = world.keys.get(caller, created.id)
    assert (detail.scope, detail.env, detail.verify_before_send) == (Scope.FULL_ACCESS, Environment.LIVE, None)
    assert (detail.test_outcomes, detail.ip_allowlist, detail.last_used_at) == (None, [], None)


def test_the_secret_is_shown_once_and_never_stored(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test")

    assert created.key not in world.keys.get(caller, created.id).model_dump_json()
    assert created.key not in world.keys.list_page(caller, page=1, per_page=100).model_dump_json()
    assert not [value for value in world.store.stored_strings() if created.key in value]
    stored = world.store.get_key(caller.account.id, created.id)
    assert stored is not None
    assert stored.key_hash == world.hasher.hash(created.key)


def test_details_never_carry_the_hash(world: World, caller: Principal) -> None:
    created = create(world, caller)
    stored = world.store.get_key(caller.account.id, created.id)
    assert stored is not None
    assert "key_hash" not in world.keys.get(caller, created.id).model_dump()
    assert stored.key_hash not in world.keys.list_page(caller, page=1, per_page=100).model_dump_json()


def test_every_key_gets_its_own_secret_and_prefix(world: World, caller: Principal) -> None:
    created = [create(world, caller) for _ in range(3)]
    assert len({c.key for c in created}) == 3
    assert len({c.prefix for c in created}) == 3
    assert len({c.id for c in created}) == 3


def test_a_test_key_gets_default_outcomes_and_a_live_key_none(world: World, caller: Principal) -> None:
    test_key = world.keys.get(caller, create(world, caller, env="test").id)
    live_key = world.keys.get(caller, create(world, caller, env="live").id)
    assert test_key.test_outcomes == TestOutcomes()
    assert test_key.model_dump()["test_outcomes"] == {"send": {"delivered": 1.0}, "verify": {"valid": 1.0}}
    assert live_key.test_outcomes is None


def test_a_test_key_keeps_the_outcomes_it_was_created_with(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test", test_outcomes=CUSTOM_OUTCOMES)
    assert world.keys.get(caller, created.id).model_dump()["test_outcomes"] == CUSTOM_OUTCOMES


def test_a_live_key_with_test_outcomes_is_refused(world: World) -> None:
    # The request model refuses it; the HTTP layer answers 400 validation_error.
    with pytest.raises(ValidationError, match="test_outcomes apply to test keys only"):
        KeyCreate.model_validate({"name": "ci", "env": "live", "test_outcomes": CUSTOM_OUTCOMES})


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "x" * 101},
        {"name": "ci", "scope": "admin"},
        {"name": "ci", "env": "staging"},
        {"name": "ci", "prefix": "pl_live_mine"},  # unknown fields are refused, not ignored
        {"name": "ci", "ip_allowlist": [{"cidr": "10.0.0.0/33"}]},
        {"name": "ci", "ip_allowlist": [{"cidr": f"10.0.{i}.0/24"} for i in range(51)]},
    ],
)
def test_invalid_create_requests_are_refused(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        KeyCreate.model_validate(body)


def test_create_stores_the_allowlist_normalized(world: World, caller: Principal) -> None:
    created = create(world, caller, ip_allowlist=[{"cidr": "10.1.2.3/8", "label": "office"}, {"cidr": "2001:DB8::1"}])
    assert [e.model_dump() for e in world.keys.get(caller, created.id).ip_allowlist] == [
        {"cidr": "10.0.0.0/8", "label": "office"},
        {"cidr": "2001:db8::1/128", "label": ""},
    ]


@pytest.mark.parametrize(("plan", "allowed"), [(Plan.FREE, 10), (Plan.PROFESSIONAL, 100)])
def test_the_plan_limit_on_keys_is_forbidden(world: World, plan: Plan, allowed: int) -> None:
    account = world.account(plan=plan)
    caller = world.console_principal(account)
    for _ in range(allowed):
        create(world, caller)
    audit_before = len(world.store.audit_entries())

    with pytest.raises(Forbidden) as caught:
        create(world, caller)

    assert (caught.value.status, caught.value.code) == (403, "plan_limit_reached")
    assert world.keys.list_page(caller, page=1, per_page=100).pagination.total_count == allowed
    assert new_audit(world, audit_before) == []


def test_deleting_a_key_frees_its_place_under_the_plan_limit(world: World) -> None:
    caller = world.console_principal(world.account())
    created = [create(world, caller) for _ in range(10)]
    world.keys.delete(caller, created[0].id)
    assert create(world, caller).id not in {c.id for c in created}


# -- list and get ---------------------------------------------------------------------------------


def test_list_pages_through_the_accounts_keys_in_creation_order(world: World, account: Account) -> None:
    caller = world.console_principal(account)
    ids = []
    for _ in range(5):
        world.clock.advance(1)
        ids.append(create(world, caller).id)
    world.key(world.account())  # another account's key is not listed

    first = world.keys.list_page(caller, page=1, per_page=2)
    third = world.keys.list_page(caller, page=3, per_page=2)

    assert [k.id for k in first.items] == ids[:2]
    assert [k.id for k in third.items] == ids[4:]
    assert first.pagination.model_dump() == {"page": 1, "per_page": 2, "total_count": 5, "total_pages": 3}
    assert world.keys.list_page(caller, page=4, per_page=2).items == []


def test_get_returns_the_detail_fields(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test", verify_before_send=True)
    assert world.keys.get(caller, created.id).model_dump(mode="json") == {
        "id": created.id,
        "name": "ci",
        "prefix": created.prefix,
        "scope": "full_access",
        "env": "test",
        "verify_before_send": True,
        "test_outcomes": {"send": {"delivered": 1.0}, "verify": {"valid": 1.0}},
        "ip_allowlist": [],
        "last_used_at": None,
        "created_at": "2025-03-14T12:00:00Z",
    }


OTHER_ACCOUNT_CALLS = {
    "get": lambda world, caller, key_id: world.keys.get(caller, key_id),
    "update": lambda world, caller, key_id: update(world, caller, key_id, {"name": "mine now"}),
    "rotate": lambda world, caller, key_id: world.keys.rotate(caller, key_id),
    "delete": lambda world, caller, key_id: world.keys.delete(caller, key_id),
}


@pytest.mark.parametrize("operation", list(OTHER_ACCOUNT_CALLS))
def test_another_accounts_key_is_not_found_and_left_alone(world: World, caller: Principal, operation: str) -> None:
    other = world.account()
    theirs = world.key(other)
    stored_before = world.store.get_key(other.id, theirs.id)
    audit_before = len(world.store.audit_entries())

    with pytest.raises(NotFound) as caught:
        OTHER_ACCOUNT_CALLS[operation](world, caller, theirs.id)

    assert (caught.value.status, caught.value.code) == (404, "not_found")
    assert world.store.get_key(other.id, theirs.id) == stored_before
    assert world.auth.authenticate(f"Bearer {theirs.key}", None).key_id == theirs.id
    assert new_audit(world, audit_before) == []


@pytest.mark.parametrize("operation", list(OTHER_ACCOUNT_CALLS))
def test_an_unknown_key_id_is_not_found(world: World, caller: Principal, operation: str) -> None:
    with pytest.raises(NotFound):
        OTHER_ACCOUNT_CALLS[operation](world, caller, "key_does_not_exist")


# -- update (PATCH) -------------------------------------------------------------------------------


def update(world: World, principal: Principal, key_id: str, body: dict[str, Any]) -> KeyDetail:
    return world.keys.update(principal, key_id, KeyUpdate.model_validate(body))


def test_patch_changes_only_the_fields_given(world: World, caller: Principal) -> None:
    created = create(
        world,
        caller,
        env="test",
        scope="send_only",
        verify_before_send=True,
        test_outcomes=CUSTOM_OUTCOMES,
        ip_allowlist=[{"cidr": "10.0.0.0/8", "label": "office"}],
    )
    before = world.keys.get(caller, created.id)
    stored_before = world.store.get_key(caller.account.id, created.id)
    world.clock.advance(30)

    after = update(world, caller, created.id, {"name": "renamed"})

    assert after.name == "renamed"
    assert after.model_dump(exclude={"name"}) == before.model_dump(exclude={"name"})
    stored_after = world.store.get_key(caller.account.id, created.id)
    assert stored_after is not None and stored_before is not None
    assert stored_after.key_hash == stored_before.key_hash
    assert world.keys.get(caller, created.id) == after


@pytest.mark.parametrize(
    ("body", "field", "value"),
    [
        ({"scope": "read_only"}, "scope", "read_only"),
        ({"verify_before_send": False}, "verify_before_send", False),
        ({"verify_before_send": None}, "verify_before_send", None),  # null = inherit
        ({"ip_allowlist": [{"cidr": "192.0.2.77/24"}]}, "ip_allowlist", [{"cidr": "192.0.2.0/24", "label": ""}]),
        ({"ip_allowlist": []}, "ip_allowlist", []),  # empty = no restriction
    ],
)
def test_patch_sets_a_mutable_field(
    world: World, caller: Principal, body: dict[str, Any], field: str, value: Any
) -> None:
    created = create(world, caller, verify_before_send=True, ip_allowlist=[{"cidr": "10.0.0.0/8"}])
    after = update(world, caller, created.id, body)
    assert after.model_dump(mode="json")[field] == value
    assert world.keys.get(caller, created.id).model_dump(mode="json")[field] == value


def test_patching_the_scope_takes_effect_on_the_next_request(world: World, caller: Principal) -> None:
    created = create(world, caller)
    update(world, caller, created.id, {"scope": "read_only"})
    assert world.auth.authenticate(f"Bearer {created.key}", None).scope is Scope.READ_ONLY


def test_patch_replaces_test_outcomes_on_a_test_key(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test")
    after = update(world, caller, created.id, {"test_outcomes": CUSTOM_OUTCOMES})
    assert after.model_dump()["test_outcomes"] == CUSTOM_OUTCOMES


def test_patch_test_outcomes_null_resets_a_test_key_to_the_defaults(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test", test_outcomes=CUSTOM_OUTCOMES)
    after = update(world, caller, created.id, {"test_outcomes": None})
    assert after.test_outcomes == TestOutcomes()
    assert world.keys.get(caller, created.id).test_outcomes == TestOutcomes()


def test_patch_test_outcomes_null_on_a_live_key_keeps_null(world: World, caller: Principal) -> None:
    created = create(world, caller, env="live")
    assert update(world, caller, created.id, {"test_outcomes": None}).test_outcomes is None


def test_patch_test_outcomes_on_a_live_key_is_refused(world: World, caller: Principal) -> None:
    created = create(world, caller, env="live")
    audit_before = len(world.store.audit_entries())
    with pytest.raises(ValidationFailed) as caught:
        update(world, caller, created.id, {"test_outcomes": CUSTOM_OUTCOMES})
    assert (caught.value.status, caught.value.code) == (400, "validation_error")
    assert world.keys.get(caller, created.id).test_outcomes is None
    assert new_audit(world, audit_before) == []


@pytest.mark.parametrize("field", ["name", "scope", "ip_allowlist"])
def test_patch_with_an_explicit_null_for_a_required_field_is_refused(
    world: World, caller: Principal, field: str
) -> None:
    created = create(world, caller, ip_allowlist=[{"cidr": "10.0.0.0/8"}])
    before = world.keys.get(caller, created.id)
    audit_before = len(world.store.audit_entries())

    with pytest.raises(ValidationFailed, match=f"{field} cannot be null"):
        update(world, caller, created.id, {field: None})

    assert world.keys.get(caller, created.id) == before
    assert new_audit(world, audit_before) == []


@pytest.mark.parametrize(
    "body",
    [{"env": "test"}, {"prefix": "pl_live_mine"}, {"key_hash": "x"}, {"name": ""}, {"scope": "admin"}],
)
def test_patch_cannot_touch_immutable_or_unknown_fields(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        KeyUpdate.model_validate(body)


# -- rotate ---------------------------------------------------------------------------------------


def test_rotate_changes_the_secret_prefix_and_hash_only(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test", scope="send_only", ip_allowlist=[{"cidr": "10.0.0.0/8"}])
    stored_before = world.store.get_key(caller.account.id, created.id)
    world.clock.advance(3_600)

    rotated = world.keys.rotate(caller, created.id)

    stored_after = world.store.get_key(caller.account.id, created.id)
    assert stored_before is not None and stored_after is not None
    assert rotated.key != created.key and rotated.key.startswith("pl_test_")
    assert rotated.prefix == rotated.key[:12] != created.prefix
    assert stored_after.key_hash == world.hasher.hash(rotated.key) != stored_before.key_hash
    assert stored_after.model_dump(exclude={"key_hash", "prefix"}) == stored_before.model_dump(
        exclude={"key_hash", "prefix"}
    )
    assert (rotated.id, rotated.created_at) == (created.id, created.created_at)
    assert set(rotated.model_dump()) == {
        "id",
        "name",
        "prefix",
        "scope",
        "env",
        "key",
        "verify_before_send",
        "test_outcomes",
        "ip_allowlist",
        "created_at",
    }
    assert not [value for value in world.store.stored_strings() if rotated.key in value]


def test_rotating_twice_leaves_only_the_newest_secret_working(world: World, caller: Principal) -> None:
    created = create(world, caller)
    first = world.keys.rotate(caller, created.id)
    second = world.keys.rotate(caller, created.id)
    for stale in (created.key, first.key):
        with pytest.raises(Unauthorized):
            world.auth.authenticate(f"Bearer {stale}", None)
    assert world.auth.authenticate(f"Bearer {second.key}", None).key_id == created.id


def test_a_key_may_rotate_itself_and_is_refused_right_after(world: World, account: Account) -> None:
    created = world.key(account)
    caller = world.auth.authenticate(f"Bearer {created.key}", None)
    world.keys.rotate(caller, created.id)
    with pytest.raises(Unauthorized):
        world.auth.authenticate(f"Bearer {created.key}", None)


# -- delete ---------------------------------------------------------------------------------------


def test_delete_removes_the_key_and_revokes_its_secret(world: World, caller: Principal) -> None:
    created = create(world, caller)
    confirmation = world.keys.delete(caller, created.id)

    assert created.id in confirmation.message
    with pytest.raises(NotFound):
        world.keys.get(caller, created.id)
    assert created.id not in [k.id for k in world.keys.list_page(caller, page=1, per_page=100).items]
    with pytest.raises(Unauthorized):
        world.auth.authenticate(f"Bearer {created.key}", None)
    with pytest.raises(NotFound):
        world.keys.delete(caller, created.id)


# -- audit ----------------------------------------------------------------------------------------


def only_new_entry(world: World, before: int) -> AuditEntry:
    entries = new_audit(world, before)
    assert len(entries) == 1, [e.action for e in entries]
    return entries[0]


def test_every_write_records_exactly_one_audit_entry(world: World, caller: Principal) -> None:
    account_id = caller.account.id
    seen = []

    before = len(world.store.audit_entries())
    key_id = create(world, caller, env="test").id
    seen.append(only_new_entry(world, before))

    world.clock.advance(1)
    before = len(world.store.audit_entries())
    update(world, caller, key_id, {"scope": "read_only"})
    seen.append(only_new_entry(world, before))

    world.clock.advance(1)
    before = len(world.store.audit_entries())
    world.keys.rotate(caller, key_id)
    seen.append(only_new_entry(world, before))

    world.clock.advance(1)
    before = len(world.store.audit_entries())
    world.keys.delete(caller, key_id)
    seen.append(only_new_entry(world, before))

    assert [(e.action, e.target, e.account_id) for e in seen] == [
        ("key.created", key_id, account_id),
        ("key.updated", key_id, account_id),
        ("key.rotated", key_id, account_id),
        ("key.deleted", key_id, account_id),
    ]
    assert {(e.actor_type, e.actor_id, e.ip_address, e.actor_email) for e in seen} == {
        (ActorType.USER, caller.key_id, "203.0.113.9", None)
    }
    assert [e.created_at for e in seen] == sorted({e.created_at for e in seen})
    assert seen[-1].created_at == world.clock.now()


def test_reads_record_no_audit_entry(world: World, caller: Principal) -> None:
    created = create(world, caller)
    before = len(world.store.audit_entries())
    world.keys.get(caller, created.id)
    world.keys.list_page(caller, page=1, per_page=25)
    assert new_audit(world, before) == []


def test_audit_details_describe_the_key_and_what_changed(world: World, caller: Principal) -> None:
    created = create(world, caller, env="test")
    update(world, caller, created.id, {"scope": "read_only", "name": "renamed"})
    created_entry, updated_entry = world.store.audit_entries()[-2:]
    assert created_entry.details == "ci (full_access, test)"
    assert updated_entry.details == "renamed (read_only, test); changed: name, scope"


def test_a_console_user_is_recorded_by_user_id(world: World, account: Account) -> None:
    caller = world.console_principal(account)
    create(world, caller)
    entry = world.store.audit_entries()[-1]
    assert (entry.actor_type, entry.actor_id) == (ActorType.USER, "usr_owner")


def test_no_audit_entry_carries_a_secret(world: World, caller: Principal) -> None:
    created = create(world, caller)
    rotated = world.keys.rotate(caller, created.id)
    dumped = [e.model_dump_json() for e in world.store.audit_entries()]
    assert not [d for d in dumped if created.key in d or rotated.key in d]


def test_an_empty_patch_writes_nothing(world: World, caller: Principal) -> None:
    key_id = create(world, caller, name="quiet").id
    before = len(world.store.audit_entries())
    assert world.keys.update(caller, key_id, KeyUpdate()).name == "quiet"
    assert new_audit(world, before) == []


def test_blank_names_are_refused() -> None:
    with pytest.raises(ValidationError):
        KeyCreate(name="   ")
