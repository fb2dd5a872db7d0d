"""The SDK's retry rules (the interface's errors section), against scripted answers."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from postline_sdk import RetryingTransport, RetryPolicy

Answer = Callable[[httpx.Request], httpx.Response]


def error(status: int, code: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": code}, "request_id": "r"}, headers=headers)


def run(
    answers: list[httpx.Response | Exception], method: str = "POST", **headers: str
) -> tuple[int, list[float], int]:
    """(final status, the waits, the number of requests the server saw)."""
    seen: list[httpx.Request] = []
    waits: list[float] = []

    def serve(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers[min(len(seen), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    transport = RetryingTransport(httpx.MockTransport(serve), policy=RetryPolicy(max_attempts=4), sleep=waits.append)
    with httpx.Client(transport=transport, base_url="https://api.example") as client:
        response = client.request(method, "/v3/messages", json={"to": ["a@example.com"]}, headers=headers)
    assert all(request.content == seen[0].content for request in seen)  # the identical request
    return response.status_code, waits, len(seen)


def test_429_honours_retry_after() -> None:
    status, waits, calls = run([error(429, "rate_limited", **{"Retry-After": "7"}), httpx.Response(202, json={})])
    assert (status, calls) == (202, 2)
    assert 7 <= waits[0] < 7.5


def test_409_in_progress_is_retried_with_growing_backoff_but_other_409s_are_not() -> None:
    status, waits, calls = run([error(409, "idempotency_in_progress")] * 3 + [httpx.Response(202, json={})],
                               **{"Idempotency-Key": "k"})  # fmt: skip
    assert (status, calls) == (202, 4)
    assert 0.5 <= waits[0] <= 1 and 1 <= waits[1] <= 2 and 2 <= waits[2] <= 4
    assert run([error(409, "conflict"), httpx.Response(200)])[::2] == (409, 1)


@pytest.mark.parametrize(("headers", "calls"), [({}, 1), ({"Idempotency-Key": "k"}, 2)])
def test_a_5xx_repeats_a_post_only_with_an_idempotency_key(headers: dict[str, str], calls: int) -> None:
    status, _, seen = run([error(500, "internal_error"), httpx.Response(202, json={})], **headers)
    assert seen == calls and status == (500 if calls == 1 else 202)


def test_a_get_repeats_after_a_5xx_and_after_a_lost_connection() -> None:
    answers: list[httpx.Response | Exception] = [
        error(503, "query_timeout"),
        httpx.ReadError("reset"),
        httpx.Response(200),
    ]
    assert run(answers, method="GET")[::2] == (200, 3)


def test_a_refused_connection_is_retried_even_for_a_post_but_a_lost_reply_is_not() -> None:
    assert run([httpx.ConnectError("refused"), httpx.Response(202)])[::2] == (202, 2)
    with pytest.raises(httpx.ReadError):
        run([httpx.ReadError("reset"), httpx.Response(202)])


def test_it_gives_up_after_the_last_attempt() -> None:
    status, waits, calls = run([error(429, "rate_limited")])
    assert (status, len(waits), calls) == (429, 3, 4)
