"""Typed errors that become the spec's error body: {"error": {"code", "message"}, "request_id"}.

Services raise these; the HTTP plumbing maps them to a status in one place, so no route
matches on message strings or builds error bodies itself.
"""

from __future__ import annotations

from pydantic import ValidationError


class ApiError(Exception):
    """An error the client can act on. `code` is stable; `message` may be reworded."""

    status: int = 400
    code: str = "validation_error"

    def __init__(self, message: str, *, code: str | None = None, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.retry_after = retry_after


class ValidationFailed(ApiError):
    """400 validation_error: the request cannot succeed as it is, now or later, so the identical
    request gets the same answer (the API's error rules: README, "The API so far"). Also a permanent
    refusal of a state: "address: this account has a list at x already", a cancel of a send that has ended."""

    status, code = 400, "validation_error"

    @classmethod
    def first_of(cls, error: ValidationError) -> ValidationFailed:
        """A pydantic error as a 400 naming its first problem: `since: Input should be ...`."""
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return cls(f"{where}: {first['msg']}" if where else str(first["msg"]))


class InvalidJson(ApiError):
    status, code = 400, "invalid_json"


class Unauthorized(ApiError):
    status, code = 401, "unauthorized"


class PaymentRequired(ApiError):
    """402 insufficient_credits: a live verification with no credits left (test keys are exempt)."""

    status, code = 402, "insufficient_credits"


class Forbidden(ApiError):
    """403 with a specific code: insufficient_scope, test_key_forbidden, plan_limit_reached, ..."""

    status, code = 403, "forbidden"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    """409: transient (the API's error rules: README, "The API so far"), so only where a retry of the
    identical request can succeed: a concurrent write won a race ("changed concurrently; retry"), a
    result not ready while its job still runs, an Idempotency-Key whose first request still runs
    (code idempotency_in_progress). A refusal the same request always meets again is `ValidationFailed`."""

    status, code = 409, "conflict"


class RateLimited(ApiError):
    status, code = 429, "rate_limited"


class ServiceUnavailable(ApiError):
    status, code = 503, "service_unavailable"


class QueryTimeout(ApiError):
    """A query ran past its time budget: narrow it, or use POST /v3/events/export; carries Retry-After."""

    status, code = 503, "query_timeout"


class Gone(ApiError):
    """410 gone: the resource existed and has ended for good (an expired upload); no retry helps."""

    status, code = 410, "gone"
