"""Webhook endpoints over HTTP on the embedded runtime: CRUD, paging, enable/disable, rotation,
redaction, account scoping, plan limit, scopes. The runtime allows private URLs (its receivers
are on this machine); refusing them is covered by the unit and handler tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.keys.access import Scope
from tests.certs import client_pair
from tests.e2e.support import Api, assert_error, make_account, make_key

pytestmark = pytest.mark.e2e

URL = "http://127.0.0.1:9/postline-hooks"
READ_FIELDS = {
    "id", "url", "events", "description", "enabled", "status", "disabled_reason", "disabled_at", "auth",
    "created_at", "updated_at",
}  # fmt: skip


@pytest.fixture
def admin(runtime_api: Api) -> Api:
    return runtime_api.with_key(make_account(plan=Plan.PROFESSIONAL).live_key)


def create(api: Api, **body: Any) -> dict[str, Any]:
    response = api.post("/v3/webhooks", json={"url": URL, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def put(api: Api, endpoint_id: str, body: Any) -> Any:
    return api.request("PUT", f"/v3/webhooks/{endpoint_id}", json=body)


def test_create_shows_the_hmac_secret_once_and_reads_redact_it(admin: Api) -> None:
    created = create(admin, events=["delivered", "bounced"], description="billing", auth={"hmac": {}})
    assert set(created) == READ_FIELDS | {"secret"}
    secret = created["secret"]
    assert secret.startswith("whsec_") and len(secret) >= 38
    assert created["auth"] == {
        "mode": "hmac",
        "header": "X-Svc-Signature",
        "key_id": "whsec_" + secret[-4:],
        "previous_key_id": None,
        "previous_expires_at": None,
    }
    assert (created["status"], created["enabled"], created["events"]) == ("active", True, ["delivered", "bounced"])

    read = admin.get(f"/v3/webhooks/{created['id']}")
    assert read.status_code == 200 and set(read.json()) == READ_FIELDS
    assert secret not in read.text and secret not in admin.get("/v3/webhooks").text
    assert read.json()["auth"] == created["auth"]


def test_an_endpoint_without_events_gets_all_eleven(admin: Api) -> None:
    created = create(admin)
    assert len(created["events"]) == 11 and "duplicate" not in created["events"]
    assert (created["auth"], created["secret"]) == (None, None)


def test_credentials_are_write_only(admin: Api) -> None:
    cert, key = client_pair(not_after=datetime.now(UTC) + timedelta(days=3650))
    secrets = ["bearer-token-value-0123456789", "basic-password-4242", "header-value-77777", key]
    bodies = [
        {"bearer": {"token": secrets[0]}},
        {"basic": {"username": "acme", "password": secrets[1]}},
        {"custom_headers": {"X-Api-Key": secrets[2]}},
        {"mtls": {"cert_pem": cert, "key_pem": key}},
    ]
    for auth in bodies:
        created = admin.post("/v3/webhooks", json={"url": URL, "auth": auth})
        assert created.status_code == 201, created.text
        assert not [s for s in secrets if s in created.text]
    listed = admin.get("/v3/webhooks")
    assert not [s for s in [*secrets, "PRIVATE KEY", "BEGIN CERTIFICATE"] if s in listed.text]
    mtls = listed.json()["items"][-1]["auth"]
    assert set(mtls) == {"mode", "fingerprint_sha256", "subject", "expires_at"}


def test_list_pages(admin: Api) -> None:
    ids = [create(admin, description=f"n{i}")["id"] for i in range(3)]
    first = admin.get("/v3/webhooks?page=1&per_page=2").json()
    second = admin.get("/v3/webhooks?page=2&per_page=2").json()
    assert [w["id"] for w in first["items"] + second["items"]] == ids
    assert first["pagination"] == {"page": 1, "per_page": 2, "total_count": 3, "total_pages": 2}
    assert admin.get("/v3/webhooks").json()["pagination"]["per_page"] == 25
    for query in ("per_page=0", "per_page=101", "page=0"):
        assert_error(admin.get(f"/v3/webhooks?{query}"), 400, "validation_error")


def test_put_disables_and_enables(admin: Api) -> None:
    endpoint = create(admin, auth={"bearer": {"token": "tok-0123456789abcdef"}})
    disabled = put(admin, endpoint["id"], {"enabled": False})
    assert disabled.status_code == 200, disabled.text
    body = disabled.json()
    assert (body["enabled"], body["status"], body["disabled_reason"]) == (False, "disabled", "manual")
    assert body["disabled_at"] is not None and body["auth"]["mode"] == "bearer"  # no auth in the PUT keeps it

    enabled = put(admin, endpoint["id"], {"enabled": True, "events": ["opened"]}).json()
    assert (enabled["status"], enabled["disabled_reason"], enabled["disabled_at"]) == ("active", None, None)
    assert enabled["events"] == ["opened"]
    assert admin.get(f"/v3/webhooks/{endpoint['id']}").json() == {k: v for k, v in enabled.items() if k != "secret"}


def test_put_auth_replaces_the_mode(admin: Api) -> None:
    endpoint = create(admin)
    switched = put(admin, endpoint["id"], {"auth": {"hmac": {"header": "X-Acme-Signature"}}}).json()
    assert switched["secret"].startswith("whsec_") and switched["auth"]["header"] == "X-Acme-Signature"
    removed = put(admin, endpoint["id"], {"auth": None}).json()
    assert removed["auth"] is None


def test_rotation_returns_a_new_secret_and_names_the_previous_one(admin: Api) -> None:
    endpoint = create(admin, auth={"hmac": {}})
    response = admin.post(f"/v3/webhooks/{endpoint['id']}/secret/rotate")
    assert response.status_code == 200, response.text
    rotated = response.json()
    assert rotated["secret"] != endpoint["secret"] and rotated["secret"].startswith("whsec_")
    assert rotated["auth"]["previous_key_id"] == endpoint["auth"]["key_id"]
    expires = datetime.fromisoformat(rotated["auth"]["previous_expires_at"])
    assert expires - datetime.fromisoformat(rotated["updated_at"]) == timedelta(hours=24)
    assert rotated["secret"] not in admin.get(f"/v3/webhooks/{endpoint['id']}").text

    bearer = create(admin, auth={"bearer": {"token": "tok-0123456789abcdef"}})
    assert_error(admin.post(f"/v3/webhooks/{bearer['id']}/secret/rotate"), 400, "validation_error")


def test_delete(admin: Api) -> None:
    endpoint = create(admin)
    response = admin.delete(f"/v3/webhooks/{endpoint['id']}")
    assert response.status_code == 200 and response.json()["message"]
    assert_error(admin.get(f"/v3/webhooks/{endpoint['id']}"), 404, "not_found")
    assert_error(admin.delete(f"/v3/webhooks/{endpoint['id']}"), 404, "not_found")
    actions = [e["action"] for e in admin.get("/v3/audit").json()["items"][:2]]
    assert actions == ["webhook.deleted", "webhook.created"]


def test_another_accounts_endpoint_is_not_found(admin: Api, runtime_api: Api) -> None:
    other = runtime_api.with_key(make_account().live_key)
    theirs = create(other, auth={"hmac": {}})["id"]
    assert_error(admin.get(f"/v3/webhooks/{theirs}"), 404, "not_found")
    assert_error(put(admin, theirs, {"enabled": False}), 404, "not_found")
    assert_error(admin.post(f"/v3/webhooks/{theirs}/secret/rotate"), 404, "not_found")
    assert_error(admin.delete(f"/v3/webhooks/{theirs}"), 404, "not_found")
    assert other.get(f"/v3/webhooks/{theirs}").json()["status"] == "active"


def test_the_plan_limit_is_a_403(runtime_api: Api) -> None:
    free = runtime_api.with_key(make_account(plan=Plan.FREE).live_key)
    ids = [create(free)["id"] for _ in range(PLAN_LIMITS[Plan.FREE].webhook_endpoints)]
    assert_error(free.post("/v3/webhooks", json={"url": URL}), 403, "plan_limit_reached")
    assert free.delete(f"/v3/webhooks/{ids[0]}").status_code == 200
    create(free)


def test_a_read_only_key_reads_but_cannot_write(runtime_api: Api) -> None:
    account = make_account()
    endpoint = create(runtime_api.with_key(account.live_key), auth={"hmac": {}})
    reader = runtime_api.with_key(make_key(account.id, scope=Scope.READ_ONLY))
    assert reader.get("/v3/webhooks").status_code == 200
    assert reader.get(f"/v3/webhooks/{endpoint['id']}").status_code == 200
    assert_error(reader.post("/v3/webhooks", json={"url": URL}), 403, "insufficient_scope")
    assert_error(put(reader, endpoint["id"], {"enabled": False}), 403, "insufficient_scope")
    assert_error(reader.post(f"/v3/webhooks/{endpoint['id']}/secret/rotate"), 403, "insufficient_scope")
    assert_error(reader.delete(f"/v3/webhooks/{endpoint['id']}"), 403, "insufficient_scope")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"url": "ftp://127.0.0.1/x"},
        {"url": "https://user:pw@127.0.0.1/x"},
        {"url": URL, "events": []},
        {"url": URL, "events": ["duplicate"]},
        {"url": URL, "auth": {}},
        {"url": URL, "auth": {"hmac": {}, "bearer": {"token": "t"}}},
        {"url": URL, "auth": {"custom_headers": {"Content-Type": "text/plain"}}},
        {"url": URL, "auth": {"custom_headers": {f"X-H{i}": "v" for i in range(6)}}},
        {"url": URL, "auth": {"mtls": {"cert_pem": "garbage", "key_pem": "garbage"}}},
        {"url": URL, "auth": {"mtls": {"cert_pem": "x" * 16385, "key_pem": "y"}}},
        {"url": URL, "surprise": True},
    ],
)
def test_invalid_bodies_are_validation_errors(admin: Api, body: dict[str, Any]) -> None:
    assert_error(admin.post("/v3/webhooks", json=body), 400, "validation_error")
