"""The emulator's header parse (devtools/moto_patches/header_lines.py): random header blocks, plain
and otherwise, parse into the message the email parser makes; a server's requests read the same
headers; and the guard."""

from __future__ import annotations

import http.client
import http.server
import io
import random
import threading
from typing import Any

import pytest

from devtools.moto_patches import header_lines

NAME_CHARS = [chr(c) for c in range(0o41, 0o177) if c != 0o72]  # RFC 5322's ftext


def _line(rng: random.Random) -> bytes:
    name = "".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 20)))
    value = "".join(rng.choice("abc XYZ\t09-_=/;:\xe9\xff") for _ in range(rng.randint(0, 30)))
    odd = rng.random()
    if odd < 0.04:
        return f" folded {value}\r\n".encode("latin-1")  # a continuation of the line before
    if odd < 0.06:
        return f"{name} {value}\r\n".encode("latin-1")  # no colon
    if odd < 0.08:
        return f"{name}: a\rb\r\n".encode("latin-1")  # a bare CR
    if odd < 0.10:
        return f"From {value}\r\n".encode("latin-1")
    if odd < 0.12:
        return f":{value}\r\n".encode("latin-1")  # an empty name
    space, end = rng.choice(["", " ", "  ", "\t"]), rng.choice(["\r\n", "\n"])
    return f"{name}:{space}{value}{end}".encode("latin-1")


def _block(rng: random.Random) -> bytes:
    lines = b"".join(_line(rng) for _ in range(rng.randint(0, 12)))
    return lines + (rng.choice([b"\r\n", b"\n", b""]) if rng.random() < 0.1 else b"\r\n") + b"body bytes"


def _state(message: Any) -> tuple[type, dict[str, Any]]:
    """The message's class and attributes (a defect compares by identity: by class and text here)."""
    return type(message), {**vars(message), "defects": [repr(defect) for defect in message.defects]}


def test_random_header_blocks_parse_as_the_email_parser_parses_them() -> None:
    rng = random.Random(2026)
    for _ in range(3_000):
        block = _block(rng)
        header_lines.uninstall()
        stream = io.BytesIO(block)
        theirs = http.client.parse_headers(stream)
        left = stream.read()
        with header_lines.installed():
            stream = io.BytesIO(block)
            ours = http.client.parse_headers(stream)
            assert stream.read() == left, block
        assert _state(ours) == _state(theirs), block
        assert ours.items() == theirs.items()


def test_a_request_handler_reads_the_same_headers() -> None:
    seen: list[list[tuple[str, str]]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers.items())
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with header_lines.installed():
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
            connection.request("POST", "/", body=b"{}", headers={"X-Amz-Target": "DynamoDB_20120810.GetItem"})
            response = connection.getresponse()
            assert (response.status, response.read(), response.headers["Content-Length"]) == (200, b"{}", "2")
            connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert ("X-Amz-Target", "DynamoDB_20120810.GetItem") in seen[0]
    assert ("Content-Length", "2") in seen[0]


def test_guard_refuses_changed_source(monkeypatch: pytest.MonkeyPatch) -> None:
    header_lines.check_internals()

    def changed(fp: Any, _class: Any = http.client.HTTPMessage) -> Any:
        return _class()

    monkeypatch.setattr(http.client, "parse_headers", changed)
    with pytest.raises(RuntimeError, match=r"Python changed http\.client\.parse_headers"):
        header_lines.check_internals()
