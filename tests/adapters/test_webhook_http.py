"""WebhookHttp against real servers on 127.0.0.1.

- OAuth2 tokens: cached until shortly before expiry on the clock it is given (not the wall
  clock), fetched once for concurrent callers.
- The URL guard's addresses: a request connects to the address the guard vetted (a name that
  resolves nowhere still arrives, TLS checked against that name), and a refused URL is never
  called, receiver or token endpoint alike.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from postline.shared.errors import ValidationFailed
from postline.webhook_delivery.domain import TokenError
from postline.webhook_delivery.http_client import WebhookHttp
from tests.certs import TestCa, server_context
from tests.fakes.shared import FixedClock
from tests.peers.token_server import TokenServer
from tests.peers.webhook_receiver import Receiver


def by_name(url: str) -> list[str]:
    """The guard where private URLs are allowed: nothing pinned, the client resolves the name."""
    return []


def refuse(url: str) -> list[str]:
    raise ValidationFailed("The webhook host resolves to 10.0.0.7, a private address.")


@pytest.fixture
def tokens() -> Iterator[TokenServer]:
    with TokenServer("client", "secret", scope="hooks", expires_in=600) as server:
        yield server


def fetch(http: WebhookHttp, tokens: TokenServer, *, fresh: bool = False, key: str = "wh_1") -> str:
    return http.token(key, tokens.url, "client", "secret", scope="hooks", fresh=fresh)


def test_a_token_is_cached_until_30_seconds_before_it_expires_on_the_given_clock(tokens: TokenServer) -> None:
    clock = FixedClock()
    http = WebhookHttp(clock, by_name)
    first = fetch(http, tokens)
    clock.advance(600 - 31)
    assert fetch(http, tokens) == first and len(tokens.requests) == 1
    clock.advance(1)
    second = fetch(http, tokens)
    assert second != first and tokens.issued == [first, second]


def test_fresh_refetches_and_each_endpoint_has_its_own_token(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock(), by_name)
    first = fetch(http, tokens)
    renewed = fetch(http, tokens, fresh=True)
    other = fetch(http, tokens, key="wh_2")
    assert len({first, renewed, other}) == 3
    assert fetch(http, tokens) == renewed


def test_concurrent_callers_share_one_fetch(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock(), by_name)
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda _: fetch(http, tokens), range(8)))
    assert len(tokens.requests) == 1 and set(got) == set(tokens.issued)


def test_callers_waiting_on_a_failing_fetch_share_its_error(tokens: TokenServer) -> None:
    """A slow, failing token endpoint costs one request for everyone who waited on it, not one
    each in a row (attempts to the endpoint would otherwise run back to back, 30 s apiece)."""
    http = WebhookHttp(FixedClock(), by_name)
    tokens.failing, tokens.delay = 500, 0.3

    def attempt(_: int) -> str:
        try:
            return fetch(http, tokens)
        except TokenError as error:
            return str(error)

    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(attempt, range(6)))
    assert outcomes == ["token endpoint answered 500"] * 6 and len(tokens.requests) == 1
    tokens.failing, tokens.delay = None, 0.0
    assert fetch(http, tokens) == tokens.issued[0]  # a later caller fetches again: errors are not cached


def test_callers_waiting_after_a_401_share_one_fresh_token(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock(), by_name)
    rejected = fetch(http, tokens)
    tokens.delay = 0.3
    with ThreadPoolExecutor(max_workers=6) as pool:
        renewed = set(pool.map(lambda _: fetch(http, tokens, fresh=True), range(6)))
    assert len(renewed) == 1 and rejected not in renewed and len(tokens.requests) == 2


def test_a_refused_connection_is_a_plain_failure_not_cut_short() -> None:
    """urllib3's NewConnectionError subclasses its TimeoutError: a closed port is not a timeout
    (which would earn the +24 h step)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answer = WebhookHttp(FixedClock(), by_name).post(f"http://127.0.0.1:{port}/hooks", b"{}", {})
    assert (answer.status_code, answer.cut_short) == (None, False)
    assert answer.error is not None and answer.error.startswith("connection failed")


def test_a_failing_token_endpoint_raises_token_error_and_caches_nothing(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock(), by_name)
    tokens.failing = 500
    with pytest.raises(TokenError, match="500"):
        fetch(http, tokens)
    tokens.failing = None
    assert fetch(http, tokens) == tokens.issued[0]


def test_a_request_connects_to_the_vetted_address_and_verifies_the_url_name(tmp_path: Path) -> None:
    """hooks.postline.test resolves nowhere: only a pinned address can reach the receiver, and
    its certificate (issued for that name) is checked against the name, not the address. An
    address that refuses the connection gives way to the next."""
    ca = TestCa.create()
    bundle = tmp_path / "ca.pem"
    bundle.write_text(ca.pem)
    vetted: list[str] = []

    def pin(url: str) -> list[str]:
        vetted.append(url)
        return ["::1", "127.0.0.2", "127.0.0.1"]  # v4 first; nothing listens on .2: the next is tried

    with Receiver(tls=server_context(*ca.issue("hooks", server=True, dns_names=("hooks.postline.test",)))) as receiver:
        url = receiver.url.replace("127.0.0.1", "hooks.postline.test")
        answer = WebhookHttp(FixedClock(), pin, ca_bundle=str(bundle)).post(url, b"{}", {"X-Test": "1"})
        assert (answer.status_code, answer.error) == (200, None)
        (received,) = receiver.requests
    assert vetted == [url]
    assert received.headers["Host"] == url.split("/")[2] and received.headers["X-Test"] == "1"
    assert received.path == "/hooks"


def test_a_pinned_request_still_refuses_a_certificate_for_another_name(tmp_path: Path) -> None:
    ca = TestCa.create()
    bundle = tmp_path / "ca.pem"
    bundle.write_text(ca.pem)
    with Receiver(tls=server_context(*ca.issue("other", server=True, dns_names=("other.postline.test",)))) as receiver:
        url = receiver.url.replace("127.0.0.1", "hooks.postline.test")
        answer = WebhookHttp(FixedClock(), lambda _: ["127.0.0.1"], ca_bundle=str(bundle)).post(url, b"{}", {})
        assert answer.status_code is None and "SSL" in (answer.error or "")
        assert receiver.requests == []


def test_a_refused_url_is_never_called(tokens: TokenServer) -> None:
    http = WebhookHttp(FixedClock(), refuse)
    with Receiver() as receiver:
        answer = http.post(receiver.url, b"{}", {})
        assert (answer.status_code, answer.cut_short) == (None, False)
        assert answer.error is not None and answer.error.startswith("refused: ")
        assert receiver.requests == []
    with pytest.raises(TokenError, match="token_url refused"):
        fetch(http, tokens)
    assert tokens.requests == []
