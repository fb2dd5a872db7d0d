"""The interface's table of scopes: what each scope may do."""

from __future__ import annotations

import itertools

import pytest

from postline.keys.access import Access, Scope, scope_permits

# Rows: scope. Columns: the kind of route. Straight from the interface's table:
# full_access: everything; send_only: sends, cancelling its own scheduled sends and any GET;
# read_only: GET only. Public routes (no key at all) never consult a scope.
PERMITTED = {
    Scope.FULL_ACCESS: {Access.READ, Access.SEND, Access.CANCEL_OWN_SEND, Access.WRITE, Access.PUBLIC},
    Scope.SEND_ONLY: {Access.READ, Access.SEND, Access.CANCEL_OWN_SEND, Access.PUBLIC},
    Scope.READ_ONLY: {Access.READ, Access.PUBLIC},
}


def test_the_matrix_covers_every_scope_and_access() -> None:
    assert set(PERMITTED) == set(Scope)
    assert set().union(*PERMITTED.values()) == set(Access)


@pytest.mark.parametrize(("scope", "access"), list(itertools.product(Scope, Access)))
def test_scope_permits_matches_the_spec_table(scope: Scope, access: Access) -> None:
    assert scope_permits(scope, access) is (access in PERMITTED[scope])


def test_full_access_is_the_default_scope_value() -> None:
    assert Scope("full_access") is Scope.FULL_ACCESS
    assert [s.value for s in Scope] == ["full_access", "send_only", "read_only"]
