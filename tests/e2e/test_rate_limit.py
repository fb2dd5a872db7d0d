"""The per-account, per-minute window: headers on every response, 429 past it, fresh next minute."""

from __future__ import annotations

from typing import Any

import pytest

from postline.keys.domain import Scope
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
