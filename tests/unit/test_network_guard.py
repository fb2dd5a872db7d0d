"""tests/network_guard.py: unit tests cannot reach the network, and a test that tries fails."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.network_guard import NetworkBlocked, NetworkGuard

LOOKUP = ("127.0.0.1", 9)  # numeric: resolving it needs no network, so only the guard can refuse it


def test_connecting_and_resolving_are_refused_naming_the_call(network_guard: NetworkGuard) -> None:
    with pytest.raises(NetworkBlocked, match=r"create_connection\(\('127.0.0.1', 9\)\)"):
        socket.create_connection(LOOKUP, timeout=1)
    with socket.socket() as sock, pytest.raises(NetworkBlocked, match=r"^connect\("):
        sock.connect(LOOKUP)
    with socket.socket() as sock, pytest.raises(NetworkBlocked, match=r"^connect_ex\("):
        sock.connect_ex(LOOKUP)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, pytest.raises(NetworkBlocked, match=r"^sendto\("):
        sock.sendto(b"query", LOOKUP)
    with pytest.raises(NetworkBlocked, match=r"^getaddrinfo\('example.com', 443\)"):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(NetworkBlocked, match=r"^gethostbyname\('example.com'\)"):
        socket.gethostbyname("example.com")
    assert len(network_guard.take()) == 6  # tried on purpose: taken, so the teardown check passes


def test_an_http_client_is_refused_before_it_sends(network_guard: NetworkGuard) -> None:
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment: straight to the host
    with pytest.raises(NetworkBlocked, match=r"getaddrinfo\('example.com', 80"):
        session.get("http://example.com/", timeout=1)
    assert network_guard.take() == ["getaddrinfo('example.com', 80)"]


def test_threads_the_test_starts_are_guarded_too(network_guard: NetworkGuard) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(socket.getaddrinfo, *LOOKUP)
        with pytest.raises(NetworkBlocked):
            future.result()
    assert network_guard.take() == ["getaddrinfo('127.0.0.1', 9)"]


def _lookup_and_swallow_the_error() -> None:
    """What a careless retry loop does."""
    with contextlib.suppress(Exception):
        socket.getaddrinfo("example.com", 443)


def _in_a_guard_of_its_own(action: Callable[[], None]) -> None:
    with NetworkGuard.installed():  # nested in this test's guard, which never sees the call
        action()


def test_a_swallowed_attempt_still_fails_the_test() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"the test used the network .*getaddrinfo\('example.com', 443\)"):
        _in_a_guard_of_its_own(_lookup_and_swallow_the_error)


Bystander = Callable[[], object]


@pytest.fixture(scope="module")
def bystander() -> Iterator[Bystander]:
    """A thread started before any test's guard, as the e2e runtime's pumps may be in this worker."""
    asks: queue.Queue[bool] = queue.Queue()
    answers: queue.Queue[object] = queue.Queue()

    def serve() -> None:
        while asks.get():
            try:
                answers.put(socket.getaddrinfo(*LOOKUP, type=socket.SOCK_STREAM)[0][4])
            except Exception as error:
                answers.put(error)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def lookup() -> object:
        asks.put(True)
        return answers.get(timeout=10)

    yield lookup
    asks.put(False)
    thread.join(10)


def test_threads_already_running_are_left_alone(bystander: Bystander, network_guard: NetworkGuard) -> None:
    assert bystander() == LOOKUP
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo(*LOOKUP, type=socket.SOCK_STREAM)
    assert network_guard.take() == ["getaddrinfo('127.0.0.1', 9)"]
