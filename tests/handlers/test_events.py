"""Every sample event in events/ through its Lambda handler, as API Gateway would deliver it."""

from __future__ import annotations

from pathlib import Path

import pytest

from postline.http.routes import ROUTES
from tests.aws_stack import ROOT
from tests.handlers.conftest import Invoke, body, header

EVENTS = sorted(p.stem for p in (ROOT / "events").glob("*.json"))


def test_every_route_has_a_sample_event() -> None:
    import json

    covered = {
        (e["httpMethod"], e["resource"])
        for e in (json.loads(Path(ROOT / "events" / f"{name}.json").read_text()) for name in EVENTS)
    }
    assert {(r.method, r.path) for r in ROUTES} <= covered


@pytest.mark.parametrize("name", EVENTS)
def test_every_response_is_json_with_a_request_id(invoke: Invoke, name: str) -> None:
    response = invoke(name, key_id="key_placeholder")
    assert header(response, "Content-Type") == "application/json"
    assert header(response, "X-Request-Id") == "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"
    if response["statusCode"] >= 400:
        error = body(response)
        assert set(error) == {"error", "request_id"}
        assert error["request_id"] == "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


def test_whoami(invoke: Invoke, dev: dict[str, str]) -> None:
    response = invoke("whoami")
    assert response["statusCode"] == 200
    assert body(response)["api_key"]["id"] == dev["live_key_id"]
    assert header(response, "X-RateLimit-Limit") == "6000"


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("whoami_missing_key", 401, "unauthorized"),
        ("whoami_malformed_key", 401, "unauthorized"),
        ("create_key_invalid_json", 400, "invalid_json"),
        ("create_key_validation_error", 400, "validation_error"),
        ("get_key_not_found", 404, "not_found"),
        ("list_keys_per_page_too_large", 400, "validation_error"),
    ],
)
def test_failures_have_their_codes(invoke: Invoke, name: str, status: int, code: str) -> None:
    response = invoke(name)
    assert response["statusCode"] == status
    assert body(response)["error"]["code"] == code


def test_key_lifecycle_through_the_sample_events(invoke: Invoke) -> None:
    created = invoke("create_key")
    assert created["statusCode"] == 201
    key = body(created)
    assert (key["scope"], key["env"]) == ("send_only", "test")

    detail = body(invoke("get_key", key_id=key["id"]))
    assert detail["ip_allowlist"] == [
        {"cidr": "198.51.100.7/32", "label": "CI runner"},
        {"cidr": "2001:db8::/32", "label": "office"},
    ]
    assert detail["test_outcomes"]["send"] == {"delivered": 9.0, "bounce": 1.0}

    updated = body(invoke("update_key", key_id=key["id"]))
    assert (updated["scope"], updated["name"]) == ("read_only", "Read-only dashboard")
    assert updated["ip_allowlist"] == [{"cidr": "10.0.0.0/8", "label": "vpn"}]

    rotated = body(invoke("rotate_key", key_id=key["id"]))
    assert rotated["id"] == key["id"] and rotated["key"] != key["key"]

    assert invoke("delete_key", key_id=key["id"])["statusCode"] == 200
    assert invoke("get_key", key_id=key["id"])["statusCode"] == 404

    actions = [entry["action"] for entry in body(invoke("list_audit"))["items"][:4]]
    assert actions == ["key.deleted", "key.rotated", "key.updated", "key.created"]


def test_usage_and_list_keys(invoke: Invoke) -> None:
    usage = body(invoke("get_usage"))
    assert usage["plan"] == "professional" and usage["daily"] is None
    listed = body(invoke("list_keys"))
    assert listed["pagination"]["per_page"] == 10 and listed["items"]


def test_an_unexpected_error_is_a_500_without_a_stack_trace(invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    from postline.services.usage import UsageService

    def explode(*_: object) -> None:
        raise RuntimeError("secret internals: table xyz")

    monkeypatch.setattr(UsageService, "get", explode)
    response = invoke("get_usage")
    assert response["statusCode"] == 500
    assert body(response)["error"] == {
        "code": "internal_error",
        "message": "Something went wrong on our side; retry with backoff.",
    }
    assert "secret internals" not in response["body"] and "Traceback" not in response["body"]
