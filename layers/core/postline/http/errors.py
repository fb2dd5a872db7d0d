"""The error body of every failure: {"error": {"code", "message"}, "request_id"}."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from postline.shared.base import Model

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse


class ErrorDetail(Model):
    code: str
    message: str


class ErrorBody(Model):
    error: ErrorDetail
    request_id: str


def query_timeout_response(what: str) -> dict[str, Any]:
    """The OpenAPI response of a 503 query_timeout (GET /v3/events, GET /v3/metrics/*): `what` to do."""
    return {
        "description": f"query_timeout: the query exceeded its time budget; honour Retry-After, {what}.",
        "content": {"application/json": {"model": ErrorBody}},
        "headers": {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}},
    }


def conflict_response(when: str, code: str = "conflict") -> OpenAPIResponse:
    """The OpenAPI response of a 409, which is transient (the API's error rules: README, "The API so
    far"): `when` it happens."""
    return {
        "description": f"{code}: {when}. Transient: retry the identical request with exponential backoff "
        "(start near 1 s) and jitter.",
        "content": {"application/json": {"model": ErrorBody}},
    }


RACE = "a concurrent change to the same resource won the race"


SUCCEEDED: OpenAPIResponse = {"description": "Successful Response"}  # Powertools' default, and its words


def raced(when: str = RACE, success: dict[int, OpenAPIResponse] | None = None) -> dict[int, OpenAPIResponse]:
    """A route's `responses` for a write that a concurrent one can beat: its success and 409 conflict.

    Powertools documents the `responses` a route lists instead of its default success response, so
    the success is listed too: `success`, else 200 without content, which Powertools documents with
    the schema of what the route returns."""
    return {**(success or {200: SUCCEEDED}), 409: conflict_response(when)}


RACED = raced()


def error_json(code: str, message: str, request_id: str) -> str:
    return ErrorBody(error=ErrorDetail(code=code, message=message), request_id=request_id).model_dump_json()


def describe_validation_errors(errors: Any) -> str:
    """pydantic/Powertools error list -> one readable sentence: 'body.scope: Input should be ...'."""
    parts = []
    for error in list(errors)[:5]:
        location = ".".join(str(p) for p in error.get("loc", ()) if p != "body" or len(error["loc"]) == 1)
        message = error.get("msg", "is invalid")
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts) or "The request is invalid."


def is_json_error(errors: Any) -> bool:
    return any(error.get("type") == "json_invalid" for error in errors)
