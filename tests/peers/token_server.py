"""A real OAuth2 token endpoint on 127.0.0.1 (client-credentials grant, RFC 6749 4.4).

    with TokenServer("client-1", "s3cret", scope="hooks:write", expires_in=600) as tokens:
        ... tokens.url ... tokens.requests ... tokens.accepts("Bearer ...") ...

It checks what a client-credentials request must carry: POST, form-urlencoded grant_type
client_credentials, the client authenticated with HTTP Basic, and the scope and audience it was
given (when given). It counts every request, issues a new token each time, can revoke tokens
(a receiver asking `accepts` then refuses them) and can be told to fail (`failing = 500`).
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs


@dataclass(frozen=True)
class TokenRequest:
    form: dict[str, str]
    client_id: str | None
    status: int  # what the server answered
    token: str | None  # what it issued, if it did


class TokenServer:
    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        audience: str | None = None,
        expires_in: int = 3600,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope
        self.audience = audience
        self.expires_in = expires_in
        self.failing: int | None = None  # answer every request with this status while set
        self.delay = 0.0  # seconds each answer waits: a slow token endpoint
        self.requests: list[TokenRequest] = []
        self._valid: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode()
                # A real wait, kept on purpose: a slow endpoint is the point (the concurrent-caller
                # tests in tests/adapters/test_webhook_http.py need the other callers to queue up
                # behind this fetch while it is in flight). They block on a lock, not on a clock,
                # so no movable clock can stand in, and nothing observable says they all queued.
                time.sleep(server.delay)
                status, document = server._answer(
                    self.headers.get("Content-Type", ""), self.headers.get("Authorization", ""), body
                )
                encoded = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/oauth/token"

    @property
    def issued(self) -> list[str]:
        """Every token issued so far, oldest first."""
        return [request.token for request in self.requests if request.token is not None]

    def accepts(self, authorization: str | None) -> bool:
        """Whether an Authorization header carries a token this server issued and has not revoked."""
        scheme, _, token = (authorization or "").partition(" ")
        with self._lock:
            return scheme == "Bearer" and token in self._valid

    def revoke(self, token: str) -> None:
        with self._lock:
            self._valid.discard(token)

    def _answer(self, content_type: str, authorization: str, body: str) -> tuple[int, dict[str, object]]:
        form = {name: values[0] for name, values in parse_qs(body).items()}
        client_id, status, document = self._check(content_type, authorization, form)
        token = None
        if status == 200:
            token = f"tok_{secrets.token_urlsafe(16)}"
            document = {"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in}
        with self._lock:
            if token is not None:
                self._valid.add(token)
            self.requests.append(TokenRequest(form, client_id, status, token))
        return status, document

    def _check(
        self, content_type: str, authorization: str, form: dict[str, str]
    ) -> tuple[str | None, int, dict[str, object]]:
        client_id = None
        scheme, _, credentials = authorization.partition(" ")
        if scheme == "Basic":
            client_id, _, secret = base64.b64decode(credentials).decode().partition(":")
            if (client_id, secret) != (self.client_id, self.client_secret):
                return client_id, 401, {"error": "invalid_client"}
        else:
            return None, 401, {"error": "invalid_client"}
        if self.failing is not None:
            return client_id, self.failing, {"error": "temporarily_unavailable"}
        if not content_type.startswith("application/x-www-form-urlencoded"):
            return client_id, 400, {"error": "invalid_request"}
        if form.get("grant_type") != "client_credentials":
            return client_id, 400, {"error": "unsupported_grant_type"}
        if form.get("scope") != self.scope or form.get("audience") != self.audience:
            return client_id, 400, {"error": "invalid_scope"}
        return client_id, 200, {}

    def __enter__(self) -> TokenServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
