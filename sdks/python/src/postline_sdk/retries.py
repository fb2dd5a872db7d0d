"""Retries as the interface's errors section prescribes, as an httpx transport.

409 `idempotency_in_progress`, 429 and 5xx are transient: the identical request is sent again with
exponential backoff from about a second, with jitter, honouring Retry-After. A request the server
may have acted on (a 5xx, or a connection lost after sending) is repeated only when repeating it is
safe: an idempotent method, or a request carrying an Idempotency-Key. A refused connection never
reached the server and is always retried.

httpx has no retry policy of its own for responses (its transport retries connects only), so this
small layer is written here rather than taken from a package.
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    first_delay: float = 1.0  # seconds; doubled each attempt
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt `attempt` (1-based): Retry-After when the server gave
        one, else the exponential step with "equal jitter" (half fixed, half random)."""
        if retry_after is not None:
            return min(retry_after, self.max_delay * 4) + random.uniform(0, 0.25)
        step = min(self.max_delay, self.first_delay * 2.0 ** (attempt - 1))
        return step / 2 + random.uniform(0, step / 2)


def retry_after_seconds(
    response: httpx.Response, now: Callable[[], datetime] = lambda: datetime.now(UTC)
) -> float | None:
    """Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3); None when absent or unreadable."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - now()).total_seconds())


def is_transient(response: httpx.Response) -> bool:
    if response.status_code == 429 or response.status_code >= 500:
        return True
    if response.status_code != 409:
        return False
    try:
        code = json.loads(response.content)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return False
    return bool(code == "idempotency_in_progress")


def safe_to_repeat(request: httpx.Request) -> bool:
    return request.method in IDEMPOTENT_METHODS or "Idempotency-Key" in request.headers


class RetryingTransport(httpx.BaseTransport):
    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._inner = inner or httpx.HTTPTransport()
        self._policy = policy or RetryPolicy()
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()  # the body is sent again as it was
        attempt = 1
        while True:
            last = attempt >= self._policy.max_attempts
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError as error:
                if last or not (isinstance(error, NOT_SENT) or safe_to_repeat(request)):
                    raise
                self._sleep(self._policy.delay(attempt, None))
                attempt += 1
                continue
            response.read()
            may_repeat = response.status_code in (409, 429) or safe_to_repeat(request)
            if last or not is_transient(response) or not may_repeat:
                return response
            response.close()
            self._sleep(self._policy.delay(attempt, retry_after_seconds(response)))
            attempt += 1

    def close(self) -> None:
        self._inner.close()
