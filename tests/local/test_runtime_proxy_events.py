"""What a function behind the local API Gateway receives, and how its answer reaches the client.

tests/fixtures/pump-template.yaml's EchoFunction answers with the proxy event it got.
"""

from __future__ import annotations

import base64
import http.client
import json
import uuid
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import FixtureStack

pytestmark = pytest.mark.e2e


def _raw_request(stack: FixtureStack, method: str, target: str, headers: list[tuple[str, str]], body: bytes) -> Any:
    """http.client, because requests cannot send one header twice."""
    address = urlsplit(stack.api.base_url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    try:
        connection.putrequest(method, target)
        for name, value in [*headers, ("Content-Length", str(len(body)))]:
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        return json.loads(response.read())["event"]
    finally:
        connection.close()


def test_a_greedy_any_route_gets_the_whole_request(fixture_stack: FixtureStack) -> None:
    event = _raw_request(
        fixture_stack,
        "POST",
        "/echo/a/b%20c?x=1&x=2&y=3",
        [("X-Dup", "1"), ("X-Dup", "2"), ("Content-Type", "text/plain")],
        b"hello",
    )

    assert (event["resource"], event["path"], event["httpMethod"]) == ("/echo/{proxy+}", "/echo/a/b c", "POST")
    assert event["pathParameters"] == {"proxy": "a/b c"}
    assert event["queryStringParameters"] == {"x": "2", "y": "3"}
    assert event["multiValueQueryStringParameters"] == {"x": ["1", "2"], "y": ["3"]}
    assert event["headers"]["X-Dup"] == "2"
    assert event["multiValueHeaders"]["X-Dup"] == ["1", "2"]
    assert (event["body"], event["isBase64Encoded"]) == ("hello", False)
    context = event["requestContext"]
    uuid.UUID(context["requestId"])
    assert context["identity"]["sourceIp"] == "127.0.0.1"
    assert context["resourcePath"] == "/echo/{proxy+}"
    assert (context["httpMethod"], context["stage"], context["path"]) == ("POST", "Prod", "/Prod/echo/a/b c")
    assert (context["accountId"], context["apiId"]) == ("123456789012", "local")
    assert isinstance(context["requestTimeEpoch"], int)


def test_the_most_specific_route_wins_and_empty_parts_are_null(fixture_stack: FixtureStack) -> None:
    response = fixture_stack.api.get("/echo/items/7")

    assert response.json()["function"] == "postline-local-EchoFunction"
    event = response.json()["event"]
    assert (event["resource"], event["pathParameters"]) == ("/echo/items/{id}", {"id": "7"})
    assert event["queryStringParameters"] is None
    assert event["multiValueQueryStringParameters"] is None
    assert event["body"] is None


def test_a_binary_body_arrives_base64_encoded(fixture_stack: FixtureStack) -> None:
    event = fixture_stack.api.post("/echo/upload", data=b"\xff\x00\xfe").json()["event"]

    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == b"\xff\x00\xfe"


def test_the_functions_headers_and_base64_body_reach_the_client(fixture_stack: FixtureStack) -> None:
    text = fixture_stack.api.get("/echo/x")
    binary = fixture_stack.api.get("/echo/x", params={"binary": "1"})

    assert text.headers["X-Single"] == "one"
    assert text.headers["X-Multi"] == "a, b"
    assert binary.headers["Content-Type"] == "application/octet-stream"
    assert binary.content == b"\x00\xffbinary"


def test_a_handler_that_raises_is_a_502_without_its_traceback(fixture_stack: FixtureStack) -> None:
    response = fixture_stack.api.post("/crash")

    assert response.status_code == 502  # a Lambda error behind API Gateway
    assert response.json() == {
        "error": {"code": "internal_error", "message": "Something went wrong on our side; retry with backoff."},
        "request_id": response.headers["X-Request-Id"],
    }
    assert "boom" not in response.text
