"""A real HTTPS server on 127.0.0.1 for tests' peers: a ThreadingHTTPServer whose socket speaks TLS
with a certificate a test CA (tests/certs.py) issued for `dns_names` and 127.0.0.1; the peer's own
handler class answers. Serves on a thread while open.

    class Handler(BaseHTTPRequestHandler): ...
    with HttpsServer(Handler, ca, "reports", dns_names=("reports.test",)) as server:
        ... https://reports.test:{server.port}/ (the name resolving to 127.0.0.1) ...
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from tests.certs import TestCa, server_context

HOST = "127.0.0.1"


class HttpsServer:
    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        ca: TestCa,
        common_name: str,
        *,
        dns_names: tuple[str, ...] = ("localhost",),
    ) -> None:
        cert, key = ca.issue(common_name, server=True, dns_names=dns_names)
        self._http = ThreadingHTTPServer((HOST, 0), handler)
        self._http.socket = server_context(cert, key).wrap_socket(self._http.socket, server_side=True)
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    def __enter__(self) -> HttpsServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._http.shutdown()
        self._http.server_close()
