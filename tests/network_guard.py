"""No network in unit and handler tests: their conftests run every test inside NetworkGuard.installed().

While installed, a socket connect (connect, connect_ex, create_connection), a datagram sent
(sendto) or a name looked up (getaddrinfo, gethostbyname, gethostbyname_ex, gethostbyaddr)
raises NetworkBlocked, naming the call. Every attempt is also recorded, and the test fails at
teardown if there were any: code that swallows the error (a retry loop, `except Exception`, a
worker thread) still fails the test. A test that means to try (tests/unit/test_network_guard.py)
takes its attempts with take().

The guard covers the test's own thread and every thread started from a guarded thread while it is
installed. Threads that were already running are left alone: with `pytest -n N --dist loadfile`
a worker may have started the e2e runtime earlier in the session, and its pumps keep calling the
AWS emulator on loopback in the background while this worker runs unit tests.
"""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class NetworkBlocked(RuntimeError):
    """A test touched the network. Not an OSError, so code handling network failures won't take it for one."""


def _address(args: tuple[Any, ...]) -> str:
    return repr(args[-1]) if args else ""


def _host_port(args: tuple[Any, ...]) -> str:
    return ", ".join(repr(arg) for arg in args[:2])


# (owner, attribute, what the arguments say about the destination)
_CALLS: list[tuple[Any, str, Callable[[tuple[Any, ...]], str]]] = [
    (socket.socket, "connect", lambda args: _address(args[1:])),
    (socket.socket, "connect_ex", lambda args: _address(args[1:])),
    (socket.socket, "sendto", lambda args: _address(args[1:])),
    (socket, "create_connection", lambda args: _address(args[:1])),
    (socket, "getaddrinfo", _host_port),
    (socket, "gethostbyname", _host_port),
    (socket, "gethostbyname_ex", _host_port),
    (socket, "gethostbyaddr", _host_port),
]


class NetworkGuard:
    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._guarded: set[threading.Thread] = set()
        self._lock = threading.Lock()

    @classmethod
    @contextmanager
    def installed(cls) -> Iterator[NetworkGuard]:
        """Guards the calling thread (and threads it starts) until exit; fails if anything was attempted."""
        guard = cls()
        with pytest.MonkeyPatch.context() as patch:
            guard._install(patch)
            yield guard
        guard._guarded.clear()
        if guard.attempts:
            pytest.fail(f"the test used the network (tests/network_guard.py): {'; '.join(guard.attempts)}")

    def take(self) -> list[str]:
        """The attempts so far, forgotten: for a test that tries on purpose."""
        with self._lock:
            taken, self.attempts = self.attempts, []
        return taken

    def _install(self, patch: pytest.MonkeyPatch) -> None:
        self._guarded.add(threading.current_thread())
        for owner, name, destination in _CALLS:
            patch.setattr(owner, name, self._blocking(getattr(owner, name), name, destination))
        start = threading.Thread.start

        def guarded_start(thread: threading.Thread) -> None:
            if threading.current_thread() in self._guarded:
                self._guarded.add(thread)
            start(thread)

        patch.setattr(threading.Thread, "start", guarded_start)

    def _blocking(
        self, original: Callable[..., Any], name: str, destination: Callable[[tuple[Any, ...]], str]
    ) -> Callable[..., Any]:
        @functools.wraps(original)
        def blocked(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread() not in self._guarded:
                return original(*args, **kwargs)
            attempt = f"{name}({destination(args)})"
            with self._lock:
                self.attempts.append(attempt)
            raise NetworkBlocked(f"{attempt}: unit and handler tests may not use the network")

        return blocked
