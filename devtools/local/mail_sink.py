"""The local outbound mail sink: an SMTP server on loopback that keeps what it receives in memory.

Outbound mail reaches it through the same SMTP transport as production: the runtime points the
SmtpRelay parameter here unless told otherwise. `GET /_local/mailbox` shows it.
"""

from __future__ import annotations

import threading
from email import policy
from email.parser import BytesHeaderParser
from typing import Any

from postline.smtp.server import FreePortController

DEFAULT_PORT = 1025
HOST = "127.0.0.1"


class MailSink:
    def __init__(self, port: int = DEFAULT_PORT) -> None:
        # server_hostname: without it aiosmtpd asks DNS for this machine's FQDN, slow offline.
        self._controller = FreePortController(self, hostname=HOST, port=port, server_hostname="localhost")
        self._messages: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        port: int = self._controller.port
        return port

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def messages(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages.clear()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook name
        raw: bytes = envelope.original_content or envelope.content
        parsed = BytesHeaderParser(policy=policy.default).parsebytes(raw)
        headers: dict[str, str] = {}
        for name, value in parsed.items():
            headers.setdefault(name, str(value))  # the first of repeated headers (e.g. Received) is the newest
        with self._lock:
            self._messages.append(
                {
                    "mail_from": envelope.mail_from,
                    "rcpt_tos": list(envelope.rcpt_tos),
                    "peer": session.peer[0] if session.peer else None,  # the source address (IP pools)
                    "headers": headers,
                    "raw": raw.decode("utf-8", errors="replace"),
                }
            )
        return "250 Message accepted for delivery"
