"""A console JWT is accepted as the bearer: signature, expiry and audience checked."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e


def test_a_valid_console_token_authenticates_with_an_empty_key_id(
    runtime_api: Api, console_token: Callable[..., str]
) -> None:
    account = make_account()
    response = runtime_api.with_key(console_token(account_id=account.id)).get("/v3/whoami")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["api_key"] == {"id": "", "scope": "full_access", "environment": "live"}
    assert body["account"]["id"] == account.id


def test_a_console_user_is_the_actor_of_its_writes(runtime_api: Api, console_token: Callable[..., str]) -> None:
    account = make_account()
    user = runtime_api.with_key(console_token(account_id=account.id, sub="user_42"))
    assert user.post("/v3/keys", json={"name": "from the dashboard"}).status_code == 201
    entry = user.get("/v3/audit").json()["items"][0]
    assert (entry["action"], entry["actor_type"], entry["actor_id"]) == ("key.created", "user", "user_42")


@pytest.mark.parametrize(
    "claims",
    [
        {"exp": int(time.time()) - 60},
        {"aud": "someone-else"},
        {"account_id": None},
        {"account_id": "acct_missing"},
        {"scope": "superuser"},
    ],
    ids=["expired", "wrong-audience", "no-account", "unknown-account", "unknown-scope"],
)
def test_invalid_console_tokens_are_unauthorized(
    runtime_api: Api, console_token: Callable[..., str], claims: dict[str, Any]
) -> None:
    account = make_account()
    assert_error(
        runtime_api.with_key(console_token(**{"account_id": account.id, **claims})).get("/v3/whoami"),
        401,
        "unauthorized",
    )


def test_a_token_signed_by_an_unknown_key_is_unauthorized(runtime_api: Api, console_token: Callable[..., str]) -> None:
    account = make_account()
    genuine = console_token(account_id=account.id)
    header = jwt.get_unverified_header(genuine)
    claims = jwt.decode(genuine, options={"verify_signature": False})
    forged = jwt.encode(claims, Ed25519PrivateKey.generate(), algorithm="EdDSA", headers={"kid": header["kid"]})
    assert_error(runtime_api.with_key(forged).get("/v3/whoami"), 401, "unauthorized")


def test_a_read_only_console_token_cannot_write(runtime_api: Api, console_token: Callable[..., str]) -> None:
    account = make_account()
    token = console_token(account_id=account.id, scope="read_only")
    assert_error(runtime_api.with_key(token).post("/v3/keys", json={"name": "x"}), 403, "insufficient_scope")
