"""The `subaccount` filter of the organisation's read routes (GET /v3/events, /v3/metrics/*):
Authenticator.read_in_subaccount turns the organisation's principal into one reading in its
subaccount, by id or slug, for any scope; everything else is refused as On-Behalf-Of refuses it."""

from __future__ import annotations

import pytest

from postline.keys.access import Scope
from postline.keys.models import KeyCreate
from postline.shared.errors import ApiError, Forbidden, NotFound, ValidationFailed

from .test_subaccounts import create, organisation, principal_of
from .world import World


def test_an_organisations_key_of_any_scope_reads_in_its_subaccount_by_id_or_slug(world: World) -> None:
    parent, secret = organisation(world)
    acme = create(world, parent, "acme")
    for scope in Scope:
        key = world.key(parent, scope=scope).key
        reading = world.auth.read_in_subaccount(principal_of(world, key), "acme")
        assert (reading.account.id, reading.credential_account) == (acme.id, parent)
    by_id = world.auth.read_in_subaccount(principal_of(world, secret), acme.id)
    assert by_id.account.id == acme.id
    # A suspended subaccount's history stays readable by its organisation.
    world.subaccounts.suspend(world.console_principal(parent), "acme")
    assert world.auth.read_in_subaccount(principal_of(world, secret), "acme").account.id == acme.id


def _refused(world: World, error: type[ApiError], code: str, secret: str, reference: str, *on_behalf: str) -> None:
    with pytest.raises(error) as caught:
        world.auth.read_in_subaccount(principal_of(world, secret, *on_behalf), reference)
    assert caught.value.code == code, caught.value.message


def test_anything_but_the_organisations_own_live_subaccount_is_refused(world: World) -> None:
    parent, secret = organisation(world)
    acme = create(world, parent, "acme")
    create(world, parent, "globex")
    other, other_secret = organisation(world)
    create(world, other, "initech")
    _refused(world, NotFound, "not_found", other_secret, "acme")  # another organisation's
    _refused(world, NotFound, "not_found", other_secret, acme.id)
    _refused(world, NotFound, "not_found", secret, "initech")
    _refused(world, NotFound, "not_found", secret, "nobody")
    _refused(world, ValidationFailed, "validation_error", secret, " ")
    _refused(world, ValidationFailed, "validation_error", secret, "x" * 101)
    # From inside a subaccount (its own key, or acting on its behalf): the filter is the organisation's.
    acme_key = world.keys.create(principal_of(world, secret, "acme"), KeyCreate(name="acme")).key
    _refused(world, Forbidden, "organisation_only", acme_key, "globex")
    _refused(world, Forbidden, "organisation_only", secret, "globex", "acme")
    # A deleted subaccount is gone.
    world.subaccounts.delete(world.console_principal(parent), "acme")
    _refused(world, NotFound, "not_found", secret, "acme")
