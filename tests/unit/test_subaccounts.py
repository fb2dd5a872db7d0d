"""Subaccounts: the service's rules over the in-memory store, and acting on behalf (On-Behalf-Of) in
the authenticator: who may, for which subaccount, with which refusal, and in whose rate window."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from postline.accounts.domain import PLAN_LIMITS, Account, AccountStatus, Plan
from postline.auth.ratelimit import window_start
from postline.auth.service import RouteRule
from postline.keys.access import Access, Environment, Scope
from postline.keys.identity import Principal
from postline.keys.models import KeyCreate
from postline.lists.send_service import StoredPrincipals
from postline.lists.sends import ListSend
from postline.shared.errors import ApiError, Forbidden, NotFound, Unauthorized, ValidationFailed
from postline.subaccounts.domain import SubaccountStatus, is_slug, is_subaccount_id
from postline.subaccounts.models import SubaccountCreate, SubaccountUpdate

from .world import World

READ = RouteRule(Access.READ, live_only=False)
IP = "203.0.113.9"


def organisation(world: World, *, plan: Plan = Plan.PROFESSIONAL) -> tuple[Account, str]:
    """An organisation's account and its full_access live key's secret."""
    account = world.account(plan=plan)
    return account, world.key(account).key


def principal_of(world: World, secret: str, *on_behalf_of: str) -> Principal:
    admission = world.auth.admit([f"Bearer {secret}"], IP, READ, on_behalf_of)
    if admission.refusal is not None:
        raise admission.refusal
    assert admission.principal is not None
    return admission.principal


def create(world: World, parent: Account, slug: str, name: str = "Workspace") -> Any:
    return world.subaccounts.create(world.console_principal(parent), SubaccountCreate(name=name, slug=slug))


def refused(error: type[ApiError], code: str, call: Any, *args: Any) -> ApiError:
    with pytest.raises(error) as caught:
        call(*args)
    assert caught.value.code == code, caught.value.message
    return caught.value


# -- slugs and references ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ["a", "acme", "acme-eu-1", "0", "x" * 63])
def test_slugs_are_url_safe_labels(slug: str) -> None:
    assert SubaccountCreate(name="n", slug=slug).slug == slug


@pytest.mark.parametrize(
    "slug",
    ["", "Acme", "acme_eu", "-acme", "acme-", "a b", "é", "x" * 64, "acme/eu", "00000000-0000-4000-8000-000000000001"],
)
def test_other_slugs_are_refused_and_none_looks_like_an_id(slug: str) -> None:
    with pytest.raises(ValidationError):
        SubaccountCreate(name="n", slug=slug)


def test_a_reference_is_an_id_or_a_slug_never_both() -> None:
    uid = "5f0c6c1e-8a53-4c4e-9a59-2b5d8f7d1a10"
    assert is_subaccount_id(uid) and not is_slug(uid)
    assert is_slug("acme") and not is_subaccount_id("acme")
    assert not is_slug("acct_123") and not is_subaccount_id("acct_123")


# -- create -----------------------------------------------------------------------------------------


def test_the_free_plan_has_no_subaccounts(world: World) -> None:
    parent, _ = organisation(world, plan=Plan.FREE)
    before = len(world.store.audit_entries())
    error = refused(Forbidden, "plan_limit_reached", create, world, parent, "acme")
    assert "free plan has no subaccounts" in error.message
    assert len(world.store.audit_entries()) == before


def test_a_created_subaccount_is_a_free_account_of_its_own_under_its_parent(world: World) -> None:
    parent, _ = organisation(world)
    world.operator.set_sandbox(parent.id, True)
    parent = world.operator.get_account(parent.id)
    created = create(world, parent, "acme", " Acme Inc ")
    assert created.model_dump(exclude={"id", "created_at"}) == {
        "parent_account_id": parent.id,
        "name": "Acme Inc",
        "slug": "acme",
        "status": SubaccountStatus.ACTIVE,
    }
    assert is_subaccount_id(created.id) and created.created_at == world.clock.now()
    account = world.store.get_account(created.id)
    assert account is not None
    assert (account.plan, account.parent_account_id, account.slug) == (Plan.FREE, parent.id, "acme")
    assert (account.owner_email, account.sandbox) == (parent.owner_email, True)  # the organisation's controls
    # Audited in the organisation's log and in the subaccount's.
    for log in (parent.id, created.id):
        [entry] = world.audit.list_page(log, page=1, per_page=1).items
        assert (entry.action, entry.target, entry.details) == ("subaccount.created", created.id, "Acme Inc (acme)")


def test_a_slug_is_unique_in_its_organisation_only(world: World) -> None:
    parent, _ = organisation(world)
    other, _ = organisation(world)
    create(world, parent, "acme")
    refused(ValidationFailed, "validation_error", create, world, parent, "acme")
    assert create(world, other, "acme").slug == "acme"


def test_the_plans_count_is_the_limit(world: World) -> None:
    parent, _ = organisation(world)
    limit = PLAN_LIMITS[Plan.PROFESSIONAL].subaccounts
    for n in range(limit):
        create(world, parent, f"ws-{n}")
    refused(Forbidden, "plan_limit_reached", create, world, parent, "one-more")


def test_a_subaccount_cannot_have_subaccounts(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    world.operator.set_plan(sub.id, Plan.PROFESSIONAL)
    acting = principal_of(world, secret, sub.id)
    request = SubaccountCreate(name="n", slug="nested")
    refused(Forbidden, "organisation_only", world.subaccounts.create, acting, request)


# -- list, get, update ------------------------------------------------------------------------------


def test_the_list_is_page_numbered_by_slug(world: World) -> None:
    parent, _ = organisation(world)
    for slug in ("charlie", "alpha", "bravo"):
        create(world, parent, slug)
    owner = world.console_principal(parent)
    first = world.subaccounts.list_page(owner, page=1, per_page=2)
    assert [s.slug for s in first.items] == ["alpha", "bravo"]
    assert first.pagination.model_dump() == {"page": 1, "per_page": 2, "total_count": 3, "total_pages": 2}
    assert [s.slug for s in world.subaccounts.list_page(owner, page=2, per_page=2).items] == ["charlie"]
    assert world.subaccounts.list_page(owner, page=3, per_page=2).items == []


def test_get_by_id_or_slug_and_404_for_anything_not_the_callers(world: World) -> None:
    parent, _ = organisation(world)
    other, _ = organisation(world)
    mine, theirs = create(world, parent, "acme"), create(world, other, "globex")
    owner = world.console_principal(parent)
    assert world.subaccounts.get(owner, mine.id) == world.subaccounts.get(owner, "acme") == mine
    for reference in (theirs.id, "globex", parent.id, "nope", "00000000-0000-4000-8000-00000000ffff"):
        refused(NotFound, "not_found", world.subaccounts.get, owner, reference)
    # From inside a subaccount: neither its parent nor a sibling is one of its subaccounts.
    sibling = create(world, parent, "sibling")
    inside = world.console_principal(world.store.get_account(mine.id))  # type: ignore[arg-type]
    refused(NotFound, "not_found", world.subaccounts.get, inside, sibling.id)
    assert world.subaccounts.list_page(inside, page=1, per_page=25).items == []


def test_only_the_name_changes_and_the_slug_is_immutable(world: World) -> None:
    parent, _ = organisation(world)
    sub = create(world, parent, "acme")
    owner = world.console_principal(parent)
    renamed = world.subaccounts.update(owner, "acme", SubaccountUpdate(name="Acme GmbH", slug="acme"))
    assert (renamed.name, renamed.slug) == ("Acme GmbH", "acme")
    assert world.subaccounts.get(owner, sub.id).name == "Acme GmbH"
    error = refused(ValidationFailed, "validation_error", world.subaccounts.update, owner, sub.id,
                    SubaccountUpdate(slug="acme-2"))  # fmt: skip
    assert "cannot change" in error.message
    nulled = SubaccountUpdate.model_validate({"name": None})
    refused(ValidationFailed, "validation_error", world.subaccounts.update, owner, sub.id, nulled)
    entries = len(world.store.audit_entries())
    world.subaccounts.update(owner, sub.id, SubaccountUpdate(name="Acme GmbH"))  # no change: no write
    assert len(world.store.audit_entries()) == entries
    actions = [e.action for e in world.audit.list_page(sub.id, page=1, per_page=5).items]
    assert actions == ["subaccount.updated", "subaccount.created"]


# -- suspension -------------------------------------------------------------------------------------


def test_suspend_and_reactivate_switch_its_keys_and_the_organisations_acting_for_it(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    sub_key = world.key(world.store.get_account(sub.id)).key  # type: ignore[arg-type]
    owner = world.console_principal(parent)
    assert world.subaccounts.suspend(owner, sub.id).status is SubaccountStatus.SUSPENDED
    assert world.subaccounts.suspend(owner, sub.id).status is SubaccountStatus.SUSPENDED  # again: no change
    refused(Forbidden, "account_suspended", principal_of, world, sub_key)
    refused(Forbidden, "account_suspended", principal_of, world, secret, "acme")
    assert principal_of(world, secret).account.id == parent.id  # the organisation itself is not
    assert world.subaccounts.reactivate(owner, "acme").status is SubaccountStatus.ACTIVE
    assert principal_of(world, sub_key).account.id == sub.id
    actions = [e.action for e in world.audit.list_page(parent.id, page=1, per_page=3).items]
    assert actions == ["subaccount.reactivated", "subaccount.suspended", "subaccount.created"]


def test_the_organisation_cannot_lift_the_operators_suspension(world: World) -> None:
    parent, _ = organisation(world)
    sub = create(world, parent, "acme")
    world.operator.set_status(sub.id, AccountStatus.SUSPENDED)
    owner = world.console_principal(parent)
    assert world.subaccounts.get(owner, sub.id).status is SubaccountStatus.SUSPENDED
    refused(ValidationFailed, "validation_error", world.subaccounts.reactivate, owner, sub.id)


@pytest.mark.parametrize(("status", "code"), [(AccountStatus.SUSPENDED, "account_suspended"),
                                              (AccountStatus.TRASHED, "account_deleted")])  # fmt: skip
def test_a_subaccounts_keys_are_refused_while_its_organisation_is(
    world: World, status: AccountStatus, code: str
) -> None:
    parent, _ = organisation(world)
    sub = create(world, parent, "acme")
    sub_key = world.key(world.store.get_account(sub.id)).key  # type: ignore[arg-type]
    world.operator.set_status(parent.id, status)
    error = refused(Forbidden, code, principal_of, world, sub_key)
    assert "organisation" in error.message


# -- delete -----------------------------------------------------------------------------------------


def test_delete_revokes_its_keys_frees_its_slug_and_its_place_and_it_is_gone(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    account = world.store.get_account(sub.id)
    assert account is not None
    keys = [world.key(account).key, world.key(account, env=Environment.TEST).key]
    owner = world.console_principal(parent)
    confirmation = world.subaccounts.delete(owner, "acme")
    assert "2 API keys are revoked" in confirmation.message
    for key in keys:
        refused(Unauthorized, "unauthorized", principal_of, world, key)
    assert world.store.list_keys(sub.id) == []
    assert world.store.get_account(sub.id).status is AccountStatus.TRASHED  # type: ignore[union-attr]
    refused(NotFound, "not_found", world.subaccounts.get, owner, sub.id)
    refused(NotFound, "not_found", world.subaccounts.delete, owner, sub.id)
    refused(NotFound, "not_found", principal_of, world, secret, sub.id)
    assert world.subaccounts.list_page(owner, page=1, per_page=25).pagination.total_count == 0
    again = create(world, parent, "acme")  # the slug is free again; a new subaccount, a new id
    assert again.id != sub.id and world.subaccounts.get(owner, "acme") == again
    for log in (parent.id, sub.id):
        assert "subaccount.deleted" in [e.action for e in world.audit.list_page(log, page=1, per_page=5).items]


# -- acting on behalf -------------------------------------------------------------------------------


def test_an_organisations_key_acts_in_its_subaccount_by_id_or_slug(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    for reference in (sub.id, "acme", " acme "):
        acting = principal_of(world, secret, reference)
        assert (acting.account.id, acting.credential_account) == (sub.id, world.store.get_account(parent.id))
        assert acting.key is not None and acting.key.account_id == parent.id
    # The subaccount's window is the one counted: three requests in it, none in the parent's.
    start = window_start(world.clock.now())
    assert world.counters.windows.get((sub.id, start)) == 3
    assert world.counters.windows.get((parent.id, start)) is None


def test_a_console_token_acts_on_behalf_too(world: World) -> None:
    parent, _ = organisation(world)
    sub = create(world, parent, "acme")
    token = world.console.issue({"sub": "usr_1", "account_id": parent.id})
    assert principal_of(world, token, "acme").account.id == sub.id


def test_a_key_made_on_behalf_lives_in_the_subaccount_and_acts_only_there(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    sibling = create(world, parent, "sibling")
    made = world.keys.create(principal_of(world, secret, "acme"), KeyCreate(name="acme ci"))
    assert world.store.get_key(sub.id, made.id) is not None and world.store.get_key(parent.id, made.id) is None
    assert principal_of(world, made.key).account.id == sub.id
    for reference in (sibling.id, "sibling", sub.id, parent.id):
        refused(Forbidden, "organisation_only", principal_of, world, made.key, reference)


@pytest.mark.parametrize("scope", [Scope.SEND_ONLY, Scope.READ_ONLY])
def test_only_a_full_access_credential_acts_on_behalf(world: World, scope: Scope) -> None:
    parent, _ = organisation(world)
    create(world, parent, "acme")
    narrow = world.key(parent, scope=scope).key
    refused(Forbidden, "insufficient_scope", principal_of, world, narrow, "acme")


def test_any_name_but_the_organisations_own_subaccounts_is_404(world: World) -> None:
    parent, secret = organisation(world)
    other, _ = organisation(world)
    theirs = create(world, other, "globex")
    for reference in (theirs.id, "globex", other.id, parent.id, "acme", "ACME", "acct_x", "a/b"):
        refused(NotFound, "not_found", principal_of, world, secret, reference)


@pytest.mark.parametrize("headers", [["", ], ["   "], ["acme", "acme"], ["x" * 101]])  # fmt: skip
def test_an_empty_long_or_repeated_header_is_a_validation_error(world: World, headers: list[str]) -> None:
    parent, secret = organisation(world)
    create(world, parent, "acme")
    refused(ValidationFailed, "validation_error", principal_of, world, secret, *headers)


def test_a_refused_on_behalf_counts_in_the_credentials_window(world: World) -> None:
    parent, secret = organisation(world)
    admission = world.auth.admit([f"Bearer {secret}"], IP, READ, ["nope"])
    assert isinstance(admission.refusal, NotFound)
    assert admission.rate is not None and admission.rate.used == 1
    assert world.counters.windows.get((parent.id, window_start(world.clock.now()))) == 1


def test_a_list_send_made_on_behalf_is_resumed_as_it_was_made(world: World) -> None:
    parent, secret = organisation(world)
    sub = create(world, parent, "acme")
    acting = principal_of(world, secret, "acme")
    assert acting.key is not None
    job = ListSend(
        id="lsend_1",
        account_id=sub.id,
        list_id="list_1",
        list_address="news@lists.acme.test",
        key_id=acting.key.id,
        key_account_id=parent.id,
        env=Environment.LIVE,
        request={},
        created_at=world.clock.now(),
    )
    principals = StoredPrincipals(keys=world.store, accounts=world.store)
    resumed = principals.principal_of(job)
    assert resumed is not None
    assert resumed.key is not None and resumed.credential_account is not None
    assert (resumed.account.id, resumed.key.id, resumed.credential_account.id) == (sub.id, acting.key.id, parent.id)
    world.subaccounts.suspend(world.console_principal(parent), sub.id)
    assert principals.principal_of(job) is None
