"""HTTP responses the runtime itself writes (the gateway's own errors and `/_local/`)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from werkzeug.wrappers import Response


class JsonResponse(Response):
    default_mimetype = "application/json"  # API Gateway's default for a proxy response too


def json_response(body: Any, status: int = 200) -> JsonResponse:
    return JsonResponse(json.dumps(body), status=status)


def error_body(code: str, message: str, request_id: str) -> bytes:
    """The error shape of the API, spelled as the template's GatewayResponses spell it."""
    return json.dumps({"error": {"code": code, "message": message}, "request_id": request_id}).encode()


def error_response(status: int, code: str, message: str, request_id: str | None = None) -> JsonResponse:
    request_id = request_id or str(uuid.uuid4())
    response = JsonResponse(error_body(code, message, request_id), status=status)
    response.headers["X-Request-Id"] = request_id
    return response
