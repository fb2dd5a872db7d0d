"""The per-account, per-minute window: headers on every response, 429 past it, fresh next minute;
and the source address's window of the requests no account's window counts (401s, public routes)."""

from __future__ import annotations

from typing import Any

import pytest

from postline import wiring
from postline.keys.access import Scope
from tests.conftest import SOURCE_RATE_LIMIT
from tests.e2e.support import Api, assert_error, make_account, make_key

pytestmark = pytest.mark.e2e


def test_every_authenticated_response_carries_the_window(runtime_api: Api) -> None:
    admin = runtime_api.with_key(make_account().live_key)
    first, refused = admin.get("/v3/whoami"), admin.post("/v3/keys", json={})
    for response in (first, refused):
        assert response.headers["X-RateLimit-Limit"] == "600"
        assert 1 <= int(response.headers["X-RateLimit-Reset"]) <= 60
        assert response.headers["X-Request-Id"]
    assert int(refused.headers["X-RateLimit-Remaining"]) == int(first.headers["X-RateLimit-Remaining"]) - 1


def test_past_the_limit_is_429_with_retry_after_and_the_next_window_is_fresh(runtime_api: Api, runtime: Any) -> None:
    account = make_account(rate_limit=3)
    api = runtime_api.with_key(account.live_key)
    runtime.clock.advance(60 - runtime.clock.now().timestamp() % 60 + 0.5)  # start of a window
    remaining = [api.get("/v3/whoami").headers["X-RateLimit-Remaining"] for _ in range(3)]
    assert remaining == ["2", "1", "0"]
    refused = api.get("/v3/whoami")
    assert_error(refused, 429, "rate_limited")
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    runtime.clock.advance(int(refused.headers["Retry-After"]))
    assert api.get("/v3/whoami").status_code == 200


def test_the_limit_is_per_account(runtime_api: Api, runtime: Any) -> None:
    busy, quiet = make_account(rate_limit=1), make_account(rate_limit=1)
    runtime.clock.advance(60 - runtime.clock.now().timestamp() % 60 + 0.5)
    assert runtime_api.with_key(busy.live_key).get("/v3/whoami").status_code == 200
    assert runtime_api.with_key(busy.test_key).get("/v3/whoami").status_code == 429
    assert runtime_api.with_key(quiet.live_key).get("/v3/whoami").status_code == 200


def test_a_scope_refusal_still_carries_the_window(runtime_api: Api) -> None:
    account = make_account()
    read_only = runtime_api.with_key(make_key(account.id, scope=Scope.READ_ONLY))
    response = read_only.post("/v3/keys", json={"name": "x"})
    assert_error(response, 403, "insufficient_scope")
    assert response.headers["X-RateLimit-Limit"] == "600"


def _window_start(runtime: Any) -> None:
    runtime.clock.advance(60 - runtime.clock.now().timestamp() % 60 + 0.5)


def _window(response: Any) -> tuple[str, int, int]:
    headers = response.headers
    return headers["X-RateLimit-Limit"], int(headers["X-RateLimit-Remaining"]), int(headers["X-RateLimit-Reset"])


def test_a_401_carries_its_source_addresss_window(runtime_api: Api, runtime: Any) -> None:
    _window_start(runtime)
    missing = runtime_api.get("/v3/whoami")
    unknown = runtime_api.with_key("pl_live_" + "x" * 40).get("/v3/whoami")
    for response in (missing, unknown):
        assert_error(response, 401, "unauthorized")
    (limit, remaining, reset), after = _window(missing), _window(unknown)
    assert limit == str(SOURCE_RATE_LIMIT) and 1 <= reset <= 60
    assert after == (limit, remaining - 1, after[2])


def test_public_routes_carry_the_source_addresss_window(runtime_api: Api, runtime: Any) -> None:
    _window_start(runtime)
    keys = runtime_api.get("/.well-known/svc/keys")
    pixel = runtime_api.get("/v3/track/open/not-a-token", headers={"User-Agent": "Mozilla/5.0"})
    click = runtime_api.get("/v3/track/click/not-a-token")
    unsubscribe = runtime_api.get("/v3/track/unsubscribe/not-a-token")
    assert (keys.status_code, pixel.status_code) == (200, 200)
    windows = [_window(response) for response in (keys, pixel, click, unsubscribe)]
    assert {limit for limit, _, _ in windows} == {str(SOURCE_RATE_LIMIT)}
    assert [remaining for _, remaining, _ in windows] == [windows[0][1] - n for n in range(4)]
    assert all(1 <= reset <= 60 for _, _, reset in windows)


def test_past_the_source_limit_is_429_with_retry_after_and_the_next_window_is_fresh(
    runtime_api: Api, runtime: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyed = runtime_api.with_key(make_account().live_key)
    monkeypatch.setenv("IP_RATE_LIMIT_PER_MINUTE", "3")
    wiring.reset()
    try:
        _window_start(runtime)
        answered = [
            runtime_api.get("/v3/whoami"),
            runtime_api.get("/.well-known/svc/keys"),
            runtime_api.get("/v3/keys"),
        ]
        assert [(r.status_code, r.headers["X-RateLimit-Remaining"]) for r in answered] == [
            (401, "2"),
            (200, "1"),
            (401, "0"),
        ]
        for refused in (runtime_api.get("/v3/whoami"), runtime_api.get("/.well-known/svc/keys")):
            assert_error(refused, 429, "rate_limited")
            assert (refused.headers["X-RateLimit-Limit"], refused.headers["X-RateLimit-Remaining"]) == ("3", "0")
            assert refused.headers["Retry-After"] == refused.headers["X-RateLimit-Reset"]
            assert 1 <= int(refused.headers["Retry-After"]) <= 60
        # A key's requests count in its account's window only, not in its address's.
        authenticated = keyed.get("/v3/whoami")
        assert (authenticated.status_code, authenticated.headers["X-RateLimit-Limit"]) == (200, "600")
        runtime.clock.advance(int(refused.headers["Retry-After"]))
        assert runtime_api.get("/.well-known/svc/keys").status_code == 200
    finally:
        monkeypatch.undo()
        wiring.reset()
