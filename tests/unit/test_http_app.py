"""The resolver's error mapping (postline/http/app.py), on a route of its own."""

from __future__ import annotations

import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel

from postline.http import context
from postline.http.app import build_app


class Reply(BaseModel):
    count: int


router = Router()


@router.get("/v3/probe")
def probe(kind: Annotated[str, Query()]) -> Reply:
    # A reply that breaks its own model when asked to: the route's defect, not the caller's.
    return Reply(count=1) if kind == "good" else {"count": "many"}  # type: ignore[return-value]


def _get(query: dict[str, str]) -> dict[str, Any]:
    context.begin("req-1")
    event = {
        "resource": "/v3/probe",
        "path": "/v3/probe",
        "httpMethod": "GET",
        "headers": {},
        "multiValueHeaders": {},
        "queryStringParameters": query or None,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} or None,
        "requestContext": {"requestId": "req-1", "identity": {"sourceIp": "198.51.100.7"}},
        "body": None,
        "isBase64Encoded": False,
    }
    reply: dict[str, Any] = build_app(router).resolve(event, None)  # type: ignore[arg-type]
    return reply


def test_a_reply_that_fails_its_model_is_a_500_not_the_callers_400() -> None:
    reply = _get({"kind": "bad"})
    assert reply["statusCode"] == 500
    assert json.loads(reply["body"])["error"]["code"] == "internal_error"


def test_a_bad_query_is_still_the_callers_400() -> None:
    reply = _get({})
    assert reply["statusCode"] == 400
    assert json.loads(reply["body"])["error"]["code"] == "validation_error"
    assert _get({"kind": "good"})["statusCode"] == 200
