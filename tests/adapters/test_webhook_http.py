"""WebhookHttp's OAuth2 tokens against a real token endpoint on 127.0.0.1: cached until shortly
before expiry on the clock it is given (not the wall clock), fetched once for concurrent callers."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from postline.adapters.webhook_http import WebhookHttp
from postline.domain.webhook_delivery import TokenError
from tests.fakes import FixedClock
from tests.peers.token_server import TokenServer


@pytest.fixture
def tokens() -> Iterator[TokenServer]:
    with TokenServer("client", "secret", scope="hooks", expires_in=600) as server:
        yield server


def fetch(http: WebhookHttp, tokens: TokenServer, *, fresh: bool = False, key: str = "wh_1") -> str:
    return http.token(key, tokens.url, "client", "secret", scope="hooks", fresh=fresh)


def test_a_token_is_cached_until_30_seconds_before_it_expires_on_the_given_clock(tokens: TokenServer) -> None:
    clock = FixedClock()
    http = WebhookHttp(clock)
    first = fetch(http, tokens)
    clock.advance(600 - 31)
    assert fetch(http, tokens) == first and len(tokens.requests) == 1
    clock.advance(1)
    second = fetch(http, tokens)
    assert second != first and tokens.issued == [first, second]


def test_fresh_refetches_and_each_endpoint_has_its_own_token(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock())
    first = fetch(http, tokens)
    renewed = fetch(http, tokens, fresh=True)
    other = fetch(http, tokens, key="wh_2")
    assert len({first, renewed, other}) == 3
    assert fetch(http, tokens) == renewed


def test_concurrent_callers_share_one_fetch(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock())
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda _: fetch(http, tokens), range(8)))
    assert len(tokens.requests) == 1 and set(got) == set(tokens.issued)


def test_a_failing_token_endpoint_raises_token_error_and_caches_nothing(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock())
    tokens.failing = 500
    with pytest.raises(TokenError, match="500"):
        fetch(http, tokens)
    tokens.failing = None
    assert fetch(http, tokens) == tokens.issued[0]
