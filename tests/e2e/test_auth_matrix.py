"""Every route of the route table against every kind of caller, over HTTP on the embedded runtime,
each answer checked against the interface's rules in tests/e2e/auth_matrix.py.

The owner is a subaccount ("workspace") of an organisation, holding one of each resource the
seeds below can make. Its own admitted callers name ids it does not hold (so nothing is changed,
and each write stops at its 400 or 404); outsiders (another account, a sibling workspace, the
organisation itself, the organisation acting for the sibling) name the owner's real ids and must
get 404 not_found, never 403 or 200. A route added later is covered as it is: its path
parameters get the seeds' ids where the path names a seeded collection, and made-up ids otherwise.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from postline.accounts.domain import AccountStatus, Plan
from postline.keys.access import Environment, Scope
from postline.routes import ROUTES, Route
from postline.wiring import operator as operator_root
from tests.e2e.auth_matrix import (
    AUTH_REFUSALS,
    CALLERS,
    Caller,
    Kind,
    check_declared_access,
    expected,
    is_public,
)
from tests.e2e.support import Api, make_account, make_key

pytestmark = pytest.mark.e2e

HIGH_RATE = 1_000_000  # the matrix sends a few hundred requests a minute per account
ON_BEHALF_OF = "On-Behalf-Of"


# Bodies that pass validation, for the write routes that validate theirs before looking the path's
# ids up: without one, an outsider's 400 would hide whether the lookup is scoped. Every other write
# gets {} (refused as 400 by the owner's admitted keys, or answered 404 for the ids).
BODIES: dict[str, dict[str, Any]] = {
    "UpdateList": {"name": "renamed"},
    "AddListMember": {"address": "added@example.com"},
    "BulkUpsertListMembers": {"members": [{"address": "bulk@example.com"}]},
    "UpdateListMember": {"subscribed": True},
    "AssignIp": {"ip": "192.0.2.1"},
}


def _hex() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class World:
    base_url: str
    credentials: dict[str, str | None]  # caller -> bearer value (None: no header)
    raw_authorization: dict[str, str]  # caller -> the whole Authorization header
    on_behalf_of: dict[str, str]  # caller -> On-Behalf-Of
    own: dict[str, str]  # collection path template -> an id (or address) the owner holds
    owner_id: str


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201, 202), response.text
    body: dict[str, Any] = response.json()
    return body


def _seed(owner: Api, tester: Api, now: datetime) -> dict[str, str]:
    """One resource of each kind the owner can make cheaply, by its collection's path template
    (`tester`: the owner's test key, for what would otherwise send or spend)."""
    own: dict[str, str] = {}
    own["/v3/keys"] = _created(owner.post("/v3/keys", json={"name": "seed"}))["id"]
    own["/v3/templates"] = _created(owner.post("/v3/templates", json={"name": "seed", "subject": "Hi"}))["id"]
    hook = {"url": "http://127.0.0.1:9/hooks", "events": ["delivered"], "auth": {"hmac": {}}}
    own["/v3/webhooks"] = _created(owner.post("/v3/webhooks", json=hook))["id"]
    own["/v3/domains"] = _created(owner.post("/v3/domains", json={"domain": f"seed-{_hex()}.example"}))["id"]
    lst = _created(owner.post("/v3/lists", json={"address": f"list-{_hex()}@example.com", "name": "seed"}))
    own["/v3/lists"] = lst["id"]
    member = f"member-{_hex()}@example.com"
    _created(owner.post(f"/v3/lists/{lst['id']}/members", json={"address": member}))
    own["/v3/lists/{id}/members"] = member
    email = f"suppressed-{_hex()}@example.com"
    own["/v3/suppressions"] = _created(owner.post("/v3/suppressions", json={"type": "bounces", "email": email}))["id"]
    own["/v3/suppressions/{type}"] = email
    later = (now + timedelta(days=1)).isoformat()
    scheduled = {"from": "a@example.com", "to": ["b@example.com"], "subject": "Hi", "text": "Hi.", "send_at": later}
    own["/v3/messages"] = _created(tester.post("/v3/messages", json=scheduled))["id"]
    window = {"since": (now - timedelta(hours=1)).isoformat(), "until": now.isoformat()}
    own["/v3/events/export"] = _created(owner.post("/v3/events/export", json=window))["export_id"]
    own["/v3/suppressions/exports"] = _created(owner.post("/v3/suppressions/export", json={}))["export_id"]
    bulk = tester.post("/v3/validate/bulk", json={"emails": ["a@example.com"]})
    own["/v3/validate/bulk"] = _created(bulk)["job_id"]
    return own


def _fill(route: Route, own: dict[str, str], *, owned: bool) -> str:
    """The route's path with each parameter filled: with the owner's ids (`owned`), or with ids of
    the same shape that nobody holds."""
    parts: list[str] = []
    segments = route.path.split("/")
    for index, segment in enumerate(segments):
        if not (segment.startswith("{") and segment.endswith("}")):
            parts.append(segment)
            continue
        name = segment.strip("{}+")
        held = own.get("/".join(segments[:index]))
        if name == "type":
            value = "bounces"
        elif name == "token":
            value = f"tok{_hex()}"
        elif held is not None and owned:
            value = held
        elif held is not None and "@" in held:
            value = f"nobody-{_hex()}@example.com"
        elif held is not None and "_" in held:
            value = f"{held.split('_', 1)[0]}_{_hex()}"
        elif held is not None:
            value = str(uuid.uuid4())
        elif name in ("address", "email"):
            value = f"nobody-{_hex()}@example.com"
        else:
            value = f"x_{_hex()}"
        parts.append(value)
    return "/".join(parts)


@pytest.fixture(scope="module")
def world(runtime: Any) -> World:
    operator = operator_root.operator_service()
    org = make_account(plan=Plan.PROFESSIONAL, rate_limit=HIGH_RATE)
    org_api = Api(runtime.base_url, org.live_key)
    subs = {}
    for slug in ("owner", "sibling"):
        made = org_api.post("/v3/subaccounts", json={"name": slug, "slug": f"{slug}-{_hex()}"})
        subs[slug] = _created(made)
        operator.set_rate_limit(subs[slug]["id"], HIGH_RATE)
    owner_id, sibling_id = subs["owner"]["id"], subs["sibling"]["id"]
    credentials: dict[str, str | None] = {"no_key": None}
    for scope in Scope:
        for env in Environment:
            credentials[f"{scope.value}_{env.value}"] = make_key(owner_id, env=env, scope=scope)
    owner = Api(runtime.base_url, credentials["full_access_live"])
    now = runtime.clock.now().astimezone(UTC)
    own = _seed(owner, owner.with_key(credentials["full_access_test"]), now)

    revoked = make_key(owner_id)
    revoked_id = owner.with_key(revoked).get("/v3/whoami").json()["api_key"]["id"]
    assert owner.delete(f"/v3/keys/{revoked_id}").status_code == 200
    credentials["revoked_key"] = revoked
    credentials["unknown_key"] = "pl_live_" + "x" * 40
    credentials["suspended_account"] = make_account(status=AccountStatus.SUSPENDED).live_key
    credentials["ip_allowlist_miss"] = make_key(owner_id, allowlist=["10.0.0.0/8", "2001:db8::/32"])
    credentials["other_account"] = make_account(plan=Plan.PROFESSIONAL, rate_limit=HIGH_RATE).live_key
    credentials["sibling_workspace"] = make_key(sibling_id)
    credentials["organisation"] = credentials["on_behalf_of_sibling"] = org.live_key
    stranger = Ed25519PrivateKey.generate()
    credentials["bad_console_jwt"] = jwt.encode(
        {"sub": "user_x", "account_id": owner_id, "aud": runtime.env["CONSOLE_JWT_AUDIENCE"], "exp": 2_000_000_000},
        stranger,
        algorithm="EdDSA",
        headers={"kid": "e2e-console"},
    )
    raw = {"malformed_key": f"Bearer {credentials['full_access_live']} x", "not_bearer": "Basic dXNlcjpwYXNz"}
    return World(runtime.base_url, credentials, raw, {"on_behalf_of_sibling": sibling_id}, own, owner_id)


def _call(world: World, session: Any, route: Route, caller: Caller, path: str) -> Any:
    headers: dict[str, str] = {}
    if caller.name in world.raw_authorization:
        headers["Authorization"] = world.raw_authorization[caller.name]
    elif world.credentials.get(caller.name):
        headers["Authorization"] = f"Bearer {world.credentials[caller.name]}"
    if caller.name in world.on_behalf_of:
        headers[ON_BEHALF_OF] = world.on_behalf_of[caller.name]
    body = None if route.method == "GET" else BODIES.get(route.name, {})
    return session.request(route.method, world.base_url + path, headers=headers, json=body, timeout=30)


def test_the_rules_cover_every_route_and_agree_with_its_declared_access() -> None:
    """Every route's rule can be derived, for every caller, and the route table's `access` (what the
    runtime enforces) is the one the interface gives it."""
    assert ROUTES
    assert CALLERS[0].name == "no_key"  # a public route's answer to it is what every caller must get
    for route in ROUTES:
        check_declared_access(route)
        for caller in CALLERS:
            expected(route, caller)


@pytest.mark.parametrize("route", ROUTES, ids=[route.name for route in ROUTES])
def test_every_caller_gets_the_interfaces_answer(
    world: World, route: Route, console_token: Callable[..., str], runtime_api: Api
) -> None:
    world.credentials["console_jwt"] = console_token(account_id=world.owner_id)
    world.credentials["console_jwt_read_only"] = console_token(account_id=world.owner_id, scope="read_only")
    session = runtime_api.session
    owned_path = _fill(route, world.own, owned=True)
    keyless: Any = None
    wrong: list[str] = []
    for caller in CALLERS:
        rule = expected(route, caller)
        path = owned_path if caller.kind is not Kind.OWNER else _fill(route, world.own, owned=False)
        response = _call(world, session, route, caller, path)
        status, body = response.status_code, _json(response)
        code = (body.get("error") or {}).get("code") if isinstance(body, dict) else None
        seen = f"{caller.name} ({caller.description}): {response.request.method} {path} -> {status} {code}"
        if "X-RateLimit-Limit" not in response.headers:
            wrong.append(f"{seen}: no X-RateLimit-* headers")
        if rule.as_keyless:
            keyless = keyless or status
            if status != keyless or status >= 500 or status == 401:
                wrong.append(f"{seen}: a public route answers {keyless} without a key")
        elif rule.refusal is not None:
            if (status, code) != rule.refusal:
                wrong.append(f"{seen}: expected {rule.refusal}")
        elif rule.not_found:
            if (status, code) == (400, "validation_error") and route.name not in BODIES:
                wrong.append(f"{seen}: {route.name} validates its body first; give it a valid one in BODIES")
            elif (status, code) != (404, "not_found"):
                wrong.append(f"{seen}: expected 404 not_found (the path names another account's ids)")
        elif status == 401 or code in AUTH_REFUSALS or status >= 500:
            wrong.append(f"{seen}: expected the route to admit it")
    assert not wrong, "\n".join(wrong)


def test_public_routes_are_in_the_table() -> None:
    """The matrix tells public routes apart by the table's access alone; at least the tracking
    links and the well-known documents are public."""
    assert {route.name for route in ROUTES if is_public(route)} >= {"TrackOpen", "SigningKeys"}


def _json(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
