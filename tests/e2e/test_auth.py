"""Authentication and authorization over real HTTP: every case the interface lists."""

from __future__ import annotations

import http.client
import json

import pytest

from postline.accounts.domain import AccountStatus
from postline.keys.access import Environment, Scope
from tests.e2e.support import Api, assert_error, make_account, make_key

pytestmark = pytest.mark.e2e


def test_the_dev_key_answers_whoami(api: Api) -> None:
    response = api.get("/v3/whoami")
    assert response.status_code == 200
    body = response.json()
    assert body["api_key"]["scope"] == "full_access"
    assert body["api_key"]["environment"] == "live"
    assert body["api_key"]["id"].startswith("key_")
    assert body["account"]["status"] == "active"


def test_a_test_key_reports_its_environment(runtime_api: Api) -> None:
    account = make_account()
    body = runtime_api.with_key(account.test_key).get("/v3/whoami").json()
    assert body["api_key"]["environment"] == "test"
    assert body["account"]["id"] == account.id


def test_no_key_is_unauthorized(runtime_api: Api) -> None:
    assert_error(runtime_api.with_key(None).get("/v3/whoami"), 401, "unauthorized")


@pytest.mark.parametrize("header", ["Token abc", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer pl_live_a b"])
def test_malformed_authorization_is_unauthorized(runtime_api: Api, header: str) -> None:
    response = runtime_api.with_key(None).get("/v3/whoami", headers={"Authorization": header})
    assert_error(response, 401, "unauthorized")


@pytest.mark.parametrize("first", ["Bearer {other}", "Bearer {key}", "Basic dXNlcjpwYXNz"])
def test_two_authorization_headers_are_unauthorized(runtime_api: Api, first: str) -> None:
    # requests cannot repeat a header: http.client sends exactly what it is given.
    key, other = make_account().live_key, make_account().live_key
    host, port = runtime_api.base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("GET", "/v3/whoami")
    connection.putheader("Authorization", first.format(key=key, other=other))
    connection.putheader("Authorization", f"Bearer {key}")
    connection.endheaders()
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    assert (response.status, body["error"]["code"]) == (401, "unauthorized")
    assert body["request_id"] == response.getheader("X-Request-Id")


@pytest.mark.parametrize(
    ("names", "second"),
    [
        (("Authorization", "authorization"), "{key}"),
        (("authorization", "Authorization"), "{other}"),
        (("AUTHORIZATION", "aUtHoRiZaTiOn"), "{key}"),
    ],
)
def test_authorization_headers_differing_only_in_case_are_ambiguous(
    runtime_api: Api, names: tuple[str, str], second: str
) -> None:
    """Header names are case-insensitive (RFC 9110 5.1): two spellings are two Authorization headers."""
    key, other = make_account().live_key, make_account().live_key
    host, port = runtime_api.base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("GET", "/v3/whoami")
    connection.putheader(names[0], f"Bearer {key}")
    connection.putheader(names[1], "Bearer " + second.format(key=key, other=other))
    connection.endheaders()
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    assert (response.status, body["error"]["code"]) == (401, "unauthorized")


def test_a_comma_joined_authorization_header_is_unauthorized(runtime_api: Api) -> None:
    key = make_account().live_key
    response = runtime_api.with_key(None).get("/v3/whoami", headers={"Authorization": f"Bearer {key},{key}"})
    assert_error(response, 401, "unauthorized")


@pytest.mark.parametrize("secret", ["pl_live_" + "x" * 40, "pl_test_" + "y" * 40, "not-a-key"])
def test_unknown_key_is_unauthorized(runtime_api: Api, secret: str) -> None:
    assert_error(runtime_api.with_key(secret).get("/v3/whoami"), 401, "unauthorized")


def test_a_revoked_key_is_refused(runtime_api: Api) -> None:
    account = make_account()
    admin = runtime_api.with_key(account.live_key)
    secret = make_key(account.id)
    key_id = admin.with_key(secret).get("/v3/whoami").json()["api_key"]["id"]
    assert admin.delete(f"/v3/keys/{key_id}").status_code == 200
    assert_error(admin.with_key(secret).get("/v3/whoami"), 401, "unauthorized")


def test_after_rotation_the_old_secret_fails_on_the_very_next_request(runtime_api: Api) -> None:
    account = make_account()
    admin = runtime_api.with_key(account.live_key)
    old = make_key(account.id)
    key_id = admin.with_key(old).get("/v3/whoami").json()["api_key"]["id"]
    rotated = admin.post(f"/v3/keys/{key_id}/rotate").json()
    assert_error(admin.with_key(old).get("/v3/whoami"), 401, "unauthorized")
    assert admin.with_key(rotated["key"]).get("/v3/whoami").json()["api_key"]["id"] == key_id


@pytest.mark.parametrize(
    ("scope", "method", "path", "allowed"),
    [
        (Scope.READ_ONLY, "GET", "/v3/keys", True),
        (Scope.READ_ONLY, "POST", "/v3/keys", False),
        (Scope.SEND_ONLY, "GET", "/v3/audit", True),
        (Scope.SEND_ONLY, "POST", "/v3/keys", False),
        (Scope.SEND_ONLY, "DELETE", "/v3/keys/key_x", False),
        (Scope.FULL_ACCESS, "GET", "/v3/usage", True),
    ],
)
def test_scopes_are_enforced_per_route(runtime_api: Api, scope: Scope, method: str, path: str, allowed: bool) -> None:
    account = make_account()
    response = runtime_api.with_key(make_key(account.id, scope=scope)).request(method, path, json={"name": "n"})
    if allowed:
        assert response.status_code == 200, response.text
    else:
        assert_error(response, 403, "insufficient_scope")


def test_a_test_key_on_a_live_only_route_is_forbidden(runtime_api: Api) -> None:
    account = make_account()
    response = runtime_api.with_key(account.test_key).post("/v3/keys", json={"name": "from test"})
    assert_error(response, 403, "test_key_forbidden")


def test_a_read_only_test_key_gets_insufficient_scope_before_test_key_forbidden(runtime_api: Api) -> None:
    account = make_account()
    secret = make_key(account.id, env=Environment.TEST, scope=Scope.READ_ONLY)
    assert_error(runtime_api.with_key(secret).post("/v3/keys", json={"name": "x"}), 403, "insufficient_scope")


def test_ip_allowlist_admits_the_listed_network_only(runtime_api: Api) -> None:
    account = make_account()
    inside = make_key(account.id, allowlist=["127.0.0.0/8", "2001:db8::/32"])
    outside = make_key(account.id, allowlist=["10.0.0.0/8", "::1/128"])
    assert runtime_api.with_key(inside).get("/v3/whoami").status_code == 200
    assert_error(runtime_api.with_key(outside).get("/v3/whoami"), 403, "ip_not_allowed")


@pytest.mark.parametrize(
    ("status", "code"), [(AccountStatus.SUSPENDED, "account_suspended"), (AccountStatus.TRASHED, "account_deleted")]
)
def test_suspended_or_trashed_accounts_are_refused(runtime_api: Api, status: AccountStatus, code: str) -> None:
    account = make_account(status=status)
    assert_error(runtime_api.with_key(account.live_key).get("/v3/whoami"), 403, code)


def test_past_due_accounts_still_authenticate(runtime_api: Api) -> None:
    account = make_account(status=AccountStatus.PAST_DUE)
    assert runtime_api.with_key(account.live_key).get("/v3/whoami").json()["account"]["status"] == "past_due"


def test_authentication_comes_before_body_validation(runtime_api: Api) -> None:
    keyless = runtime_api.with_key(None)
    response = keyless.post("/v3/keys", data="{not json", headers={"Content-Type": "application/json"})
    assert_error(response, 401, "unauthorized")
    assert_error(keyless.get("/v3/keys?per_page=999"), 401, "unauthorized")
