"""What a request body may be (postline/http/body.py): every malformed one is a 400, never a crash."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postline.http.body import MAX_DEPTH, MAX_INTEGER_DIGITS, check_request_body, loads
from postline.shared.errors import ApiError, InvalidJson, ValidationFailed


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,  # past the parser's recursion limit
        '{"a":' * 5_000 + "1" + "}" * 5_000,
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        '{"name": ' + "9" * 5_000 + "}",  # past Python's int-str conversion limit
        '{"n": ' + "9" * (MAX_INTEGER_DIGITS + 1) + "}",
        '{"n": -' + "9" * (MAX_INTEGER_DIGITS + 1) + "}",
        '{"n": 1e999999}',  # a float overflowing to inf
        '{"n": 1e200}',  # finite, but past what DynamoDB stores
        '{"n": 1e-200}',
    ],
)
def test_bodies_past_the_limits_are_validation_errors(text: str) -> None:
    with pytest.raises(ValidationFailed):
        loads(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"n": NaN}',
        '{"n": Infinity}',
        '{"n": -Infinity}',
        "{'single': 'quotes'}",
        '{"a": 1,}',
        "\ufeff{}",  # a byte order mark
        "\x00{\x00}\x00",  # UTF-16 read as UTF-8
    ],
)
def test_text_that_is_not_json_is_a_decode_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):  # Powertools answers it as invalid_json
        loads(text)


def test_an_unpaired_surrogate_escape_is_invalid_json() -> None:
    for text in ['{"a": "\\ud800"}', '{"\\udfff": 1}', '["ok", ["\\ud83d"]]']:
        with pytest.raises(InvalidJson):
            loads(text)
    assert loads('{"a": "\\ud83d\\ude00"}') == {"a": "😀"}  # a pair is one character


def test_bodies_within_the_limits_parse_as_json_does() -> None:
    deepest = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    values = [deepest, "9" * MAX_INTEGER_DIGITS, "-" + "9" * MAX_INTEGER_DIGITS, "1e100", "1e-100", "0.0", "-0", '"x"']
    for text in values:
        assert loads(text) == json.loads(text)


@pytest.mark.parametrize(
    ("content_type", "body", "base64_encoded"),
    [
        ("text/plain", "{}", False),
        ("application/x-www-form-urlencoded", "name=x", False),
        ("multipart/form-data; boundary=x", "--x--", False),
        ("application/json; charset=utf-16", "{}", False),
        ("application/jsonx", "{}", False),
        ("application/json", "//79AHsAfQ==", True),  # UTF-16 with its byte order mark
        ("application/json", "/w==", True),  # not UTF-8
        ("application/json", "not base64!", True),
    ],
)
def test_a_body_that_is_not_utf8_json_text_is_invalid_json(content_type: str, body: str, base64_encoded: bool) -> None:
    with pytest.raises(InvalidJson):
        check_request_body(content_type, body, base64_encoded)


@pytest.mark.parametrize(
    ("content_type", "body", "base64_encoded"),
    [
        (None, "{}", False),  # API Gateway assumes application/json
        ("application/json", "{}", False),
        ("Application/JSON; charset=UTF-8", "{}", False),
        ("application/json", "e30=", True),
        ("text/plain", None, False),  # no body, nothing to refuse
        ("text/plain", "", False),
    ],
)
def test_json_text_passes(content_type: str | None, body: str | None, base64_encoded: bool) -> None:
    check_request_body(content_type, body, base64_encoded)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.binary(),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(),
            lambda children: st.lists(children) | st.dictionaries(st.text(), children),
        ).map(json.dumps),
    )
)
def test_any_text_either_parses_or_is_refused_as_the_clients_error(text: str | bytes) -> None:
    with contextlib.suppress(ApiError, json.JSONDecodeError):
        loads(text)
