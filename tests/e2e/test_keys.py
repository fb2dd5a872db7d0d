"""API key lifecycle over HTTP: create, list, get, PATCH, rotate, delete, plan limit."""

from __future__ import annotations

from typing import Any

import pytest

from postline.accounts.domain import PLAN_LIMITS, Plan
from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e

DETAIL_FIELDS = {
    "id",
    "name",
    "prefix",
    "scope",
    "env",
    "verify_before_send",
    "test_outcomes",
    "ip_allowlist",
    "last_used_at",
    "created_at",
}


@pytest.fixture
def admin(runtime_api: Api) -> Api:
    return runtime_api.with_key(make_account().live_key)


def test_create_shows_the_secret_once(admin: Api) -> None:
    response = admin.post("/v3/keys", json={"name": "CI", "scope": "send_only"})
    assert response.status_code == 201, response.text
    created = response.json()
    assert set(created) == {"id", "name", "prefix", "scope", "env", "key", "created_at"}
    assert created["key"].startswith("pl_live_") and created["prefix"] == created["key"][:12]
    assert (created["scope"], created["env"]) == ("send_only", "live")

    detail = admin.get(f"/v3/keys/{created['id']}").json()
    assert set(detail) == DETAIL_FIELDS
    assert created["key"] not in admin.get("/v3/keys?per_page=100").text
    assert detail["test_outcomes"] is None and detail["ip_allowlist"] == []


def test_test_keys_get_default_simulator_weights(admin: Api) -> None:
    created = admin.post("/v3/keys", json={"name": "sim", "env": "test"}).json()
    assert created["key"].startswith("pl_test_")
    detail = admin.get(f"/v3/keys/{created['id']}").json()
    assert detail["test_outcomes"] == {"send": {"delivered": 1.0}, "verify": {"valid": 1.0}}


def test_allowlist_entries_are_normalized(admin: Api) -> None:
    created = admin.post(
        "/v3/keys",
        json={"name": "n", "ip_allowlist": [{"cidr": "10.1.2.3/8", "label": "vpn"}, {"cidr": "2001:DB8::1"}]},
    ).json()
    allowlist = admin.get(f"/v3/keys/{created['id']}").json()["ip_allowlist"]
    assert allowlist == [{"cidr": "10.0.0.0/8", "label": "vpn"}, {"cidr": "2001:db8::1/128", "label": ""}]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "x" * 101},
        {"name": "n", "scope": "admin"},
        {"name": "n", "env": "staging"},
        {"name": "n", "ip_allowlist": [{"cidr": "300.1.1.1/8"}]},
        {"name": "n", "ip_allowlist": [{"cidr": "10.0.0.0/33"}]},
        {"name": "n", "env": "test", "test_outcomes": {"send": {"explode": 1}}},
        {"name": "n", "env": "test", "test_outcomes": {"send": {"delivered": -1}}},
        {"name": "n", "env": "test", "test_outcomes": {"verify": {"valid": 0}}},
        {"name": "n", "env": "live", "test_outcomes": {"send": {"delivered": 1}}},
        {"name": "n", "surprise": True},
        ["not", "an", "object"],
    ],
)
def test_invalid_key_bodies_are_validation_errors(admin: Api, body: Any) -> None:
    assert_error(admin.post("/v3/keys", json=body), 400, "validation_error")


def test_malformed_json_is_invalid_json(admin: Api) -> None:
    response = admin.post("/v3/keys", data='{"name": ', headers={"Content-Type": "application/json"})
    assert_error(response, 400, "invalid_json")


def test_patch_changes_only_the_given_fields(admin: Api) -> None:
    key_id = admin.post("/v3/keys", json={"name": "before", "env": "test"}).json()["id"]
    weights = {"send": {"delivered": 8, "bounce": 2}, "verify": {"valid": 1, "invalid": 1}}
    response = admin.patch(
        f"/v3/keys/{key_id}",
        json={"scope": "read_only", "verify_before_send": True, "test_outcomes": weights},
    )
    assert response.status_code == 200, response.text
    detail = response.json()
    assert (detail["name"], detail["scope"], detail["verify_before_send"]) == ("before", "read_only", True)
    assert detail["test_outcomes"] == {
        "send": {"delivered": 8.0, "bounce": 2.0},
        "verify": {"valid": 1.0, "invalid": 1.0},
    }
    assert admin.get(f"/v3/keys/{key_id}").json() == detail

    reset = admin.patch(f"/v3/keys/{key_id}", json={"test_outcomes": None}).json()
    assert reset["test_outcomes"] == {"send": {"delivered": 1.0}, "verify": {"valid": 1.0}}


@pytest.mark.parametrize(
    "body", [{"test_outcomes": {"send": {"delivered": 1}}}, {"scope": None}, {"name": None}, {"env": "test"}]
)
def test_invalid_patches_are_refused(admin: Api, body: dict[str, Any]) -> None:
    key_id = admin.post("/v3/keys", json={"name": "live one"}).json()["id"]
    assert_error(admin.patch(f"/v3/keys/{key_id}", json=body), 400, "validation_error")


def test_rotation_keeps_the_id_and_returns_a_new_secret_once(admin: Api) -> None:
    created = admin.post("/v3/keys", json={"name": "r", "scope": "send_only"}).json()
    rotated = admin.post(f"/v3/keys/{created['id']}/rotate").json()
    assert rotated["id"] == created["id"] and rotated["created_at"] == created["created_at"]
    assert rotated["key"] != created["key"] and rotated["prefix"] == rotated["key"][:12]
    assert rotated["scope"] == "send_only"


def test_unknown_or_foreign_key_ids_are_not_found(admin: Api, runtime_api: Api) -> None:
    other = runtime_api.with_key(make_account().live_key)
    foreign_id = other.post("/v3/keys", json={"name": "theirs"}).json()["id"]
    for method in ("GET", "DELETE"):
        assert_error(admin.request(method, f"/v3/keys/{foreign_id}"), 404, "not_found")
    assert_error(admin.patch(f"/v3/keys/{foreign_id}", json={"name": "mine"}), 404, "not_found")
    assert_error(admin.post(f"/v3/keys/{foreign_id}/rotate"), 404, "not_found")
    assert other.get(f"/v3/keys/{foreign_id}").json()["name"] == "theirs"


def test_delete_revokes_and_confirms(admin: Api) -> None:
    created = admin.post("/v3/keys", json={"name": "gone"}).json()
    response = admin.delete(f"/v3/keys/{created['id']}")
    assert response.status_code == 200 and response.json()["message"]
    assert_error(admin.get(f"/v3/keys/{created['id']}"), 404, "not_found")


def test_the_plan_limit_on_keys_is_a_403(runtime_api: Api) -> None:
    admin = runtime_api.with_key(make_account(plan=Plan.FREE).live_key)
    limit = PLAN_LIMITS[Plan.FREE].api_keys
    existing = admin.get("/v3/keys").json()["pagination"]["total_count"]
    for n in range(limit - existing):
        assert admin.post("/v3/keys", json={"name": f"k{n}"}).status_code == 201
    assert_error(admin.post("/v3/keys", json={"name": "one too many"}), 403, "plan_limit_reached")
    victim = admin.get("/v3/keys").json()["items"][-1]["id"]
    assert admin.delete(f"/v3/keys/{victim}").status_code == 200
    assert admin.post("/v3/keys", json={"name": "room again"}).status_code == 201


def test_last_used_at_is_recorded(admin: Api) -> None:
    created = admin.post("/v3/keys", json={"name": "used"}).json()
    assert admin.get(f"/v3/keys/{created['id']}").json()["last_used_at"] is None
    admin.with_key(created["key"]).get("/v3/whoami")
    assert admin.get(f"/v3/keys/{created['id']}").json()["last_used_at"] is not None
