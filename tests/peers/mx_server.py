"""A real SMTP server on loopback playing a recipient domain's MX (aiosmtpd), replying by local part.

    with MxServer(starttls=True) as mx:
        ...deliver to mx.port...
        [received] = mx.messages

Replies to RCPT TO, decided by the recipient's local part before any "+tag":
    tempfail-once  451 4.7.1 the first time that exact address is tried, then 250 (greylisting)
    tempfail       451 4.3.0 always
    reject, bounce 550 5.1.1 user unknown
    full           552 5.2.2 mailbox full
    spam           250 to RCPT, then 554 5.7.1 at the end of DATA
    anything else  250

With starttls=True the server offers STARTTLS with a self-signed certificate made at start; each
received message records whether its session was encrypted. With smtputf8=True it offers SMTPUTF8
(RFC 6531) and takes addresses with non-ASCII local parts.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import ipaddress
import ssl
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from aiosmtpd.controller import Controller
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Received:
    mail_from: str
    rcpt_tos: list[str]  # as given in RCPT TO
    smtputf8: bool  # MAIL FROM asked for SMTPUTF8
    raw: bytes  # the message as it came over the wire, dot-unstuffed
    tls: bool  # the session had switched to TLS (STARTTLS) before MAIL FROM
    helo: str | None  # the name the client gave in EHLO/HELO
    peer: str | None = None  # the client's address: the source address it bound


@dataclass(frozen=True)
class RcptReply:
    address: str
    reply: str


def _reply_for(local_part: str) -> str | None:
    """The RCPT reply for a recipient, None to accept it; tempfail-once is the server's to decide."""
    return {
        "tempfail": "451 4.3.0 Temporary local problem, try again later",
        "reject": "550 5.1.1 Recipient address rejected: user unknown",
        "bounce": "550 5.1.1 Recipient address rejected: user unknown",
        "full": "552 5.2.2 Mailbox full",
    }.get(local_part)


def _local_part(address: str) -> str:
    return address.partition("@")[0].lower().partition("+")[0]


@functools.cache
def tls_context() -> ssl.SSLContext:
    """A server context with a self-signed certificate for localhost and 127.0.0.1 (made once)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    with tempfile.TemporaryDirectory() as directory:  # load_cert_chain only reads files
        cert_file, key_file = Path(directory, "cert.pem"), Path(directory, "key.pem")
        cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        context.load_cert_chain(cert_file, key_file)
    return context


class _LoopbackController(Controller):
    def _trigger_server(self) -> None:
        # Port 0 lets the OS choose; learn its choice before aiosmtpd connects to itself.
        server = cast(asyncio.Server, self.server)
        self.port = server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]  # aiosmtpd leaves it unannotated


class MxServer:
    def __init__(self, *, starttls: bool = False, smtputf8: bool = False, tls: ssl.SSLContext | None = None) -> None:
        """tls: the STARTTLS context (a certificate a test CA issued); starttls alone: a self-signed one."""
        options: dict[str, Any] = {"enable_SMTPUTF8": smtputf8}
        if starttls or tls is not None:
            options |= {"tls_context": tls or tls_context(), "require_starttls": False}
        # server_hostname: without it aiosmtpd asks DNS for this machine's FQDN, slow offline.
        self._controller = _LoopbackController(self, hostname=HOST, port=0, server_hostname="localhost", **options)
        self._lock = threading.Lock()
        self._messages: list[Received] = []
        self._rcpt_replies: list[RcptReply] = []
        self._greylisted: set[str] = set()

    @property
    def port(self) -> int:
        port: int = self._controller.port
        return port

    @property
    def messages(self) -> list[Received]:
        with self._lock:
            return list(self._messages)

    @property
    def rcpt_replies(self) -> list[RcptReply]:
        """Every RCPT TO in order, with the reply it got."""
        with self._lock:
            return list(self._rcpt_replies)

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def __enter__(self) -> MxServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def _decide(self, address: str) -> str | None:
        local_part = _local_part(address)
        if local_part == "tempfail-once":
            with self._lock:
                first = address.lower() not in self._greylisted
                self._greylisted.add(address.lower())
            return "451 4.7.1 Greylisted, try again later" if first else None
        return _reply_for(local_part)

    # aiosmtpd's hook names and signatures
    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        reply = self._decide(address)
        if reply is None:
            envelope.rcpt_tos.append(address)
            reply = "250 2.1.5 OK"
        with self._lock:
            self._rcpt_replies.append(RcptReply(address, reply))
        return reply

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if any(_local_part(rcpt) == "spam" for rcpt in envelope.rcpt_tos):
            return "554 5.7.1 Message rejected as spam"
        raw: bytes = envelope.original_content or envelope.content
        received = Received(
            mail_from=envelope.mail_from,
            rcpt_tos=list(envelope.rcpt_tos),
            smtputf8=envelope.smtp_utf8,
            raw=raw,
            tls=session.ssl is not None,
            helo=session.host_name,
            peer=session.peer[0] if session.peer else None,
        )
        with self._lock:
            self._messages.append(received)
            queue_id = f"{len(self._messages):06d}"
        return f"250 2.0.0 OK: queued as {queue_id}"
