"""The local API Gateway on the real template.yaml: routing, proxy events, gateway errors."""

from __future__ import annotations

import uuid

import pytest

from devtools.local.runtime import Runtime
from tests.e2e.support import Api

pytestmark = pytest.mark.e2e


def test_an_unknown_route_answers_the_gateway_404(runtime_api: Api) -> None:
    response = runtime_api.get("/v3/no-such-thing")

    request_id = response.headers["X-Request-Id"]
    uuid.UUID(request_id)
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json"
    assert response.text == (
        f'{{"error": {{"code": "not_found", "message": "No such route."}}, "request_id": "{request_id}"}}'
    )


def test_a_known_path_with_another_method_is_no_route_either(api: Api) -> None:
    response = api.request("PUT", "/v3/whoami")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_whoami_with_the_dev_key_answers_the_dev_identity(api: Api, runtime: Runtime) -> None:
    response = api.get("/v3/whoami")

    assert response.status_code == 200, response.text
    assert response.json()["account"] == {
        "id": runtime.dev["account_id"],
        "name": "Development",
        "plan": "professional",
        "status": "active",
    }
    assert response.json()["api_key"]["environment"] == "live"
    assert response.headers["X-Request-Id"]


def test_the_event_carries_the_clients_address_as_source_ip(api: Api) -> None:
    def key_allowing(cidr: str) -> str:
        created = api.post("/v3/keys", json={"name": f"only {cidr}", "ip_allowlist": [{"cidr": cidr}]})
        assert created.status_code == 201, created.text
        key: str = created.json()["key"]
        return key

    refused = api.with_key(key_allowing("10.0.0.0/8")).get("/v3/whoami")
    allowed = api.with_key(key_allowing("127.0.0.1/32")).get("/v3/whoami")

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "ip_not_allowed"
    assert "127.0.0.1" in refused.json()["error"]["message"]
    assert allowed.status_code == 200


def test_path_and_query_parameters_reach_the_handler(api: Api) -> None:
    keys = api.get("/v3/keys", params={"per_page": 1})
    assert keys.status_code == 200, keys.text
    assert len(keys.json()["items"]) == 1

    key_id = keys.json()["items"][0]["id"]
    assert api.get(f"/v3/keys/{key_id}").json()["id"] == key_id

    invalid = api.get("/v3/keys", params={"per_page": 0})
    assert invalid.status_code == 400
    assert invalid.json()["error"]["code"] == "validation_error"


def test_the_openapi_document_is_served_without_a_key(runtime_api: Api) -> None:
    response = runtime_api.get("/v3/openapi.json")

    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert "/v3/whoami" in document["paths"]
