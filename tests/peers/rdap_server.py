"""A real RDAP server (RFC 9082/9083) over HTTPS on 127.0.0.1: GET /domain/{name} answers the
domain's registration event, 404 for names it does not hold, 503 for names in `failing` (a registry
that is down; tests add and remove names while it runs). Its certificate comes from a test CA
(tests/certs.py); the runtime is told to trust that CA (RdapCaBundle)."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from types import TracebackType

from tests.certs import TestCa
from tests.peers.https_server import HttpsServer


class RdapServer:
    def __init__(self, ca: TestCa, registered: dict[str, datetime]) -> None:
        self.registered = dict(registered)
        self.asked: list[str] = []
        self.failing: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.removeprefix("/domain/").lower()
                with server._lock:
                    server.asked.append(name)
                when = server.registered.get(name) if self.path.startswith("/domain/") else None
                if name in server.failing:
                    body, status = {"errorCode": 503, "title": "Service Unavailable"}, 503
                elif when is None:
                    body, status = {"errorCode": 404, "title": "Not Found"}, 404
                else:
                    body = {
                        "objectClassName": "domain",
                        "ldhName": name.upper(),
                        "events": [
                            {"eventAction": "registration", "eventDate": when.strftime("%Y-%m-%dT%H:%M:%SZ")},
                            {"eventAction": "last changed", "eventDate": "2026-01-01T00:00:00Z"},
                        ],
                    }
                    status = 200
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/rdap+json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._https = HttpsServer(Handler, ca, "rdap.test")

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self._https.port}"

    def __enter__(self) -> RdapServer:
        self._https.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._https.__exit__(kind, error, traceback)
