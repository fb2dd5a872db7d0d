"""The relay task's mailbox probe endpoint: the SMTP dialogue POST /v3/validate asks for, run where
outbound port 25 is open (a Lambda's is not).

POST /v1/probe with a ProbeRequest (verification/smtp_probe.py) answers a ProbeAnswer: the same
SmtpMailboxProber the embedded runtime used directly (EHLO, MAIL FROM:<>, RCPT TO, a random RCPT,
QUIT; no DATA; a 12 s budget). In the cloud it listens on port 8025 of each relay task, found through
Cloud Map (relay.postline.internal) and reachable only from the probe clients' security group; the
embedded runtime serves it on 127.0.0.1 from this same class. At most MAX_CONCURRENT probes run at
once: past that it answers 503 at once (the client reports `not_run`, busy), so probes never crowd out
the task's deliveries.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import ValidationError

from postline.verification.ports import MailboxProber
from postline.verification.smtp_probe import PROBE_PATH, ProbeAnswer, ProbeRequest

logger = logging.getLogger(__name__)
PROBE_PORT = 8025  # the task definition's container port (infra/template.base.yaml)
MAX_CONCURRENT = 16
MAX_BODY = 16 * 1024


class ProbeServer:
    def __init__(
        self,
        prober: Callable[[], MailboxProber],
        *,
        host: str,
        port: int = PROBE_PORT,
        scope: Callable[[], AbstractContextManager[object]] | None = None,
        max_concurrent: int = MAX_CONCURRENT,
    ) -> None:
        """prober: builds the prober per request (wiring's accessor); scope: the settings each request
        runs under (the embedded runtime holds it to the relay task's)."""
        self._prober = prober
        self._scope = scope or nullcontext
        self._slots = threading.BoundedSemaphore(max_concurrent)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path != PROBE_PATH:
                    self._answer(404, {"error": "not found"})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    self._answer(413, {"error": "too large"})
                    return
                try:
                    request = ProbeRequest.model_validate_json(self.rfile.read(length))
                except ValidationError as error:
                    self._answer(400, {"error": str(error)[:500]})
                    return
                if not server._slots.acquire(blocking=False):
                    self._answer(503, {"error": "busy"})
                    return
                try:
                    with server._scope():
                        probe = server._prober().probe(
                            request.address, request.domain, tuple(request.mx_hosts), catch_all=request.catch_all
                        )
                except Exception:
                    logger.exception("a mailbox probe failed")
                    self._answer(500, {"error": "the probe failed"})
                    return
                finally:
                    server._slots.release()
                self._answer(200, ProbeAnswer.of(probe).model_dump(mode="json"))

            def _answer(self, status: int, body: dict[str, object]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                logger.debug("probe endpoint: " + format, *args)

        self._http = ThreadingHTTPServer((host, port), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, name="probe-endpoint", daemon=True)

    @property
    def address(self) -> str:
        """host:port it listens on (the port the OS chose when asked for 0)."""
        host, port = self._http.server_address[:2]
        return f"{host if isinstance(host, str) else host.decode()}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
