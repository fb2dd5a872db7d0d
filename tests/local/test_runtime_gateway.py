"""The local API Gateway on the real template.yaml: routing, proxy events, gateway errors."""

from __future__ import annotations

import json
import socket
import uuid
from typing import Any

import pytest

from devtools.local.gateway import MAX_PAYLOAD_BYTES, MAX_REQUEST_HEAD_BYTES
from devtools.local.runtime import Runtime
from tests.conftest import SOURCE_RATE_LIMIT
from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e


def assert_gateway_rate_headers(headers: Any) -> None:
    """What the template's gateway responses declare: the source address's window, untouched."""
    rate = {name: headers.get(name) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")}
    assert rate == {
        "X-RateLimit-Limit": str(SOURCE_RATE_LIMIT),
        "X-RateLimit-Remaining": str(SOURCE_RATE_LIMIT),
        "X-RateLimit-Reset": "60",
    }


def test_an_unknown_route_answers_the_gateway_404(runtime_api: Api) -> None:
    response = runtime_api.get("/v3/no-such-thing")

    request_id = response.headers["X-Request-Id"]
    uuid.UUID(request_id)
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json"
    assert response.text == (
        f'{{"error": {{"code": "not_found", "message": "No such route."}}, "request_id": "{request_id}"}}'
    )
    assert_gateway_rate_headers(response.headers)


def test_a_known_path_with_another_method_is_no_route_either(api: Api) -> None:
    response = api.request("PUT", "/v3/whoami")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert_gateway_rate_headers(response.headers)


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


# -- API Gateway's quotas, answered with the error body --------------------------------------------


def test_a_body_over_10_mb_is_413_with_the_error_body(api: Api) -> None:
    body = b'{"name": "' + b"a" * MAX_PAYLOAD_BYTES + b'"}'
    response = api.post("/v3/templates", data=body, headers={"Content-Type": "application/json"})
    assert_error(response, 413, "validation_error")
    assert_gateway_rate_headers(response.headers)


def test_a_chunked_body_over_10_mb_is_413_too(api: Api) -> None:
    chunks = (b"a" * 1024 * 1024 for _ in range(11))  # no Content-Length: Transfer-Encoding chunked
    response = api.post("/v3/templates", data=chunks, headers={"Content-Type": "application/json"})
    assert_error(response, 413, "validation_error")
    assert_gateway_rate_headers(response.headers)


def test_a_body_of_10_mb_reaches_the_function(api: Api) -> None:
    body = b'{"name": "' + b"a" * (MAX_PAYLOAD_BYTES - 12) + b'"}'
    response = api.post("/v3/templates", data=body, headers={"Content-Type": "application/json"})
    assert_error(response, 400, "validation_error")  # the function's answer: the name is too long
    assert "name" in response.json()["error"]["message"]


def test_a_query_string_past_the_quota_is_414_with_the_error_body(api: Api) -> None:
    response = api.get("/v3/keys?" + "a=b&" * (MAX_REQUEST_HEAD_BYTES // 4))
    assert_error(response, 414, "validation_error")
    assert_gateway_rate_headers(response.headers)


def test_headers_past_the_quota_are_431_with_the_error_body(api: Api) -> None:
    response = api.get("/v3/keys", headers={"X-Big": "a" * MAX_REQUEST_HEAD_BYTES})
    assert_error(response, 431, "validation_error")
    assert_gateway_rate_headers(response.headers)


@pytest.mark.parametrize(
    "head",
    [
        b"GET /v3/keys?" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n",  # past the server's own line limit
        b"GET /v3/keys HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n",
        b"NONSENSE\r\n\r\n",
    ],
)
def test_what_the_http_server_refuses_itself_is_json_not_html(api: Api, head: bytes) -> None:
    host, port = api.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(head)
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    body = reply
    if reply.startswith(b"HTTP/"):  # not for a request line the server could not read a version from
        status_line, _, rest = reply.partition(b"\r\n")
        headers, _, body = rest.partition(b"\r\n\r\n")
        assert int(status_line.split()[1]) >= 400
        assert b"content-type: application/json" in headers.lower()
        fields = dict(line.decode().split(": ", 1) for line in headers.split(b"\r\n"))
        assert_gateway_rate_headers(fields)
    assert json.loads(body)["error"]["code"] == "validation_error"
