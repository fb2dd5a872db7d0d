"""Malformed requests over real HTTP: each is a 400 with the error body, never a 5xx, on every
route that takes a body."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from postline.http.body import MAX_DEPTH
from tests.e2e.support import assert_error, make_account

pytestmark = pytest.mark.e2e

JSON_ROUTES = [
    "/v3/keys",
    "/v3/messages",
    "/v3/messages.batch",
    "/v3/templates",
    "/v3/webhooks",
    "/v3/events/export",
    "/v3/webhooks/deliveries/resend",
    "/v3/lists",
]
MALFORMED = {
    "nested past the parser's recursion limit": (
        "application/json",
        b"[" * 100_000 + b"]" * 100_000,
        "validation_error",
    ),
    "nested past the documented depth": (
        "application/json",
        b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1),
        "validation_error",
    ),
    "invalid UTF-8": ("application/json", b'{"name": "\xff\xfe"}', "invalid_json"),
    "UTF-16 with a byte order mark": ("application/json", '{"name": "x"}'.encode("utf-16"), "invalid_json"),
    "UTF-16 without one": ("application/json", '{"name": "x"}'.encode("utf-16-le"), "invalid_json"),
    "text/plain": ("text/plain", b'{"name": "x"}', "invalid_json"),
    "a form": ("application/x-www-form-urlencoded", b"name=x", "invalid_json"),
    "JSON in another charset": ("application/json; charset=latin-1", b'{"name": "x"}', "invalid_json"),
    "a huge integer": ("application/json", b'{"name": "x", "page": ' + b"9" * 5_000 + b"}", "validation_error"),
    "a float past DynamoDB's range": ("application/json", b'{"name": 1e200}', "validation_error"),
    "NaN": ("application/json", b'{"name": NaN}', "invalid_json"),
    "an unpaired surrogate": ("application/json", b'{"name": "\\ud800"}', "invalid_json"),
}


@pytest.fixture(scope="module")
def key(runtime: Any) -> str:
    return make_account().live_key


@pytest.mark.parametrize("route", JSON_ROUTES)
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_body_is_a_400_with_the_error_body(runtime: Any, key: str, route: str, case: str) -> None:
    content_type, body, code = MALFORMED[case]
    headers = {"Authorization": f"Bearer {key}", "Content-Type": content_type}
    response = requests.post(runtime.base_url + route, data=body, headers=headers, timeout=60)
    assert_error(response, 400, code)


def test_a_missing_content_type_is_json_as_api_gateway_assumes(runtime: Any, key: str) -> None:
    response = requests.post(
        runtime.base_url + "/v3/templates",
        data=b'{"name": "no content type"}',
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert response.status_code == 201, response.text


def test_an_empty_body_of_another_type_is_invalid_json(runtime: Any, key: str) -> None:
    # Found by the fuzz pass (tests/contract/test_malformed_requests.py): it was a 500.
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "text/plain"}
    response = requests.post(runtime.base_url + "/v3/templates", data=b"", headers=headers, timeout=30)
    assert_error(response, 400, "invalid_json")
