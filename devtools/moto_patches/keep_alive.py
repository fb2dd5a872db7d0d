"""moto's server keeps a client's connection open between requests (HTTP/1.1 keep-alive).

Why: ThreadedMotoServer serves through werkzeug's development server, which ends every response
with `Connection: close`. So each AWS call of the embedded runtime opened a TCP connection
(urllib3 resolving the address, connecting, closing), and the emulator accepted it and started a
thread for it, on both sides in a single interpreter. A 5,000-recipient batch makes ~1,600 calls;
its pipeline ~2.3 a message. werkzeug closes because `http.server` cannot find the next request
line when an application leaves part of a body unread (and, having closed, it drains what a
client sent past the body, which would swallow a kept-alive client's next request).

How: ThreadedMotoServer builds its server with `request_handler=MotoRequestHandler`, a name of
moto.moto_server.threaded_moto_server; `install()` rebinds that name to a subclass whose
`run_wsgi` (werkzeug's entry for every method) reads the request's whole body first (its
Content-Length, or a chunked body to its end), hands the application that copy, collects the
whole answer and writes it with its Content-Length. The socket is then at the client's next
request, which http.server reads on the same connection (HTTP/1.1, unless the client asked to
close). The environ is werkzeug's and moto's (`make_environ`), the status line and the Server and
Date headers are http.server's, as before; an application error answers werkzeug's 500 and closes
the connection. A connection left idle for IDLE_SECONDS is closed (its thread ends with it). One
thread per open connection, where there was one per request; a client keeps at most its pool's
connections (botocore: 10 a client).

Guard: `install()` checks that ThreadedMotoServer still builds its server with that name and that
werkzeug still dispatches every method to `run_wsgi` and builds the environ in `make_environ`, and
raises otherwise.
"""

from __future__ import annotations

import inspect
import io
import time
import traceback
from collections.abc import Callable
from typing import Any

from moto.moto_server import threaded_moto_server
from moto.moto_server.werkzeug_app import MotoRequestHandler
from werkzeug import serving
from werkzeug.exceptions import InternalServerError

_NAME = "MotoRequestHandler"
IDLE_SECONDS = 120.0  # an idle kept-alive connection is closed after this long
_NO_BODY_STATUSES = (204, 304)
_dates: list[tuple[int, str]] = [(-1, "")]  # the second and its Date value, replaced whole (one store)
_EXPECTED: dict[str, tuple[Callable[[], Any], tuple[str, ...]]] = {
    "ThreadedMotoServer._server_entry": (
        lambda: threaded_moto_server.ThreadedMotoServer._server_entry,
        ("request_handler=MotoRequestHandler",),
    ),
    "WSGIRequestHandler.__getattr__": (
        lambda: serving.WSGIRequestHandler.__getattr__,
        ('if name.startswith("do_"):', "return self.run_wsgi"),
    ),
    "WSGIRequestHandler.make_environ": (
        lambda: serving.WSGIRequestHandler.make_environ,
        ('"wsgi.input": self.rfile,', 'environ["wsgi.input"] = DechunkedInput(environ["wsgi.input"])'),
    ),
}


class KeepAliveRequestHandler(MotoRequestHandler):
    """moto's request handler, answering each request whole and keeping the connection open."""

    timeout = IDLE_SECONDS  # socketserver sets it on the connection: an idle read ends the thread
    disable_nagle_algorithm = True  # else a small answer may wait for the client's delayed ACK (~40 ms)

    def run_wsgi(self) -> None:
        if self.headers.get("Expect", "").lower().strip(" \t") == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        self.environ = environ = self.make_environ()
        try:
            environ["wsgi.input"] = io.BytesIO(self._body(environ))
            status, headers, body = self._answer(environ)
        except (ConnectionError, TimeoutError) as error:
            self.connection_dropped(error, environ)
            self.close_connection = True
            return
        try:
            code = int(status.split(None, 1)[0])
            self.send_response_only(code, status.partition(" ")[2] or None)
            self.send_header("Server", self.version_string())
            self.send_header("Date", self.date_time_string())
            length = None
            for name, value in headers:
                if name.lower() == "content-length":
                    length = value
                else:
                    self.send_header(name, value)
            if self.command == "HEAD" or code < 200 or code in _NO_BODY_STATUSES:
                if length is not None:
                    self.send_header("Content-Length", length)
                body = b""
            else:
                self.send_header("Content-Length", str(len(body)))
            if self.close_connection:  # the client asked to close, or an error: say so
                self.send_header("Connection", "close")
            if self.request_version == "HTTP/0.9":  # no status line nor headers
                self.wfile.write(body)
            else:
                self._headers_buffer.append(b"\r\n" + body)  # headers and body in one write, one segment
                self.flush_headers()
        except (ConnectionError, TimeoutError) as error:
            self.connection_dropped(error, environ)
            self.close_connection = True

    def date_time_string(self, timestamp: float | None = None) -> str:
        """http.server's Date value, formatted once a second (it names whole seconds): its
        `email.utils.formatdate` for every answer was ~2% of the emulator's CPU with webhook events
        at 200/s."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        second = int(time.time())
        kept = _dates[0]
        if kept[0] != second:
            kept = _dates[0] = (second, super().date_time_string(second))
        return kept[1]

    def _body(self, environ: dict[str, Any]) -> bytes:
        """The request's whole body: up to its Content-Length, or a chunked one to its end."""
        if environ.get("wsgi.input_terminated"):
            body: bytes = environ["wsgi.input"].read()
            return body
        length = environ.get("CONTENT_LENGTH", "")
        return self.rfile.read(int(length)) if length.isdigit() and int(length) else b""

    def _answer(self, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
        """The application's status, headers and whole body; werkzeug's 500 on an error (and the
        connection closes after it, as werkzeug's own server does)."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, headers]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        try:
            answer = self.server.app(environ, start_response)
            try:
                chunks.extend(answer)
            finally:
                if hasattr(answer, "close"):
                    answer.close()
        except (ConnectionError, TimeoutError):
            raise
        except Exception:
            self.close_connection = True
            self.server.log("error", "Error on request:\n%s", traceback.format_exc())
            chunks.clear()
            answer = InternalServerError()(environ, start_response)
            chunks.extend(answer)
        return started[0], started[1], b"".join(chunks)


def check_internals() -> None:
    if vars(threaded_moto_server).get(_NAME) not in (MotoRequestHandler, KeepAliveRequestHandler):
        raise RuntimeError(f"moto changed {_NAME}, which devtools/moto_patches/keep_alive.py replaces; review it")
    for name, (find, lines) in _EXPECTED.items():
        source = inspect.getsource(find())
        if not all(line in source for line in lines):
            raise RuntimeError(f"moto or werkzeug changed {name}, which devtools/moto_patches/keep_alive.py relies on")


def install() -> None:
    """Every ThreadedMotoServer this process starts afterwards keeps connections open (idempotent)."""
    check_internals()
    vars(threaded_moto_server)[_NAME] = KeepAliveRequestHandler


def uninstall() -> None:
    vars(threaded_moto_server)[_NAME] = MotoRequestHandler
