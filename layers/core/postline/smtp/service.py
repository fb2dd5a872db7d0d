"""SMTP submission, the use cases: AUTH with an API key, a connection's seat, a message's rate slot,
and a message handed to the send service. Each answers the SMTP reply to give.

The key is checked by the API's own authenticator (`Authenticator.authenticate` then `authorize` with
POST /v3/messages' rule): revoked or unknown, account suspended or deleted, IP allowlist (the client's
address), scope. Every message checks it again, as the API checks every request, so a key revoked or
an account suspended mid-session sends nothing more. The message itself goes through
`SendService.send_mime`: the operator's hold, quotas, suppressions, domain and sandbox screening,
storage, events and the per-message webhook, exactly as POST /v3/messages.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from email.utils import format_datetime, make_msgid

from pydantic import ValidationError

from postline.auth import ratelimit
from postline.auth.service import Authenticator, RouteRule
from postline.keys.identity import Principal
from postline.lists.sends import ListSendResult
from postline.sending.domain import IdempotentCall
from postline.sending.models import MimeSendRequest
from postline.sending.service import SendService
from postline.shared.addresses import domain_of
from postline.shared.errors import ApiError, Unauthorized, ValidationFailed
from postline.shared.ports import Clock
from postline.smtp import domain as d
from postline.smtp.ports import SubmissionCounters

IDEMPOTENT_CLAIM_SECONDS = 60  # an X-Svc-Idempotency-Key's in-progress claim outlives a submission that died
# Which header each field of MimeSendRequest came from, to name it in a refusal.
_HEADER_OF = {
    "from": "From",
    "subject": "Subject",
    "tags": "X-Svc-Tag",
    "headers": "X-* header",
    "metadata": "X-Svc-Variables",
    "webhook_url": "X-Svc-Webhook",
    "template_id": "X-Svc-Template",
    "ip_pool": "X-Svc-Ip-Pool",
    "recipients": "RCPT TO",
}


@dataclass(frozen=True)
class Login:
    """The outcome of AUTH: who (None when refused), the reply, and whether to close the connection."""

    principal: Principal | None
    reply: str
    close: bool = False


class SubmissionService:
    def __init__(
        self,
        *,
        authenticator: Authenticator,
        sender: SendService,
        rule: RouteRule,
        counters: SubmissionCounters,
        clock: Clock,
        auth_failures_per_minute: int = d.AUTH_FAILURES_PER_MINUTE,
    ) -> None:
        self._auth = authenticator
        self._sender = sender
        self._counters = counters
        self._clock = clock
        self._auth_failures_per_minute = auth_failures_per_minute
        self._rule = rule  # POST /v3/messages' scope rule

    def login(self, password: str, source_ip: str | None) -> Login:
        """AUTH PLAIN or LOGIN: the password is an API key (any username; `api` is documented)."""
        now = int(self._clock.now().timestamp())
        window = now - now % d.AUTH_WINDOW_SECONDS
        source = ratelimit.source_key(source_ip)
        if self._counters.auth_failures(source, window) >= self._auth_failures_per_minute:
            return Login(None, d.AUTH_THROTTLED, close=True)
        try:
            principal = self._admit(password, source_ip)
        except Unauthorized:
            self._counters.count_auth_failure(source, window)
            return Login(None, d.AUTH_INVALID)
        except ApiError as error:  # a real key the API would refuse here: say why
            return Login(None, d.auth_refusal(error))
        self._auth.touch(principal)
        return Login(principal, d.AUTH_OK)

    def open(self, principal: Principal, connection_id: str) -> str | None:
        """Takes one of the account's connection seats; the 421 reply when all are held."""
        limit = principal.account.limits.smtp_connections
        now = int(self._clock.now().timestamp())
        taken = self._counters.take_seat(
            principal.account.id, connection_id, limit=limit, now=now, until=now + d.CONNECTION_LEASE_SECONDS
        )
        return None if taken else d.TOO_MANY_CONNECTIONS.format(limit=limit)

    def renew(self, principal: Principal, connection_id: str) -> None:
        now = int(self._clock.now().timestamp())
        self._counters.renew_seat(principal.account.id, connection_id, until=now + d.CONNECTION_LEASE_SECONDS)

    def close(self, principal: Principal, connection_id: str) -> None:
        self._counters.leave_seat(principal.account.id, connection_id)

    def start_message(self, principal: Principal) -> str | None:
        """MAIL FROM: counts the message in the account's one-second window; 452 4.7.0 past the plan's rate."""
        second = int(self._clock.now().timestamp())
        limit = principal.account.limits.smtp_submissions_per_second
        used = self._counters.count_submission(principal.account.id, second)
        return None if used <= limit else d.RATE_EXCEEDED.format(limit=limit)

    def submit(self, password: str, source_ip: str | None, recipients: list[str], raw: bytes) -> str:
        """DATA: the key checked again, the message read, then the send service; the reply to give."""
        try:
            principal = self._admit(password, source_ip)
            submitted = d.read_submission(raw)
            request = self._request(submitted, recipients)
            idempotent = _idempotent(submitted.idempotency_key, recipients, raw)
            accepted = self._sender.send_mime(principal, request, idempotent)
        except ApiError as error:
            return d.refusal(error)
        if isinstance(accepted, ListSendResult):  # to a list's address: GET /v3/lists/{address}/sends/{id}
            return d.queued(accepted.list_send_id)
        return d.queued(accepted.id)

    def _admit(self, password: str, source_ip: str | None) -> Principal:
        principal = self._auth.authenticate(f"Bearer {password}", source_ip)
        self._auth.authorize(principal, self._rule)
        return principal

    def _request(self, submitted: d.Submitted, recipients: list[str]) -> MimeSendRequest:
        try:
            request = MimeSendRequest.model_validate({**submitted.fields, "recipients": recipients, "mime": b""})
        except ValidationError as error:
            first = error.errors()[0]
            where = _HEADER_OF.get(str(first["loc"][0]), str(first["loc"][0])) if first["loc"] else "the message"
            text = str(first["msg"]).removeprefix("Value error, ")
            raise ValidationFailed(f"{where}: {text}") from error
        added = d.added_headers(
            submitted.missing,
            date=format_datetime(self._clock.now()),
            message_id=make_msgid(domain=domain_of(request.from_)),
        )
        request.mime = submitted.copy(added)
        return request


def _idempotent(key: str | None, recipients: list[str], raw: bytes) -> IdempotentCall | None:
    """X-Svc-Idempotency-Key: a resubmission of the same message to the same recipients (say after the
    connection dropped before the reply) returns the first answer; the key with another message is a 550."""
    if key is None:
        return None
    deadline = time.monotonic() + IDEMPOTENT_CLAIM_SECONDS
    body = {"recipients": recipients, "sha256": hashlib.sha256(raw).hexdigest()}
    return IdempotentCall(key, body, lambda: max(0, int((deadline - time.monotonic()) * 1000)))
