"""Authentication and authorisation of a request, with fakes for keys, counters and clock.

Order, each with its own code: 401 unauthorized -> 403 account status -> 403 ip_not_allowed
-> 429 rate_limited -> 403 insufficient_scope -> 403 test_key_forbidden.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from postline.accounts.domain import AccountStatus, Plan
from postline.auth.service import MAX_BEARER_LENGTH, RATE_LIMITED, Authenticator, RouteRule
from postline.keys.access import Access, Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.keys.identity import Principal
from postline.keys.models import KeyUpdate
from postline.shared.errors import ApiError, Forbidden, RateLimited, Unauthorized
from tests.fakes.shared import dims

from .world import World

READ = RouteRule(Access.READ, live_only=False)
WRITE = RouteRule(Access.WRITE, live_only=False)
LIVE_WRITE = RouteRule(Access.WRITE, live_only=True)
SEND = RouteRule(Access.SEND, live_only=False)


def request(
    world: World,
    authorization: str | None,
    *,
    rule: RouteRule = READ,
    ip: str | None = "203.0.113.9",
    sent: list[str] | None = None,
) -> Principal:
    """What the API does for every non-public route (postline.http.app): admit, or raise the refusal.
    `sent`: every Authorization header of the request, when it is not just `authorization`."""
    headers = sent if sent is not None else [] if authorization is None else [authorization]
    admission = world.auth.admit(headers, ip, rule)
    if admission.refusal is not None:
        raise admission.refusal
    assert admission.principal is not None and admission.rate is not None
    return admission.principal


def refused(error: type[ApiError], code: str, call: Any, *args: Any, **kwargs: Any) -> ApiError:
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code
    return caught.value


# -- the Authorization header ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Bearer    ",
        "Basic dXNlcjpwYXNz",
        "Token pl_live_0001",
        "pl_live_0001SSSS",  # no scheme at all
        "Bearerpl_live_0001SSSS",
        "Bearer\tpl_live_0001SSSS",
        "Bearer pl_live_0001 SSSS",  # whitespace inside the token
        "Bearer pl_live_0001\tSSSS",
        "Bearer pl_live_0001\nSSSS",
        "Bearer " + "pl_live_" + "x" * MAX_BEARER_LENGTH,
    ],
)
def test_missing_or_malformed_authorization_is_unauthorized(world: World, header: str | None) -> None:
    error = refused(Unauthorized, "unauthorized", world.auth.authenticate, header, "203.0.113.9")
    assert error.status == 401
    assert (world.hasher.calls, world.console.verified) == (0, [])  # refused before any lookup


@pytest.mark.parametrize(
    "headers",
    [
        ["Bearer {other}", "Bearer {key}"],  # two keys: never "the last one wins"
        ["Bearer {key}", "Bearer {key}"],  # even the same one twice
        ["Basic dXNlcjpwYXNz", "Bearer {key}"],  # a bearer and a basic
        ["Bearer {other},Bearer {key}"],  # repeated headers joined with a comma
        ["Bearer {other}, {key}"],
    ],
)
def test_ambiguous_credentials_are_unauthorized(world: World, headers: list[str]) -> None:
    account = world.account()
    key, other = world.key(account).key, world.key(world.account()).key
    sent = [header.format(key=key, other=other) for header in headers]
    hashed = world.hasher.calls
    error = refused(Unauthorized, "unauthorized", request, world, None, rule=READ, sent=sent)
    assert error.status == 401
    assert world.hasher.calls == hashed  # refused before any lookup


def test_a_valid_key_resolves_its_account_scope_environment_and_source(world: World) -> None:
    account = world.account(plan=Plan.PROFESSIONAL)
    created = world.key(account, env=Environment.TEST, scope=Scope.SEND_ONLY)

    principal = world.auth.authenticate(f"Bearer {created.key}", "198.51.100.7")

    assert principal.account.id == account.id
    assert principal.key is not None
    assert (principal.key_id, principal.scope, principal.env) == (created.id, Scope.SEND_ONLY, Environment.TEST)
    assert (principal.source_ip, principal.user_id) == ("198.51.100.7", None)


@pytest.mark.parametrize("template", ["bearer {}", "BEARER {}", "Bearer   {}  "])
def test_the_scheme_is_case_insensitive_and_padding_is_ignored(world: World, template: str) -> None:
    created = world.key(world.account())
    assert world.auth.authenticate(template.format(created.key), None).key_id == created.id


@pytest.mark.parametrize("secret", ["pl_live_" + "Z" * 40, "pl_test_" + "Z" * 40, "pl_live_", "sk_live_abc"])
def test_an_unknown_key_is_unauthorized(world: World, secret: str) -> None:
    world.key(world.account())
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {secret}", None)


def test_a_secret_differing_by_one_character_is_unauthorized(world: World) -> None:
    created = world.key(world.account())
    tampered = created.key[:-1] + ("T" if created.key[-1] != "T" else "U")
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {tampered}", None)


# -- revocation -----------------------------------------------------------------------------------


def test_rotation_refuses_the_old_secret_at_once_and_accepts_the_new_one(world: World) -> None:
    account = world.account()
    created = world.key(account)
    assert world.auth.authenticate(f"Bearer {created.key}", None).key_id == created.id

    rotated = world.keys.rotate(world.console_principal(account), created.id)

    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {created.key}", None)
    assert world.auth.authenticate(f"Bearer {rotated.key}", None).key_id == created.id


def test_a_lagging_hash_lookup_cannot_revive_a_rotated_secret(world: World) -> None:
    account = world.account()
    created = world.key(account)
    world.keys.rotate(world.console_principal(account), created.id)
    # The lookup item still points the old hash at the key; the key item itself must decide.
    world.store.plant_hash_lookup(world.hasher.hash(created.key), account.id, created.id)

    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {created.key}", None)


def test_a_deleted_key_is_unauthorized(world: World) -> None:
    account = world.account()
    created = world.key(account)
    world.keys.delete(world.console_principal(account), created.id)
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {created.key}", None)


def test_a_lookup_pointing_at_a_deleted_key_is_unauthorized(world: World) -> None:
    account = world.account()
    created = world.key(account)
    world.keys.delete(world.console_principal(account), created.id)
    world.store.plant_hash_lookup(world.hasher.hash(created.key), account.id, created.id)
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {created.key}", None)


# -- account status -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"), [(AccountStatus.SUSPENDED, "account_suspended"), (AccountStatus.TRASHED, "account_deleted")]
)
def test_a_locked_account_is_forbidden_with_its_own_code(world: World, status: AccountStatus, code: str) -> None:
    account = world.account()
    created = world.key(account)
    world.operator.set_status(account.id, status)

    error = refused(Forbidden, code, world.auth.authenticate, f"Bearer {created.key}", None)
    assert error.status == 403


@pytest.mark.parametrize("status", [AccountStatus.ACTIVE, AccountStatus.TRIALING, AccountStatus.PAST_DUE])
def test_other_statuses_may_use_the_api(world: World, status: AccountStatus) -> None:
    created = world.key(world.account(status=status))
    assert world.auth.authenticate(f"Bearer {created.key}", None).account.status is status


def test_account_status_is_checked_before_the_ip_allowlist(world: World) -> None:
    account = world.account()
    created = world.key(account, ip_allowlist=[AllowlistEntry(cidr="10.0.0.0/8")])
    world.operator.set_status(account.id, AccountStatus.SUSPENDED)
    refused(Forbidden, "account_suspended", world.auth.authenticate, f"Bearer {created.key}", "192.0.2.1")


def test_a_status_change_takes_effect_on_the_next_request(world: World) -> None:
    account = world.account()
    created = world.key(account)
    world.auth.authenticate(f"Bearer {created.key}", None)
    world.operator.set_status(account.id, AccountStatus.SUSPENDED)
    refused(Forbidden, "account_suspended", world.auth.authenticate, f"Bearer {created.key}", None)
    world.operator.set_status(account.id, AccountStatus.ACTIVE)
    assert world.auth.authenticate(f"Bearer {created.key}", None).account.status is AccountStatus.ACTIVE


# -- IP allowlist ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "allowed"),
    [
        ("10.20.30.40", True),
        ("::ffff:10.20.30.40", True),
        ("2001:db8:5::1", True),
        ("192.0.2.1", False),
        ("2001:db9::1", False),
        (None, False),
    ],
)
def test_the_ip_allowlist_is_enforced(world: World, source: str | None, allowed: bool) -> None:
    allowlist = [AllowlistEntry(cidr="10.0.0.0/8", label="office"), AllowlistEntry(cidr="2001:db8::/32", label="vpn")]
    created = world.key(world.account(), ip_allowlist=allowlist)
    header = f"Bearer {created.key}"
    if allowed:
        assert world.auth.authenticate(header, source).key_id == created.id
    else:
        refused(Forbidden, "ip_not_allowed", world.auth.authenticate, header, source)


def test_a_key_without_allowlist_accepts_any_source(world: World) -> None:
    created = world.key(world.account())
    for source in ("192.0.2.1", "2001:db8::1", None):
        assert world.auth.authenticate(f"Bearer {created.key}", source).key_id == created.id


# -- scope and mode -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope", "rule", "code"),
    [
        (Scope.READ_ONLY, READ, None),
        (Scope.READ_ONLY, SEND, "insufficient_scope"),
        (Scope.READ_ONLY, WRITE, "insufficient_scope"),
        (Scope.SEND_ONLY, SEND, None),
        (Scope.SEND_ONLY, RouteRule(Access.CANCEL_OWN_SEND, live_only=False), None),
        (Scope.SEND_ONLY, WRITE, "insufficient_scope"),
        (Scope.FULL_ACCESS, WRITE, None),
    ],
)
def test_scopes_are_enforced_per_route(world: World, scope: Scope, rule: RouteRule, code: str | None) -> None:
    created = world.key(world.account(), scope=scope)
    if code is None:
        assert request(world, f"Bearer {created.key}", rule=rule).scope is scope
    else:
        refused(Forbidden, code, request, world, f"Bearer {created.key}", rule=rule)


def test_a_test_key_on_a_live_only_route_is_forbidden(world: World) -> None:
    created = world.key(world.account(), env=Environment.TEST)
    refused(Forbidden, "test_key_forbidden", request, world, f"Bearer {created.key}", rule=LIVE_WRITE)
    assert request(world, f"Bearer {created.key}", rule=WRITE).env is Environment.TEST


def test_a_live_key_may_use_a_live_only_route(world: World) -> None:
    created = world.key(world.account(), env=Environment.LIVE)
    assert request(world, f"Bearer {created.key}", rule=LIVE_WRITE).env is Environment.LIVE


def test_scope_is_checked_before_the_key_mode(world: World) -> None:
    created = world.key(world.account(), env=Environment.TEST, scope=Scope.READ_ONLY)
    refused(Forbidden, "insufficient_scope", request, world, f"Bearer {created.key}", rule=LIVE_WRITE)


# -- the rate window ------------------------------------------------------------------------------


def test_the_request_after_the_limit_is_refused_with_retry_after_until_the_next_minute(world: World) -> None:
    account = world.account()
    world.operator.set_rate_limit(account.id, 5)
    header = f"Bearer {world.key(account).key}"
    world.clock.advance(20)  # 12:00:20, 40 s before the window resets

    for _ in range(5):
        request(world, header)
    error = refused(RateLimited, "rate_limited", request, world, header)

    assert (error.status, error.retry_after) == (429, 40)
    world.clock.advance(39.5)  # 12:00:59.5: still the same window
    assert refused(RateLimited, "rate_limited", request, world, header).retry_after == 1
    world.clock.advance(0.5)  # 12:01:00: a fresh window
    request(world, header)
    assert world.auth.count_request(world.auth.authenticate(header, None)).used == 2


@pytest.mark.parametrize(("plan", "limit"), [(Plan.FREE, 600), (Plan.PROFESSIONAL, 6_000)])
def test_the_window_size_is_the_plans_published_limit(world: World, plan: Plan, limit: int) -> None:
    principal = world.auth.authenticate(f"Bearer {world.key(world.account(plan=plan)).key}", None)
    decisions = [world.auth.count_request(principal) for _ in range(limit + 1)]
    assert decisions[limit - 1].allowed
    assert decisions[limit - 1].limit == limit
    assert decisions[limit - 1].remaining == 0
    assert not decisions[limit].allowed
    assert decisions[limit].headers()["Retry-After"] == "60"


def test_the_window_is_per_account_and_shared_by_its_keys(world: World) -> None:
    busy, quiet = world.account(), world.account()
    world.operator.set_rate_limit(busy.id, 2)
    first, second = world.key(busy).key, world.key(busy).key
    request(world, f"Bearer {first}")
    request(world, f"Bearer {second}")
    refused(RateLimited, "rate_limited", request, world, f"Bearer {first}")
    assert request(world, f"Bearer {world.key(quiet).key}").account.id == quiet.id


def test_requests_refused_for_scope_still_count_against_the_window(world: World) -> None:
    account = world.account()
    world.operator.set_rate_limit(account.id, 2)
    header = f"Bearer {world.key(account, scope=Scope.READ_ONLY).key}"
    refused(Forbidden, "insufficient_scope", request, world, header, rule=WRITE)
    refused(Forbidden, "insufficient_scope", request, world, header, rule=WRITE)
    refused(RateLimited, "rate_limited", request, world, header, rule=READ)


def test_the_window_counter_expires_after_the_next_window(world: World) -> None:
    account = world.account()
    world.auth.count_request(world.console_principal(account))
    start = int(world.clock.now().timestamp())
    assert world.counters.expiries == {(account.id, start): start + 120}


def test_an_account_rate_override_takes_effect_on_the_next_request(world: World) -> None:
    account = world.account()
    header = f"Bearer {world.key(account).key}"
    assert world.auth.count_request(world.auth.authenticate(header, None)).limit == 600
    world.operator.set_rate_limit(account.id, 1_000)
    assert world.auth.count_request(world.auth.authenticate(header, None)).limit == 1_000


# -- last_used_at ---------------------------------------------------------------------------------


def test_last_used_is_written_at_most_once_a_minute(world: World) -> None:
    account = world.account()
    created = world.key(account)
    header = f"Bearer {created.key}"
    start = world.clock.now()

    for _ in range(3):
        request(world, header)  # same instant: one write
    assert world.store.touch_writes == 1
    for step in (10, 20, 29.9):  # up to 59.9 s later: no further write
        world.clock.advance(step)
        request(world, header)
    assert world.store.touch_writes == 1
    assert len(world.store.touch_calls) == 1  # not even attempted
    world.clock.advance(0.1)  # 60 s after the first write
    request(world, header)
    request(world, header)

    assert world.store.touch_writes == 2
    assert [at for _, at in world.store.touch_calls] == [start, world.clock.now()]
    assert world.keys.get(world.console_principal(account), created.id).last_used_at == world.clock.now()


def test_a_console_user_touches_no_key(world: World) -> None:
    account = world.account()
    world.key(account)
    world.auth.touch(world.console_principal(account))
    assert world.store.touch_calls == []


# -- console JWTs ---------------------------------------------------------------------------------


def test_a_console_token_resolves_to_the_account_with_no_key(world: World) -> None:
    account = world.account()
    token = world.console.issue({"sub": "usr_42", "account_id": account.id})

    principal = request(world, f"Bearer {token}", rule=LIVE_WRITE, ip="192.0.2.8")

    assert principal.account.id == account.id
    assert (principal.key, principal.key_id, principal.env) == (None, "", Environment.LIVE)
    assert (principal.scope, principal.user_id, principal.source_ip) == (Scope.FULL_ACCESS, "usr_42", "192.0.2.8")
    assert world.console.verified == [token]


def test_a_console_token_may_carry_a_narrower_scope(world: World) -> None:
    account = world.account()
    token = world.console.issue({"sub": "usr_42", "account_id": account.id, "scope": "read_only"})
    assert request(world, f"Bearer {token}").scope is Scope.READ_ONLY
    refused(Forbidden, "insufficient_scope", request, world, f"Bearer {token}", rule=WRITE)


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "usr_42"},  # no account_id claim
        {"sub": "usr_42", "account_id": None},
        {"sub": "usr_42", "account_id": 12345},
        {"sub": "usr_42", "account_id": "acct_nobody"},  # unknown account
    ],
)
def test_a_console_token_without_a_known_account_is_unauthorized(world: World, claims: dict[str, Any]) -> None:
    world.account()
    token = world.console.issue(claims)
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {token}", None)


def test_a_console_token_carries_the_environment_of_the_consoles_switch(world: World) -> None:
    account = world.account()
    test = world.console.issue({"sub": "usr_42", "account_id": account.id, "env": "test"})
    live = world.console.issue({"sub": "usr_42", "account_id": account.id, "env": "live"})
    assert request(world, f"Bearer {test}").env is Environment.TEST
    assert request(world, f"Bearer {live}").env is Environment.LIVE


def test_a_console_token_with_an_unknown_environment_is_unauthorized(world: World) -> None:
    account = world.account()
    token = world.console.issue({"sub": "usr_42", "account_id": account.id, "env": "staging"})
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {token}", None)


def test_a_console_token_with_an_unknown_scope_is_unauthorized(world: World) -> None:
    account = world.account()
    token = world.console.issue({"sub": "usr_42", "account_id": account.id, "scope": "admin"})
    refused(Unauthorized, "unauthorized", world.auth.authenticate, f"Bearer {token}", None)


def test_an_unverifiable_console_token_is_unauthorized(world: World) -> None:
    world.account()
    refused(Unauthorized, "unauthorized", world.auth.authenticate, "Bearer eyJhbGciOi.forged.token", None)


def test_console_tokens_are_refused_when_no_verifier_is_configured(world: World) -> None:
    account = world.account()
    token = world.console.issue({"sub": "usr_42", "account_id": account.id})
    auth = Authenticator(
        keys=world.store,
        accounts=world.store,
        subaccounts=world.subaccount_store,
        counters=world.counters,
        hasher=world.hasher,
        clock=world.clock,
        console=None,
        meter=world.meter,
    )
    refused(Unauthorized, "unauthorized", auth.authenticate, f"Bearer {token}", None)


def test_a_console_token_for_a_suspended_account_is_forbidden(world: World) -> None:
    account = world.account(status=AccountStatus.SUSPENDED)
    token = world.console.issue({"sub": "usr_42", "account_id": account.id})
    refused(Forbidden, "account_suspended", world.auth.authenticate, f"Bearer {token}", None)


def test_key_shaped_bearers_never_reach_the_console_verifier(world: World) -> None:
    world.account()
    refused(Unauthorized, "unauthorized", world.auth.authenticate, "Bearer pl_live_unknown", None)
    assert world.console.verified == []


def test_a_refusal_after_counting_still_reports_the_window(world: World) -> None:
    read_only = world.key(world.account(), scope=Scope.READ_ONLY)
    admission = world.auth.admit([f"Bearer {read_only.key}"], "203.0.113.9", WRITE)
    assert isinstance(admission.refusal, Forbidden) and admission.refusal.code == "insufficient_scope"
    assert admission.rate is not None and admission.rate.used == 1


# -- the source address's window: requests no account's window counts ------------------------------


def _with_ip_limit(world: World, limit: int) -> Authenticator:
    return Authenticator(
        keys=world.store,
        accounts=world.store,
        subaccounts=world.subaccount_store,
        counters=world.counters,
        hasher=world.hasher,
        clock=world.clock,
        console=world.console,
        meter=world.meter,
        ip_rate_limit=limit,
    )


def test_an_unauthenticated_request_counts_in_its_source_addresss_window(world: World) -> None:
    first = world.auth.admit(["Bearer pl_live_unknown"], "203.0.113.9", READ)
    second = world.auth.admit([], "203.0.113.9", WRITE)
    elsewhere = world.auth.admit([], "198.51.100.7", READ)

    for admission in (first, second, elsewhere):
        assert isinstance(admission.refusal, Unauthorized) and admission.principal is None
    assert first.rate is not None and second.rate is not None and elsewhere.rate is not None
    assert (first.rate.limit, first.rate.used, second.rate.used, elsewhere.rate.used) == (600, 1, 2, 1)
    assert second.rate.headers() == {
        "X-RateLimit-Limit": "600",
        "X-RateLimit-Remaining": "598",
        "X-RateLimit-Reset": "60",
    }
    assert world.counters.windows == {}  # no account's window


@pytest.mark.parametrize(
    ("status", "code"), [(AccountStatus.SUSPENDED, "account_suspended"), (AccountStatus.TRASHED, "account_deleted")]
)
def test_refusals_before_the_accounts_window_count_in_the_source_window(
    world: World, status: AccountStatus, code: str
) -> None:
    locked = world.key(world.account(status=status)).key
    admission = world.auth.admit([f"Bearer {locked}"], "203.0.113.9", READ)
    assert isinstance(admission.refusal, Forbidden) and admission.refusal.code == code
    assert admission.rate is not None and admission.rate.used == 1
    assert world.counters.windows == {}


def test_an_authenticated_request_does_not_count_in_the_source_window(world: World) -> None:
    request(world, f"Bearer {world.key(world.account()).key}")
    assert world.counters.source_windows == {}


def test_a_public_route_counts_in_the_source_window(world: World) -> None:
    decisions = [world.auth.admit_public("203.0.113.9") for _ in range(2)]
    assert [(d.principal, d.refusal) for d in decisions] == [(None, None), (None, None)]
    assert [d.rate.used if d.rate else None for d in decisions] == [1, 2]


def test_past_the_source_limit_is_429_with_retry_after_until_the_next_minute(world: World) -> None:
    auth = _with_ip_limit(world, 2)
    world.clock.advance(20)  # 12:00:20
    assert isinstance(auth.admit([], "203.0.113.9", READ).refusal, Unauthorized)
    assert auth.admit_public("203.0.113.9").refusal is None

    for admission in (auth.admit([], "203.0.113.9", READ), auth.admit_public("203.0.113.9")):
        assert isinstance(admission.refusal, RateLimited) and admission.refusal.code == "rate_limited"
        assert (admission.refusal.status, admission.refusal.retry_after) == (429, 40)
        assert admission.rate is not None and admission.rate.headers()["X-RateLimit-Remaining"] == "0"
    assert auth.admit_public("198.51.100.7").refusal is None  # another address has its own window
    world.clock.advance(40)  # 12:01:00: a fresh window
    assert isinstance(auth.admit([], "203.0.113.9", READ).refusal, Unauthorized)


def test_the_source_window_counter_expires_after_the_next_window(world: World) -> None:
    world.auth.admit_public("203.0.113.9")
    start = int(world.clock.now().timestamp())
    assert world.counters.source_expiries == {("203.0.113.9", start): start + 120}


# -- the meter: each 429 rate_limited, by window ------------------------------------------------------


def test_each_rate_limited_answer_is_counted_by_its_window(world: World) -> None:
    account = world.account()
    world.operator.set_rate_limit(account.id, 1)
    header = f"Bearer {world.key(account).key}"
    request(world, header)
    for _ in range(2):
        refused(RateLimited, "rate_limited", request, world, header)
    auth = _with_ip_limit(world, 1)
    assert auth.admit_public("198.51.100.7").refusal is None
    assert isinstance(auth.admit_public("198.51.100.7").refusal, RateLimited)
    assert isinstance(auth.admit([], "198.51.100.7", READ).refusal, RateLimited)  # ahead of its 401

    assert world.meter.of(RATE_LIMITED) == {dims(window="account"): 2, dims(window="source"): 2}


def test_other_refusals_count_nothing(world: World) -> None:
    read_only = world.key(world.account(), scope=Scope.READ_ONLY)
    refused(Unauthorized, "unauthorized", request, world, "Bearer pl_live_unknown")
    refused(Forbidden, "insufficient_scope", request, world, f"Bearer {read_only.key}", rule=WRITE)
    request(world, f"Bearer {read_only.key}")

    assert world.meter.counts == {}


# -- the account's window counted beside the key's read (a warm instance) ---------------------------


class ThreadNoting:
    """The fake counters, noting which thread counted each account request."""

    def __init__(self, inner: Any, *, fail_take_back: bool = False) -> None:
        self._inner = inner
        self.threads: list[str] = []
        self._fail_take_back = fail_take_back

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def count_request(self, *args: Any, **kwargs: Any) -> int:
        self.threads.append(threading.current_thread().name)
        return int(self._inner.count_request(*args, **kwargs))

    def uncount_request(self, *args: Any, **kwargs: Any) -> None:
        if self._fail_take_back:
            raise RuntimeError("the counters table is down")
        self._inner.uncount_request(*args, **kwargs)


def test_a_known_keys_window_is_counted_beside_its_read_and_decides_the_same(world: World) -> None:
    noting = ThreadNoting(world.counters)
    world.auth._counters = noting
    secret = world.key(world.account()).key
    first = world.auth.admit([f"Bearer {secret}"], "203.0.113.9", READ)  # finds the key: one after the other
    second = world.auth.admit([f"Bearer {secret}"], "203.0.113.9", READ)  # knows it: side by side

    assert first.refusal is None and second.refusal is None and first.rate and second.rate
    assert (first.rate.used, second.rate.used) == (1, 2) and first.rate.limit == second.rate.limit
    assert " > part" not in noting.threads[0] and " > part" in noting.threads[1]
    assert world.counters.source_windows == {}


@pytest.mark.parametrize("change", ["suspend", "delete", "allowlist"])
def test_a_known_key_refused_now_counts_in_the_source_window_only(world: World, change: str) -> None:
    account = world.account()
    created = world.key(account)
    request(world, f"Bearer {created.key}")  # this instance now knows the key's account
    if change == "suspend":
        world.operator.set_status(account.id, AccountStatus.SUSPENDED)
    elif change == "delete":
        world.keys.delete(world.console_principal(account), created.id)
    else:
        allowlist = KeyUpdate(ip_allowlist=[AllowlistEntry(cidr="192.0.2.0/24")])
        world.keys.update(world.console_principal(account), created.id, allowlist)

    admission = world.auth.admit([f"Bearer {created.key}"], "203.0.113.9", READ)

    assert admission.refusal is not None and admission.refusal.status in (401, 403)
    assert list(world.counters.windows.values()) == [1]  # the first request; the refused one taken back
    assert list(world.counters.source_windows.values()) == [1]


def test_a_take_back_that_fails_still_answers_the_refusal(world: World) -> None:
    world.auth._counters = ThreadNoting(world.counters, fail_take_back=True)
    account = world.account()
    created = world.key(account)
    request(world, f"Bearer {created.key}")
    world.operator.set_status(account.id, AccountStatus.SUSPENDED)

    admission = world.auth.admit([f"Bearer {created.key}"], "203.0.113.9", READ)

    assert isinstance(admission.refusal, Forbidden) and admission.refusal.code == "account_suspended"
