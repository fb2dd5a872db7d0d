"""A warm instance's remembered principals (auth/speculation.py): what `Authenticator.speculate` gives,
what makes it forget, and the confirmation a speculative request joins, with the unit world's fakes."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest

from postline.accounts.domain import AccountStatus, Plan
from postline.auth.service import Admission, RouteRule
from postline.auth.speculation import AdmittedPrincipals, Confirmation, SpeculationMissed, same_principal
from postline.keys.access import Access, Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.keys.identity import Principal
from postline.keys.models import KeyUpdate
from postline.shared.errors import Forbidden, RateLimited, Unauthorized
from postline.subaccounts.models import SubaccountCreate

from .world import World

READ = RouteRule(Access.READ, live_only=False)
SEND = RouteRule(Access.SEND, live_only=False)
LIVE_WRITE = RouteRule(Access.WRITE, live_only=True)
SOURCE = "203.0.113.9"


def admitted(world: World, secret: str, rule: RouteRule = SEND, source: str | None = SOURCE) -> Admission:
    return world.auth.admit([f"Bearer {secret}"], source, rule)


def speculated(world: World, secret: str, rule: RouteRule = SEND, source: str | None = SOURCE) -> Principal | None:
    return world.auth.speculate([f"Bearer {secret}"], source, rule)


def test_a_key_is_speculated_on_only_once_this_instance_admitted_it(world: World) -> None:
    secret = world.key(world.account()).key
    assert speculated(world, secret) is None

    first = admitted(world, secret)
    again = speculated(world, secret, source="198.51.100.7")

    assert first.principal is not None and again is not None
    assert again.source_ip == "198.51.100.7"  # the request's own address
    assert same_principal(again, replace(first.principal, source_ip="198.51.100.7"))
    assert speculated(world, secret, READ) == speculated(world, secret, SEND)  # a key admitted on any route


class CountingKeys:
    """The key store, counting its reads."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.reads = 0

    def __getattr__(self, name: str) -> Any:
        if name in ("find_key_by_hash", "get_key_with_account", "get_key"):
            self.reads += 1
        return getattr(self._inner, name)


def test_speculation_reads_nothing(world: World) -> None:
    keys = CountingKeys(world.store)
    world.auth._keys = keys
    secret = world.key(world.account()).key
    admitted(world, secret)
    reads, windows = keys.reads, dict(world.counters.windows)
    assert reads > 0

    assert speculated(world, secret) is not None
    assert (keys.reads, dict(world.counters.windows)) == (reads, windows)


@pytest.mark.parametrize(
    "headers",
    [
        [],
        ["Bearer {key}", "Bearer {key}"],  # ambiguous: the admission refuses it
        ["Basic dXNlcjpwYXNz"],
        ["Bearer {key} extra"],
    ],
)
def test_anything_but_one_known_key_is_not_speculated_on(world: World, headers: list[str]) -> None:
    secret = world.key(world.account()).key
    admitted(world, secret)
    sent = [header.format(key=secret) for header in headers]
    assert world.auth.speculate(sent, SOURCE, SEND) is None


def test_on_behalf_of_is_never_speculated_on(world: World) -> None:
    secret = world.key(world.account()).key
    admitted(world, secret)
    assert world.auth.speculate([f"Bearer {secret}"], SOURCE, SEND, on_behalf_of=["acct_sub"]) is None


def test_a_console_token_is_never_remembered(world: World) -> None:
    account = world.account()
    token = world.console.issue({"account_id": account.id, "sub": "usr_1"})
    assert world.auth.admit([f"Bearer {token}"], SOURCE, SEND).refusal is None
    assert world.auth.speculate([f"Bearer {token}"], SOURCE, SEND) is None


def test_on_behalf_of_admissions_are_not_remembered(world: World) -> None:
    organisation = world.account(plan=Plan.PROFESSIONAL)
    secret = world.key(organisation).key
    subaccount = world.subaccounts.create(world.console_principal(organisation), SubaccountCreate(name="S", slug="s"))
    assert world.auth.admit([f"Bearer {secret}"], SOURCE, SEND, on_behalf_of=[subaccount.id]).refusal is None
    assert speculated(world, secret) is None


@pytest.mark.parametrize(
    ("scope", "env", "rule"),
    [
        (Scope.READ_ONLY, Environment.LIVE, SEND),  # the scope does not permit the route
        (Scope.FULL_ACCESS, Environment.TEST, LIVE_WRITE),  # a test key on a live-only route
    ],
)
def test_a_route_the_remembered_principal_may_not_use_is_not_speculated_on(
    world: World, scope: Scope, env: Environment, rule: RouteRule
) -> None:
    secret = world.key(world.account(), scope=scope, env=env).key
    assert admitted(world, secret, READ).refusal is None
    assert speculated(world, secret, rule) is None
    assert speculated(world, secret, READ) is not None


def test_an_address_outside_the_remembered_allowlist_is_not_speculated_on(world: World) -> None:
    secret = world.key(world.account(), ip_allowlist=[AllowlistEntry(cidr="10.0.0.0/8")]).key
    assert admitted(world, secret, source="10.1.2.3").refusal is None
    assert speculated(world, secret, source="10.9.9.9") is not None
    assert speculated(world, secret, source="192.0.2.1") is None
    assert speculated(world, secret, source=None) is None


@pytest.mark.parametrize("change", ["delete", "suspend", "allowlist", "rate"])
def test_a_refusal_of_the_key_its_account_its_address_or_its_window_forgets_it(world: World, change: str) -> None:
    account = world.account()
    created = world.key(account)
    admitted(world, created.key)
    if change == "delete":
        world.keys.delete(world.console_principal(account), created.id)
    elif change == "suspend":
        world.operator.set_status(account.id, AccountStatus.SUSPENDED)
    elif change == "allowlist":
        update = KeyUpdate(ip_allowlist=[AllowlistEntry(cidr="192.0.2.0/24")])
        world.keys.update(world.console_principal(account), created.id, update)
    else:
        world.operator.set_rate_limit(account.id, 1)
    # Still remembered: speculation reads nothing, so it cannot know yet.
    assert speculated(world, created.key) is not None

    refusal = admitted(world, created.key).refusal

    expected = {"delete": Unauthorized, "suspend": Forbidden, "allowlist": Forbidden, "rate": RateLimited}[change]
    assert isinstance(refusal, expected)
    assert speculated(world, created.key) is None


def test_a_scope_refusal_keeps_the_key_remembered_as_admitted(world: World) -> None:
    secret = world.key(world.account(), scope=Scope.SEND_ONLY).key
    assert admitted(world, secret, SEND).refusal is None
    refusal = admitted(world, secret, RouteRule(Access.WRITE, live_only=False)).refusal
    assert isinstance(refusal, Forbidden) and refusal.code == "insufficient_scope"
    assert speculated(world, secret) is not None


def test_the_memory_keeps_the_most_recently_used_keys(world: World) -> None:
    memory = AdmittedPrincipals(size=2)
    principals = {name: _principal(world) for name in ("a", "b", "c")}
    memory.remember("a", principals["a"])
    memory.remember("b", principals["b"])
    assert memory.recall("a") is principals["a"]  # now the most recent
    memory.remember("c", principals["c"])

    assert (memory.recall("a"), memory.recall("b"), memory.recall("c")) == (principals["a"], None, principals["c"])
    memory.forget("a")
    assert memory.recall("a") is None


def _principal(world: World) -> Principal:
    admission = admitted(world, world.key(world.account()).key)
    assert admission.principal is not None
    return admission.principal


# -- the confirmation ------------------------------------------------------------------------------


def test_the_confirmation_is_the_admission_made_once_whoever_asks(world: World) -> None:
    secret = world.key(world.account()).key
    admitted(world, secret)
    principal = speculated(world, secret)
    assert principal is not None
    made: list[str] = []

    def admit() -> Admission:
        made.append(threading.current_thread().name)
        return admitted(world, secret)

    confirmation = Confirmation(admit, principal)
    threads = [threading.Thread(target=confirmation.confirm) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    confirmation.confirm()

    assert len(made) == 1 and not confirmation.missed
    assert list(world.counters.windows.values()) == [2]  # the first admission and this one: counted once


def test_a_refused_admission_is_raised_by_the_confirmation(world: World) -> None:
    account = world.account()
    created = world.key(account)
    admitted(world, created.key)
    principal = speculated(world, created.key)
    assert principal is not None
    world.keys.delete(world.console_principal(account), created.id)

    confirmation = Confirmation(lambda: admitted(world, created.key), principal)

    with pytest.raises(Unauthorized):
        confirmation.confirm()
    assert not confirmation.missed and confirmation.admission().refusal is not None


@pytest.mark.parametrize("change", ["plan", "rate_limit", "scope", "allowlist"])
def test_an_admission_as_another_principal_misses(world: World, change: str) -> None:
    account = world.account()
    created = world.key(account, ip_allowlist=[AllowlistEntry(cidr="203.0.113.0/24")])
    admitted(world, created.key)
    principal = speculated(world, created.key)
    assert principal is not None
    console = world.console_principal(account)
    if change == "plan":
        world.operator.set_plan(account.id, Plan.PROFESSIONAL)
    elif change == "rate_limit":
        world.operator.set_rate_limit(account.id, 42)
    elif change == "scope":
        world.keys.update(console, created.id, KeyUpdate(scope=Scope.SEND_ONLY))
    else:
        world.keys.update(console, created.id, KeyUpdate(ip_allowlist=[AllowlistEntry(cidr="203.0.0.0/8")]))

    confirmation = Confirmation(lambda: admitted(world, created.key), principal)

    with pytest.raises(SpeculationMissed):
        confirmation.confirm()
    assert confirmation.missed
    assert speculated(world, created.key) is not None  # now the admitted one
    assert not same_principal(principal, speculated(world, created.key) or principal)


def test_the_keys_last_use_alone_is_no_difference(world: World) -> None:
    secret = world.key(world.account()).key
    admitted(world, secret)
    principal = speculated(world, secret)
    assert principal is not None and principal.key is not None
    world.clock.advance(300)

    confirmation = Confirmation(lambda: admitted(world, secret), principal)
    confirmation.confirm()

    admission = confirmation.admission()
    assert admission.principal is not None and admission.principal.key is not None
    assert admission.principal.key.last_used_at != principal.key.last_used_at
    assert not confirmation.missed


def test_an_admission_that_failed_fails_each_caller(world: World) -> None:
    secret = world.key(world.account()).key
    admitted(world, secret)
    principal = speculated(world, secret)
    assert principal is not None
    calls: list[int] = []

    def broken() -> Admission:
        calls.append(1)
        raise RuntimeError("the keys table is down")

    confirmation = Confirmation(broken, principal)
    for _ in range(2):
        with pytest.raises(RuntimeError):
            confirmation.confirm()
    assert calls == [1]
