"""A real HTTP(S) webhook receiver on 127.0.0.1: records every request, answers from a script.

    with Receiver(answers=[503, 503, 200]) as receiver:   # then 200 forever (the last answer repeats)
        ... receiver.url ... receiver.requests ...

Optionally TLS that requires a client certificate (mTLS), with the CA that must have issued it,
and an `authorize` check (e.g. a bearer token): a request it refuses is recorded and answered 401.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from tests.support import eventually


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)
    client_subject: str | None = None


class Receiver:
    def __init__(
        self,
        answers: list[int] | None = None,
        *,
        tls: ssl.SSLContext | None = None,
        authorize: Callable[[Received], bool] | None = None,
    ) -> None:
        self.answers = list(answers or [200])
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._tls = tls
        self._authorize = authorize
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                subject = None
                if receiver._tls is not None:
                    peer = self.connection.getpeercert()  # type: ignore[attr-defined]
                    subject = str(peer.get("subject")) if peer else None
                status = receiver._record(Received(self.path, dict(self.headers.items()), body, client_subject=subject))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        scheme = "https" if self._tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}/hooks"

    def _record(self, received: Received) -> int:
        with self._lock:
            self.requests.append(received)
            index = len(self.requests) - 1
            answer = self.answers[min(index, len(self.answers) - 1)]
        return 401 if self._authorize is not None and not self._authorize(received) else answer

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Every request so far, once at least `count` (1 or more) have arrived; fails if they don't."""

        def arrived() -> list[Received]:
            with self._lock:
                received = list(self.requests)
            if len(received) < count:
                raise AssertionError(f"{len(received)} arrived: {[(r.path, r.body[:80]) for r in received]}")
            return received

        return eventually(arrived, timeout, interval=0.02, waiting_for=f"{count} request(s) at {self.url}")

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
