"""Operator actions (the `postline` CLI): accounts, statuses, plans, rate overrides, sending holds, keys."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from postline.accounts.domain import AccountStatus, Plan, live_sending_paused
from postline.audit.domain import REDACTED_STAFF_EMAIL, Actor, ActorType, AuditEntry
from postline.keys.access import Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.keys.models import KeyUpdate
from postline.shared.errors import Forbidden, NotFound, ValidationFailed

from .world import World


def last_entries(world: World, count: int) -> list[AuditEntry]:
    return world.store.audit_entries()[-count:]


def assert_redacted_staff(entry: AuditEntry) -> None:
    assert (entry.actor_type, entry.actor_id, entry.ip_address) == (ActorType.STAFF, None, None)
    assert entry.actor_email == REDACTED_STAFF_EMAIL


# -- accounts -------------------------------------------------------------------------------------


def test_create_account_stores_it_and_audits_it_as_staff(world: World) -> None:
    account = world.operator.create_account(name="Acme", owner_email="owner@acme.test")

    assert account.id.startswith("acct_")
    assert (account.plan, account.status, account.created_at) == (Plan.FREE, AccountStatus.ACTIVE, world.clock.now())
    assert world.operator.get_account(account.id) == account
    (entry,) = world.store.audit_entries()
    assert (entry.account_id, entry.action, entry.target) == (account.id, "account.created", account.id)
    assert_redacted_staff(entry)


def test_create_account_with_a_chosen_id_plan_and_status(world: World) -> None:
    account = world.operator.create_account(
        name=None, plan=Plan.PROFESSIONAL, status=AccountStatus.TRIALING, account_id="acct_dev"
    )
    assert world.operator.get_account("acct_dev").model_dump(include={"id", "name", "plan", "status"}) == {
        "id": "acct_dev",
        "name": None,
        "plan": Plan.PROFESSIONAL,
        "status": AccountStatus.TRIALING,
    }
    assert account.limits.api_keys == 100


def test_an_account_id_cannot_be_taken_twice(world: World) -> None:
    world.operator.create_account(name="first", account_id="acct_dev")
    with pytest.raises(ValidationFailed, match="already exists"):  # permanent: a retry gets the same
        world.operator.create_account(name="second", account_id="acct_dev")
    assert world.operator.get_account("acct_dev").name == "first"
    assert len(world.store.audit_entries()) == 1


def test_an_unknown_account_is_not_found(world: World) -> None:
    with pytest.raises(NotFound):
        world.operator.get_account("acct_nobody")
    with pytest.raises(NotFound):
        world.operator.set_status("acct_nobody", AccountStatus.SUSPENDED)
    with pytest.raises(NotFound):
        world.operator.set_sending_paused("acct_nobody", True)
    with pytest.raises(NotFound):
        world.operator.create_key("acct_nobody", name="ci", env=Environment.LIVE)
    assert world.store.audit_entries() == []


@pytest.mark.parametrize("status", list(AccountStatus))
def test_set_status_stores_and_audits_the_new_status(world: World, status: AccountStatus) -> None:
    account = world.account()
    returned = world.operator.set_status(account.id, status)

    assert returned.status is status
    assert world.operator.get_account(account.id).status is status
    (entry,) = last_entries(world, 1)
    assert (entry.action, entry.target, entry.account_id) == (f"account.{status.value}", account.id, account.id)
    assert_redacted_staff(entry)


def test_set_status_keeps_every_other_field(world: World) -> None:
    account = world.account(plan=Plan.PROFESSIONAL)
    world.operator.set_rate_limit(account.id, 7_000)
    world.operator.set_status(account.id, AccountStatus.PAST_DUE)
    stored = world.operator.get_account(account.id)
    assert stored.model_dump(exclude={"status"}) == {
        **account.model_dump(exclude={"status"}),
        "rate_limit_per_minute": 7_000,
    }


def test_set_plan_changes_the_limits(world: World) -> None:
    account = world.account()
    world.operator.set_plan(account.id, Plan.PROFESSIONAL)
    stored = world.operator.get_account(account.id)
    assert (stored.plan, stored.effective_rate_limit, stored.limits.api_keys) == (Plan.PROFESSIONAL, 6_000, 100)
    (entry,) = last_entries(world, 1)
    assert (entry.action, entry.account_id) == ("account.plan_changed", account.id)
    assert_redacted_staff(entry)


def test_set_rate_limit_overrides_and_clears(world: World) -> None:
    account = world.account()
    world.operator.set_rate_limit(account.id, 1_200)
    assert world.operator.get_account(account.id).effective_rate_limit == 1_200
    world.operator.set_rate_limit(account.id, None)
    assert world.operator.get_account(account.id).effective_rate_limit == 600
    assert [e.action for e in last_entries(world, 2)] == ["account.rate_limit_changed"] * 2


@pytest.mark.parametrize("per_minute", [0, -5])
def test_set_rate_limit_refuses_a_limit_below_one(world: World, per_minute: int) -> None:
    # Regression: model_copy(update=...) skipped validation and stored a limit no read could validate.
    account = world.account()
    audit_before = len(world.store.audit_entries())
    with pytest.raises(ValidationFailed) as caught:
        world.operator.set_rate_limit(account.id, per_minute)
    assert (caught.value.status, caught.value.code) == (400, "validation_error")
    assert world.operator.get_account(account.id).rate_limit_per_minute is None
    assert len(world.store.audit_entries()) == audit_before


def test_plan_and_rate_limit_changes_target_the_account_and_describe_the_value(world: World) -> None:
    # Regression: the target used to be the new value ('professional', 'None').
    account = world.account()
    world.operator.set_plan(account.id, Plan.PROFESSIONAL)
    world.operator.set_rate_limit(account.id, 900)
    world.operator.set_rate_limit(account.id, None)
    plan_entry, rate_entry, default_entry = last_entries(world, 3)
    assert {plan_entry.target, rate_entry.target, default_entry.target} == {account.id}
    assert plan_entry.details is not None and "professional" in plan_entry.details
    assert rate_entry.details is not None and "900" in rate_entry.details
    assert default_entry.details is not None and "None" not in default_entry.details


def test_an_explicit_actor_is_recorded_as_given(world: World) -> None:
    account = world.account()
    user = Actor(ActorType.USER, id="usr_ops", ip_address="192.0.2.10")
    world.operator.set_status(account.id, AccountStatus.SUSPENDED, actor=user)
    (entry,) = last_entries(world, 1)
    assert (entry.actor_type, entry.actor_id, entry.ip_address, entry.actor_email) == (
        ActorType.USER,
        "usr_ops",
        "192.0.2.10",
        None,
    )


def test_a_staff_actor_with_an_identity_is_still_redacted(world: World) -> None:
    account = world.account()
    world.operator.set_status(account.id, AccountStatus.SUSPENDED, actor=Actor(ActorType.STAFF, "staff_7", "10.0.0.7"))
    assert_redacted_staff(last_entries(world, 1)[0])


# -- sending holds --------------------------------------------------------------------------------


def test_pause_and_resume_live_sending_for_one_account(world: World) -> None:
    account, bystander = world.account(), world.account()

    world.operator.set_sending_paused(account.id, True)
    paused = world.operator.get_account(account.id)
    assert paused.sending_paused is True
    assert live_sending_paused(paused, world.store.platform_sending_paused()) is True
    assert world.operator.get_account(bystander.id).sending_paused is False

    world.operator.set_sending_paused(account.id, False)
    assert live_sending_paused(world.operator.get_account(account.id), world.store.platform_sending_paused()) is False

    entries = last_entries(world, 2)
    assert [(e.action, e.target, e.account_id) for e in entries] == [
        ("sending.paused", account.id, account.id),
        ("sending.resumed", account.id, account.id),
    ]
    for entry in entries:
        assert_redacted_staff(entry)


def test_pause_and_resume_live_sending_for_the_platform(world: World) -> None:
    account = world.account()

    world.operator.set_sending_paused(None, True)
    assert world.store.platform_sending_paused() is True
    assert world.operator.get_account(account.id).sending_paused is False  # the account itself is untouched
    assert live_sending_paused(world.operator.get_account(account.id), world.store.platform_sending_paused())

    world.operator.set_sending_paused(None, False)
    assert world.store.platform_sending_paused() is False

    entries = last_entries(world, 2)
    assert [(e.action, e.target, e.account_id) for e in entries] == [
        ("sending.paused", "platform", None),
        ("sending.resumed", "platform", None),
    ]
    for entry in entries:
        assert_redacted_staff(entry)


# -- verify_before_send ---------------------------------------------------------------------------


def test_verify_before_send_is_off_by_default_and_set_per_account(world: World) -> None:
    account, bystander = world.account(), world.account()
    assert account.verify_before_send is False

    assert world.operator.set_verify_before_send(account.id, True).verify_before_send is True
    assert world.operator.get_account(account.id).verify_before_send is True
    assert world.operator.get_account(bystander.id).verify_before_send is False
    world.operator.set_verify_before_send(account.id, False)
    assert world.operator.get_account(account.id).verify_before_send is False

    entries = last_entries(world, 2)
    assert [(e.action, e.target, e.details) for e in entries] == [
        ("account.verify_before_send_changed", account.id, "verify_before_send on"),
        ("account.verify_before_send_changed", account.id, "verify_before_send off"),
    ]
    assert_redacted_staff(entries[0])


# -- the sandbox and routing ----------------------------------------------------------------------


def test_sandbox_on_and_off_is_audited(world: World) -> None:
    account = world.account()
    assert world.operator.set_sandbox(account.id, True).sandbox is True
    assert world.operator.set_sandbox(account.id, False).sandbox is False
    assert [e.action for e in last_entries(world, 2)] == ["sandbox.entered", "sandbox.left"]


def test_sandbox_recipients_are_normalized_lowercased_and_kept_once(world: World) -> None:
    account = world.account()
    added = world.operator.add_sandbox_recipients(account.id, [" Ann@Example.COM", "ann@example.com", "bob@x.test"])
    assert added.sandbox_recipients == ["ann@example.com", "bob@x.test"]
    again = world.operator.add_sandbox_recipients(account.id, ["BOB@x.test", "cy@x.test"])
    assert again.sandbox_recipients == ["ann@example.com", "bob@x.test", "cy@x.test"]
    (entry,) = last_entries(world, 1)
    assert (entry.action, entry.details) == ("sandbox.recipients_added", "added: cy@x.test")

    removed = world.operator.remove_sandbox_recipients(account.id, ["ANN@example.com", "nobody@x.test"])
    assert removed.sandbox_recipients == ["bob@x.test", "cy@x.test"]
    (entry,) = last_entries(world, 1)
    assert (entry.action, entry.details) == ("sandbox.recipients_removed", "removed: ann@example.com")
    assert world.operator.get_account(account.id).sandbox_recipients == ["bob@x.test", "cy@x.test"]


def test_an_invalid_sandbox_recipient_is_refused_and_nothing_is_added(world: World) -> None:
    account = world.account()
    with pytest.raises(ValidationFailed):
        world.operator.add_sandbox_recipients(account.id, ["ok@example.com", "not an address"])
    assert world.operator.get_account(account.id).sandbox_recipients == []


def test_a_sandbox_authorizes_at_most_100_recipients(world: World) -> None:
    account = world.account()
    world.operator.add_sandbox_recipients(account.id, [f"r{i}@example.com" for i in range(100)])
    with pytest.raises(ValidationFailed):
        world.operator.add_sandbox_recipients(account.id, ["one-more@example.com"])


def test_routing_an_account_and_a_key_to_the_sandbox(world: World) -> None:
    account = world.account()
    created = world.key(account)
    assert world.operator.set_routed_to_sandbox(account.id, True).routed_to_sandbox is True
    world.operator.set_key_routed_to_sandbox(account.id, created.id, True)
    stored = world.store.get_key(account.id, created.id)
    assert stored is not None and stored.routed_to_sandbox is True
    world.operator.set_key_routed_to_sandbox(account.id, created.id, False)
    assert world.store.get_key(account.id, created.id).routed_to_sandbox is False  # type: ignore[union-attr]
    assert [(e.action, e.target) for e in last_entries(world, 3)] == [
        ("sandbox.routed", account.id),
        ("sandbox.routed", created.id),
        ("sandbox.unrouted", created.id),
    ]
    with pytest.raises(NotFound):
        world.operator.set_key_routed_to_sandbox(account.id, "key_nope", True)


def test_a_keys_routing_is_never_shown_by_the_keys_api(world: World) -> None:
    account = world.account()
    created = world.key(account)
    world.operator.set_key_routed_to_sandbox(account.id, created.id, True)
    principal = world.console_principal(account)
    assert "routed_to_sandbox" not in world.keys.get(principal, created.id).model_dump()
    with pytest.raises(ValidationError):
        KeyUpdate.model_validate({"routed_to_sandbox": False})  # not the customer's to change
    world.keys.update(principal, created.id, KeyUpdate(name="renamed"))
    world.keys.rotate(principal, created.id)
    assert world.store.get_key(account.id, created.id).routed_to_sandbox is True  # type: ignore[union-attr]


# -- keys -----------------------------------------------------------------------------------------


def test_create_key_for_an_account_is_audited_as_staff(world: World) -> None:
    account = world.account()
    allowlist = [AllowlistEntry(cidr="10.0.0.0/8", label="office")]

    created = world.operator.create_key(
        account.id, name="deploy", env=Environment.TEST, scope=Scope.READ_ONLY, ip_allowlist=allowlist
    )

    stored = world.store.get_key(account.id, created.id)
    assert stored is not None
    assert (stored.name, stored.env, stored.scope, stored.ip_allowlist) == (
        "deploy",
        Environment.TEST,
        Scope.READ_ONLY,
        allowlist,
    )
    assert created.key.startswith("pl_test_") and created.prefix == created.key[:12]
    (entry,) = last_entries(world, 1)
    assert (entry.action, entry.target, entry.account_id) == ("key.created", created.id, account.id)
    assert_redacted_staff(entry)
    assert world.auth.authenticate(f"Bearer {created.key}", "10.1.2.3").key_id == created.id


def test_create_key_with_a_known_secret_recreates_that_secret(world: World) -> None:
    account = world.account()
    secret = "pl_live_" + "d" * 40
    created = world.operator.create_key(account.id, name="dev", env=Environment.LIVE, secret=secret)
    assert (created.key, created.prefix) == (secret, "pl_live_dddd")
    assert world.auth.authenticate(f"Bearer {secret}", None).key_id == created.id


@pytest.mark.parametrize(
    ("env", "secret"), [(Environment.LIVE, "pl_test_" + "d" * 40), (Environment.TEST, "pl_live_" + "d" * 40)]
)
def test_create_key_refuses_a_secret_of_the_other_environment(world: World, env: Environment, secret: str) -> None:
    account = world.account()
    with pytest.raises(ValidationFailed, match="starts with"):
        world.operator.create_key(account.id, name="dev", env=env, secret=secret)
    assert world.store.list_keys(account.id) == []


def test_create_key_respects_the_plan_limit(world: World) -> None:
    account = world.account()
    for _ in range(10):
        world.operator.create_key(account.id, name="ci", env=Environment.LIVE)
    with pytest.raises(Forbidden, match="at most 10 API keys") as caught:
        world.operator.create_key(account.id, name="ci", env=Environment.LIVE)
    assert caught.value.code == "plan_limit_reached"
    assert len(world.store.list_keys(account.id)) == 10
