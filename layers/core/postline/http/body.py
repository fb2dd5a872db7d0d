"""What a request body may be: JSON (RFC 8259) in UTF-8, sent as application/json, within limits.

Every malformed body is the client's to fix, so it answers 400, never 500:
- a body declared as anything but JSON (a missing Content-Type is JSON, as API Gateway assumes),
  or bytes that are not UTF-8 (UTF-16, Latin-1, ...), or text that is not JSON (NaN and
  Infinity included), is `invalid_json`;
- JSON nested deeper than MAX_DEPTH, or with a number outside what DynamoDB and a 64-bit float
  both hold, is `validation_error`. Python's own limits would otherwise surface as 500s: the
  parser's recursion limit (RecursionError), the int-str conversion limit of 4,300 digits
  (ValueError), and DynamoDB's number range (1e-130 to 1e126) when a value is stored.
- a string with an unpaired surrogate escape ("\\ud800") is `invalid_json`: it parses, but
  cannot be encoded to UTF-8 or stored.
The standard library's parser is kept (Powertools' and pydantic's); its hooks check numbers as
they are read, and depth and strings are checked after parsing with an explicit stack.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from postline.shared.errors import InvalidJson, ValidationFailed

MAX_DEPTH = 64  # nested arrays and objects
MAX_INTEGER_DIGITS = 20  # any 64-bit integer, signed or not
MAX_MAGNITUDE = 1e100  # other numbers, unless 0, lie between 1e-100 and 1e100 in magnitude
JSON_MEDIA_TYPE = "application/json"


def check_request_body(content_type: str | None, body: str | None, base64_encoded: bool) -> None:
    """Refuses a body the API cannot read as JSON text before any route parses it."""
    if not body:
        return
    media_type, _, parameters = (content_type or JSON_MEDIA_TYPE).partition(";")
    charset = _parameter(parameters, "charset")
    if media_type.strip().lower() != JSON_MEDIA_TYPE or charset not in (None, "utf-8"):
        raise InvalidJson(f"Send the request body as JSON with 'Content-Type: {JSON_MEDIA_TYPE}' (UTF-8).")
    if base64_encoded:
        try:
            base64.b64decode(body, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as error:
            raise InvalidJson("The request body is not UTF-8 text; JSON must be sent as UTF-8.") from error


def loads(text: str | bytes) -> Any:
    """json.loads with the API's limits: the JSON deserializer of every route."""
    try:
        document = json.loads(text, parse_int=_integer, parse_float=_number, parse_constant=_constant)
    except RecursionError as error:
        raise _too_deep() from error
    except UnicodeDecodeError as error:
        raise InvalidJson("The request body is not UTF-8 text; JSON must be sent as UTF-8.") from error
    _check_tree(document)
    return document


def _parameter(parameters: str, name: str) -> str | None:
    for part in parameters.split(";"):
        key, _, value = part.partition("=")
        if key.strip().lower() == name:
            return value.strip().strip('"').lower()
    return None


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValidationFailed(f"A number in the body has more than {MAX_INTEGER_DIGITS} digits.")
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if value != 0 and not (1 / MAX_MAGNITUDE <= abs(value) <= MAX_MAGNITUDE):
        raise ValidationFailed(f"Numbers in the body lie between 1e-100 and 1e100 in magnitude (or are 0): {text[:40]}")
    return value


def _constant(text: str) -> float:
    raise json.JSONDecodeError(f"{text} is not JSON", text, 0)  # NaN, Infinity, -Infinity: Python-only


def _check_tree(document: Any) -> None:
    """Depth, and strings that are Unicode text (an escaped lone surrogate, "\\ud800", parses
    but cannot be encoded or stored: RFC 8259 8.2), walked with an explicit stack."""
    stack: list[tuple[Any, int]] = [(document, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if isinstance(value, dict):
            for name in value:
                _check_text(name)
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if level >= MAX_DEPTH:
            raise _too_deep()
        stack.extend((child, level + 1) for child in children)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidJson("The request body holds a string with an unpaired surrogate escape.") from error


def _too_deep() -> ValidationFailed:
    return ValidationFailed(f"The request body nests arrays and objects more than {MAX_DEPTH} deep.")
