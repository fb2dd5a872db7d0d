"""Malformed requests, generated: none gets a 5xx, each refusal has the error body.

Two passes against the embedded runtime:
- schemathesis' request-level cases: a schema-valid body of every operation that takes one, sent
  wrong (as text/plain, as a form, in UTF-16, nested past the depth limit, with a huge integer);
  each must be the 400 the README names;
- a fuzz pass over every route of the route table: Hypothesis draws a body (bytes, text, or any
  JSON value), a content type and the path's ids; whatever is sent, the answer is not a 5xx.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core import NotSet

from postline.accounts.domain import Plan
from postline.http.body import MAX_DEPTH
from postline.routes import ROUTES, Route
from tests.aws_stack import ROOT
from tests.e2e.support import make_account

pytestmark = pytest.mark.e2e

SCHEMA = schemathesis.openapi.from_path(ROOT / "infra" / "openapi.json")
WITH_BODY = [op for op in (result.ok() for result in SCHEMA.get_all_operations()) if len(op.body)]
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
# A variant is how a body is sent, whatever the schema-valid body: a few bodies per operation show it
# (drawing them is most of the cost: 15 a case took ~75 s of the suite).
VARIANT_SETTINGS = settings(SETTINGS, max_examples=3)


def _deeply_nested(body: Any) -> bytes:
    nested: Any = 1
    for _ in range(MAX_DEPTH + 1):
        nested = [nested]
    return json.dumps({**body, "x": nested} if isinstance(body, dict) else [body, nested]).encode()


def _with_huge_integer(body: Any) -> bytes:
    text = json.dumps(body if isinstance(body, dict) else {"body": body})
    return text[:-1].encode() + (", " if len(text) > 2 else "").encode() + b'"x": ' + b"9" * 5_000 + b"}"


# The variants of a schema-valid body: (content type, bytes, the code the README names).
VARIANTS: dict[str, Callable[[Any], tuple[str, bytes, str]]] = {
    "text/plain": lambda body: ("text/plain", json.dumps(body).encode(), "invalid_json"),
    "form": lambda body: ("application/x-www-form-urlencoded", b"a=1&b=2", "invalid_json"),
    "UTF-16": lambda body: ("application/json", json.dumps(body).encode("utf-16"), "invalid_json"),
    "latin-1 charset": lambda body: ("application/json; charset=iso-8859-1", json.dumps(body).encode(), "invalid_json"),
    "nested too deep": lambda body: ("application/json", _deeply_nested(body), "validation_error"),
    "huge integer": lambda body: ("application/json", _with_huge_integer(body), "validation_error"),
}


@pytest.fixture(scope="module")
def key(runtime: Any) -> str:
    # Its own professional account, so generated writes touch no other test's data.
    return make_account(plan=Plan.PROFESSIONAL).live_key


def _assert_error_body(response: requests.Response) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    assert set(body) == {"error", "request_id"}, body
    assert body["request_id"] == response.headers["X-Request-Id"]
    return body


@pytest.mark.parametrize("operation", WITH_BODY, ids=lambda op: op.label)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_schema_valid_body_sent_wrong_is_the_documented_400(
    operation: Any, variant: str, runtime: Any, key: str
) -> None:
    @given(case=operation.as_strategy())
    @VARIANT_SETTINGS
    def check(case: Any) -> None:
        # An optional body (DELETE /v3/suppressions/{id}'s) may be left out: send the empty object instead.
        content_type, data, code = VARIANTS[variant]({} if isinstance(case.body, NotSet) else case.body)
        case.path_parameters = {name: "x" for name in case.path_parameters or {}}  # a route, not a 404
        kwargs = case.as_transport_kwargs(base_url=runtime.base_url)
        headers = {"Authorization": f"Bearer {key}", "Content-Type": content_type}
        response = requests.request(
            kwargs["method"], kwargs["url"], params=kwargs.get("params"), data=data, headers=headers, timeout=60
        )
        assert response.status_code == 400, (variant, response.text)
        assert _assert_error_body(response)["error"]["code"] == code

    check()


CONTENT_TYPES = st.sampled_from(
    [
        None,
        "application/json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=b",
        "application/json; charset=utf-16",
        "application/octet-stream",
    ]
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=20), children, max_size=5),
    max_leaves=30,
)
BODIES = st.one_of(
    st.binary(max_size=2_000),
    st.text(max_size=2_000).map(str.encode),
    JSON_VALUES.map(lambda value: json.dumps(value).encode()),
    st.just(b"[" * 5_000 + b"]" * 5_000),
)
SEGMENT = st.one_of(st.text(min_size=1, max_size=80), st.sampled_from(["msg_x", "key_x", "tpl_x", "whe_x", "%00"]))


def _path(route: Route, ids: list[str]) -> str:
    parts = iter(ids)
    return re.sub(r"\{\w+\}", lambda _: quote(next(parts), safe=""), route.path)


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: f"{route.method} {route.path}")
def test_no_route_answers_a_5xx_whatever_it_is_sent(route: Route, runtime: Any, key: str) -> None:
    @given(
        body=BODIES,
        content_type=CONTENT_TYPES,
        ids=st.lists(SEGMENT, min_size=3, max_size=3),
        authorized=st.booleans(),
    )
    @SETTINGS
    def check(body: bytes, content_type: str | None, ids: list[str], authorized: bool) -> None:
        headers = {"Content-Type": content_type} if content_type else {}
        if authorized:
            headers["Authorization"] = f"Bearer {key}"
        url = runtime.base_url + _path(route, ids)
        response = requests.request(route.method, url, data=body, headers=headers, timeout=60)
        assert response.status_code < 500, (route.path, content_type, body[:200], response.text)
        if response.status_code >= 400 and route.method != "HEAD":  # a HEAD's answer has no body
            _assert_error_body(response)

    check()
