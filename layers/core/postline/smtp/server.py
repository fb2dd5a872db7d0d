"""The SMTP submission server: aiosmtpd on its own event loop thread, in front of SubmissionService.

aiosmtpd speaks the protocol (EHLO, STARTTLS, AUTH, SIZE, line length, the end-of-data rule that
refuses bare LF/CR smuggling since 1.4.5, the idle timeout and per-command call limits); the hooks
here decide: AUTH checks the API key, MAIL counts the rate, RCPT caps the recipients, DATA submits.
The service is synchronous (boto3), so each of its calls runs on a worker thread, never on the
event loop. AUTH requires TLS (STARTTLS, or the implicit TLS of port 465), except from loopback
when `trust_loopback` (the embedded runtime, where TLS is optional).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import ssl
import time
import uuid
from base64 import b64decode
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar, cast

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import MISSING, SMTP, AuthResult, Envelope, LoginPassword, Session

from postline.keys.identity import Principal
from postline.smtp import domain as d
from postline.smtp.service import SubmissionService

logger = logging.getLogger(__name__)


class _QuietLoginData(logging.Filter):
    """aiosmtpd 1.4 warns that Session.login_data is deprecated on every successful AUTH (it sets it
    itself): one warning line per login says nothing to an operator."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "login_data is deprecated" not in record.getMessage()


logging.getLogger("mail.log").addFilter(_QuietLoginData())
T = TypeVar("T")
WORKER_THREADS = 32  # blocking calls in flight at once (each a few DynamoDB/KMS/SQS calls)


class SubmissionServer:
    """start()/stop(); `port` once started. `service` builds the service for each call (on a worker
    thread, inside `scope()`: the embedded runtime holds it to the task's declared settings)."""

    def __init__(
        self,
        service: Callable[[], SubmissionService],
        *,
        host: str = "127.0.0.1",
        port: int = 2525,
        tls: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        hostname: str = "localhost",
        trust_loopback: bool = False,
        scope: Callable[[], AbstractContextManager[Any]] = nullcontext,
        idle_timeout: float = d.IDLE_TIMEOUT_SECONDS,
        command_call_limit: int = d.COMMAND_CALL_LIMIT,
        processing_budget: int = d.PROCESSING_BUDGET_BYTES,
    ) -> None:
        self._service = service
        self.processing_budget = processing_budget
        self.processing = 0  # bytes of messages handed to the service now (read and written on the event loop)
        self._scope = scope
        self._pool = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="smtp-submission")
        self.trust_loopback = trust_loopback
        self._controller = _Controller(
            _Hooks(self),
            submission=self,
            hostname=host,
            port=port,
            server_hostname=hostname,
            ssl_context=tls if implicit_tls else None,
            tls_context=None if implicit_tls else tls,
            data_size_limit=d.MAX_MESSAGE_BYTES,
            auth_required=True,
            auth_require_tls=not implicit_tls,
            timeout=idle_timeout,
            command_call_limit=command_call_limit,
            ident="Postline submission",
        )

    @property
    def port(self) -> int:
        port: int = self._controller.port
        return port

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()
        self._pool.shutdown(wait=True)

    async def call(self, work: Callable[[SubmissionService], T]) -> T:
        """`work` with the service, on a worker thread."""

        def run() -> T:
            with self._scope():
                return work(self._service())

        return await asyncio.get_running_loop().run_in_executor(self._pool, run)

    def in_background(self, work: Callable[[SubmissionService], object]) -> None:
        """`work` with the service on a worker thread, not waited for (stop() still waits for it)."""

        def run() -> None:
            try:
                with self._scope():
                    work(self._service())
            except Exception:
                logger.exception("background submission work failed")

        try:
            self._pool.submit(run)
        except RuntimeError:  # stopped meanwhile: a seat not left frees itself when its lease runs out
            logger.warning("the submission server is stopping; a connection seat is left to its lease")


class FreePortController(Controller):
    """aiosmtpd's threaded controller, which may listen on port 0 (the OS picks a free port)."""

    def _trigger_server(self) -> None:
        # Learn the OS's choice before aiosmtpd connects to itself to check the server is up.
        server = cast(asyncio.Server, self.server)
        self.port = server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]  # aiosmtpd leaves it unannotated


class _Controller(FreePortController):
    def __init__(self, handler: Any, *, submission: SubmissionServer, **kwargs: Any) -> None:
        self._submission = submission
        super().__init__(handler, **kwargs)

    def factory(self) -> SMTP:
        return _Submission(self.handler, self._submission, **self.SMTP_kwargs)


class _Submission(SMTP):
    """One connection: aiosmtpd's protocol plus who authenticated and the seat they hold."""

    def __init__(self, handler: Any, submission: SubmissionServer, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.submission = submission
        self.connection_id = uuid.uuid4().hex
        self.principal: Principal | None = None
        self.password = ""
        self.seat_renewed_at = 0.0  # time.monotonic() of the seat's lease, taken or renewed

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        after_starttls = self._original_transport is not None
        super().connection_made(transport)
        if after_starttls:
            self._leave()  # RFC 3207: everything said before STARTTLS is forgotten, AUTH included
        elif self.submission.trust_loopback and _loopback(self.session.peer if self.session else None):
            self._auth_require_tls = False

    def connection_lost(self, error: Exception | None) -> None:
        super().connection_lost(error)
        self._leave()

    @property
    def source_ip(self) -> str | None:
        peer = self.session.peer if self.session else None
        return str(peer[0]) if isinstance(peer, tuple) else None

    def _leave(self) -> None:
        principal, self.principal = self.principal, None
        if principal is not None:
            connection = self.connection_id
            self.submission.in_background(lambda service: service.close(principal, connection))

    # AUTH PLAIN and LOGIN as aiosmtpd's own (RFC 4616, and the LOGIN draft), but the credentials are
    # checked on a worker thread: aiosmtpd's `authenticator` callback would block the event loop.
    async def auth_PLAIN(self, _: Any, args: list[str]) -> AuthResult:
        if len(args) == 1:
            blob = await self.challenge_auth("")
            if blob is MISSING:
                return AuthResult(success=False)
        else:
            try:
                blob = b64decode(args[1].encode(), validate=True)
            except ValueError:
                await self.push("501 5.5.2 Can't decode base64")
                return AuthResult(success=False, handled=True)
        try:
            _, login, password = blob.split(b"\x00")
        except ValueError:
            await self.push("501 5.5.2 Can't split auth value")
            return AuthResult(success=False, handled=True)
        return await self._login(LoginPassword(login, password))

    async def auth_LOGIN(self, _: Any, args: list[str]) -> AuthResult:
        if len(args) == 1:
            login = await self.challenge_auth(self.AuthLoginUsernameChallenge)
            if login is MISSING:
                return AuthResult(success=False)
        else:
            try:
                login = b64decode(args[1].encode(), validate=True)
            except ValueError:
                await self.push("501 5.5.2 Can't decode base64")
                return AuthResult(success=False, handled=True)
        password = await self.challenge_auth(self.AuthLoginPasswordChallenge)
        if password is MISSING:
            return AuthResult(success=False)
        return await self._login(LoginPassword(login, password))

    async def _login(self, credentials: LoginPassword) -> AuthResult:
        password = credentials.password.decode("utf-8", errors="replace")
        source_ip = self.source_ip
        login = await self.submission.call(lambda service: service.login(password, source_ip))
        refusal, close = login.reply, login.close
        if login.principal is not None:
            principal, connection = login.principal, self.connection_id
            seat_refusal = await self.submission.call(lambda service: service.open(principal, connection))
            if seat_refusal is None:
                self.principal, self.password = principal, password
                self.seat_renewed_at = time.monotonic()
                return AuthResult(success=True, auth_data=credentials)
            refusal, close = seat_refusal, True
        await self.push(refusal)
        if close and self.transport is not None:
            self.transport.close()
        return AuthResult(success=False, handled=True)


class _Hooks:
    """aiosmtpd's handler: MAIL counts the account's rate, RCPT caps recipients, DATA submits."""

    def __init__(self, submission: SubmissionServer) -> None:
        self._submission = submission

    async def handle_exception(self, error: Exception) -> str:
        """Anything a hook raised (the store unreachable, say): logged, and a temporary reply that
        tells the client nothing of it (aiosmtpd's own would quote the exception)."""
        logger.error("a submission hook failed", exc_info=error)
        return d.TEMPORARY

    async def handle_MAIL(
        self, server: _Submission, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        principal = server.principal
        if principal is None:  # aiosmtpd's auth_required answers first; kept for safety
            return "530 5.7.0 Authentication required"
        refusal = await self._submission.call(lambda service: service.start_message(principal))
        if refusal is not None:
            return refusal
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 2.1.0 OK"

    async def handle_RCPT(
        self, server: _Submission, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if len(envelope.rcpt_tos) >= d.RECIPIENT_LIMIT:
            return d.TOO_MANY_RECIPIENTS
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: _Submission, session: Session, envelope: Envelope) -> str:
        principal, password, source_ip = server.principal, server.password, server.source_ip
        if principal is None:
            return "530 5.7.0 Authentication required"
        raw = envelope.original_content or b""
        recipients = list(envelope.rcpt_tos)
        connection = server.connection_id
        renew = time.monotonic() - server.seat_renewed_at > d.CONNECTION_LEASE_SECONDS / 2
        if renew:  # a busy connection keeps its seat: renewed once half its lease is gone, not per message
            server.seat_renewed_at = time.monotonic()

        def submit(service: SubmissionService) -> str:
            reply = service.submit(password, source_ip, recipients, raw)
            if renew:
                service.renew(principal, connection)
            return reply

        submission = self._submission
        if submission.processing and submission.processing + len(raw) > submission.processing_budget:
            return d.BUSY  # one message always goes through, however large: the budget bounds the rest
        submission.processing += len(raw)
        try:
            return await submission.call(submit)
        except Exception:
            logger.exception("submission failed")
            return d.TEMPORARY
        finally:
            submission.processing -= len(raw)


def _loopback(peer: Any) -> bool:
    try:
        return isinstance(peer, tuple) and ipaddress.ip_address(peer[0]).is_loopback
    except ValueError:
        return False
