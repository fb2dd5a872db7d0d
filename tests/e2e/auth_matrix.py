"""The interface's authentication rules (section 5 and the errors table, section 7), written once:
for any route of the route table and any caller, the answer the interface promises.

tests/e2e/test_auth_matrix.py reads these tables for every route in `postline.routes.ROUTES`,
so a route added later is covered without an edit here; a route whose rule these tables cannot
derive fails with `RuleUnknown`, naming it.

The rule is derived from the interface, not from the route's own `access`: the method and, for
send_only keys, the interface's short list of writes they may make. `check_declared_access` then
holds the route table's `access` to the same rule, so the runtime's scope check and the
interface cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from postline.keys.access import Access, Environment, Scope
from postline.routes import Route


class RuleUnknown(AssertionError):
    """The tables below cannot say how the interface treats this route."""


class Kind(StrEnum):
    """How a caller presents itself."""

    REFUSED = "refused"  # refused before any route rule: a fixed (status, code)
    OWNER = "owner"  # a credential of the account whose resources the path names (its scope decides)
    OUTSIDER = "outsider"  # a valid credential of another account or workspace


@dataclass(frozen=True)
class Caller:
    name: str
    kind: Kind
    description: str
    scope: Scope = Scope.FULL_ACCESS
    env: Environment = Environment.LIVE
    refusal: tuple[int, str] | None = None  # Kind.REFUSED: what the interface answers


# Section 5.3's scope table: the writes a send_only key may make (besides any GET). "Cancel its own
# scheduled sends": a scheduled message's, and a scheduled list send's (a send of the list).
SEND_ONLY_WRITES = frozenset(
    {
        ("POST", "/v3/messages"),
        ("POST", "/v3/messages.batch"),
        ("DELETE", "/v3/messages/{id}"),
        ("DELETE", "/v3/lists/{id}/sends/{send_id}"),
    }
)
SEND_ROUTES = frozenset({("POST", "/v3/messages"), ("POST", "/v3/messages.batch")})
READ_METHODS = frozenset({"GET"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# The codes of an authentication or authorization refusal (sections 5 and 7): an admitted caller
# never gets one of these.
AUTH_REFUSALS = frozenset(
    {
        "unauthorized",
        "insufficient_scope",
        "test_key_forbidden",
        "ip_not_allowed",
        "account_suspended",
        "account_deleted",
    }
)

CALLERS: tuple[Caller, ...] = (
    Caller("no_key", Kind.REFUSED, "no Authorization header", refusal=(401, "unauthorized")),
    Caller("malformed_key", Kind.REFUSED, "Authorization: Bearer with a space in it", refusal=(401, "unauthorized")),
    Caller("not_bearer", Kind.REFUSED, "Authorization: Basic ...", refusal=(401, "unauthorized")),
    Caller("unknown_key", Kind.REFUSED, "a well-formed key nobody issued", refusal=(401, "unauthorized")),
    Caller("revoked_key", Kind.REFUSED, "a key of the owner, deleted", refusal=(401, "unauthorized")),
    Caller("bad_console_jwt", Kind.REFUSED, "a console JWT signed by another key", refusal=(401, "unauthorized")),
    Caller("suspended_account", Kind.REFUSED, "a key of a suspended account", refusal=(403, "account_suspended")),
    Caller("ip_allowlist_miss", Kind.REFUSED, "a key whose allowlist excludes us", refusal=(403, "ip_not_allowed")),
    *(
        Caller(f"{scope.value}_{env.value}", Kind.OWNER, f"the owner's {env.value} {scope.value} key", scope, env)
        for scope in Scope
        for env in Environment
    ),
    Caller("console_jwt", Kind.OWNER, "a console JWT for the owner's account"),
    Caller("console_jwt_read_only", Kind.OWNER, "a console JWT with scope read_only", Scope.READ_ONLY),
    Caller("other_account", Kind.OUTSIDER, "another account's full_access live key"),
    Caller("sibling_workspace", Kind.OUTSIDER, "a sibling subaccount's full_access live key"),
    Caller("organisation", Kind.OUTSIDER, "the parent organisation's key, acting in its own account"),
    Caller("on_behalf_of_sibling", Kind.OUTSIDER, "the organisation's key with On-Behalf-Of: the sibling"),
)


@dataclass(frozen=True)
class Expected:
    """One of: a refusal (status, code); `admitted` (any answer but an auth refusal, never 5xx);
    `not_found` (404 not_found: the path names another account's resources); or `as_keyless` (a
    public route: whatever it answers without a key)."""

    refusal: tuple[int, str] | None = None
    admitted: bool = False
    not_found: bool = False
    as_keyless: bool = False


def is_public(route: Route) -> bool:
    """Public routes take no key (tracking links, well-known documents); every other route is keyed
    (section 5.1: every request carries a key)."""
    return route.access is Access.PUBLIC


def scope_permits(route: Route, scope: Scope) -> bool:
    """Section 5.3's table."""
    if route.method not in READ_METHODS | WRITE_METHODS:
        raise RuleUnknown(f"{route.name}: no scope rule for method {route.method}")
    if scope is Scope.FULL_ACCESS or route.method in READ_METHODS:
        return True
    if scope is Scope.SEND_ONLY:
        return (route.method, route.path) in SEND_ONLY_WRITES
    if scope is Scope.READ_ONLY:
        return False
    raise RuleUnknown(f"{route.name}: no rule for scope {scope}")


def expected(route: Route, caller: Caller) -> Expected:
    if is_public(route):
        return Expected(as_keyless=True)
    if caller.kind is Kind.REFUSED:
        assert caller.refusal is not None
        return Expected(refusal=caller.refusal)
    if caller.kind is Kind.OUTSIDER:
        # Ids are account-scoped (section 7, 404): a path naming the owner's resources is not found.
        return Expected(not_found=True) if "{" in route.path else Expected(admitted=True)
    if not scope_permits(route, caller.scope):
        return Expected(refusal=(403, "insufficient_scope"))
    if route.live_only and caller.env is Environment.TEST:
        return Expected(refusal=(403, "test_key_forbidden"))
    return Expected(admitted=True)


def check_declared_access(route: Route) -> None:
    """The route table's `access` (what the runtime enforces) agrees with the interface's rule."""
    key = (route.method, route.path)
    if route.access is Access.PUBLIC:
        return
    wanted = {
        Access.READ: route.method in READ_METHODS,
        Access.SEND: key in SEND_ROUTES,
        Access.CANCEL_OWN_SEND: key in SEND_ONLY_WRITES - SEND_ROUTES,
        Access.WRITE: route.method in WRITE_METHODS and key not in SEND_ONLY_WRITES,
    }
    if route.access not in wanted:
        raise RuleUnknown(f"{route.name}: the auth matrix has no rule for access {route.access!r}")
    if not wanted[route.access]:
        raise RuleUnknown(
            f"{route.name} ({route.method} {route.path}) declares access {route.access.value}, which the "
            f"interface's scope table does not give it"
        )
