"""SMTP submission, the pure part: what a submitted message says (From, Subject, X-Svc-* and custom
X-* headers), the copy that is delivered (without Bcc and X-Svc-*), and the SMTP replies the send
service's errors become. No I/O, no clock reads.

Only the header block is parsed (the standard library's `email` with its default policy): the body
is kept as the client's bytes, never parsed or copied a second time, however large the message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesHeaderParser
from typing import Any

from postline.sending.domain import MAX_RECIPIENTS
from postline.shared.errors import ApiError, ValidationFailed

MAX_MESSAGE_BYTES = 20 * 1024 * 1024  # the interface's 20 MB, advertised as SIZE
RECIPIENT_LIMIT = MAX_RECIPIENTS  # RCPTs a message may have (the API's 1,000 across to/cc/bcc)
AUTH_WINDOW_SECONDS = 60
AUTH_FAILURES_PER_MINUTE = 10  # failed AUTH attempts from one source address (IPv4, or IPv6 /64) a minute
IDLE_TIMEOUT_SECONDS = 300  # RFC 5321 4.5.3.2.7: a server waits 5 minutes for the next command
COMMAND_CALL_LIMIT = 5_000  # per command and connection (aiosmtpd's guard against endless NOOPs and RSETs)
CONNECTION_LEASE_SECONDS = 2 * IDLE_TIMEOUT_SECONDS  # a connection's seat, renewed while it submits
# Bytes of messages being handed to the send service at once, per task: each is copied a few times on
# its way (headers taken out, sealed, JSON), so 20 MB messages on every worker thread would need GBs.
PROCESSING_BUDGET_BYTES = 200 * 1024 * 1024
USERNAME = "api"  # the documented AUTH username: the password (the API key) is what authenticates

TAG = "x-svc-tag"
VARIABLES = "x-svc-variables"
WEBHOOK = "x-svc-webhook"
IDEMPOTENCY_KEY = "x-svc-idempotency-key"
IP_POOL = "x-svc-ip-pool"  # the IP pool to send through (its id or name), as POST /v3/messages' ip_pool
TEMPLATE = "x-svc-template"  # a message to a mailing list's address: each member's copy from this template
SVC_PREFIX = "x-svc-"
_KNOWN_SVC = {TAG, VARIABLES, WEBHOOK, IDEMPOTENCY_KEY, TEMPLATE, IP_POOL}
_DROPPED = {"bcc"}  # never leaves: the envelope says who receives a blind copy
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BARE_LINE_END = re.compile(rb"\r(?!\n)|(?<!\r)\n")


class Refused(Exception):
    """A submission step refused with an SMTP reply (code, enhanced status and text in one line)."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


@dataclass
class Submitted:
    """What one submitted message carries, read from its headers."""

    fields: dict[str, Any]  # From, Subject, tags, custom headers, metadata, webhook_url: MimeSendRequest's
    idempotency_key: str | None
    headers: bytes  # the header block to deliver: Bcc and X-Svc-* taken out, the rest as the client sent it
    raw: bytes  # the message as received (line ends made CRLF)
    body_start: int  # where its body (with the blank line before it) begins in `raw`
    missing: list[str] = field(default_factory=list)  # of Date and Message-ID, those the message lacks

    def copy(self, added: bytes = b"") -> bytes:
        """The copy to deliver, `added` header fields first, built in one go: a 20 MB body is copied once."""
        return b"".join([added, self.headers, memoryview(self.raw)[self.body_start :]])

    @property
    def mime(self) -> bytes:
        return self.copy()


def read_submission(raw: bytes) -> Submitted:
    """Reads a message received over SMTP. Raises ValidationFailed naming what is wrong with its headers.

    SMTP ends lines with CRLF; a bare LF or CR inside the data (smtplib sends bytes as given) becomes
    CRLF, as Postfix does, so the copy relayed on is well-formed. (The end of the data is still only
    CRLF.CRLF: aiosmtpd refuses to end it at a bare LF, so no command can be smuggled in.)"""
    if _BARE_LINE_END.search(raw):  # rare: a copy only then
        raw = _LINE_END.sub(b"\r\n", raw)
    end = raw.find(b"\r\n\r\n")
    body_start = len(raw) if end < 0 else end + 2
    if raw.startswith(b"\r\n"):
        body_start = 0
    header_block = raw[:body_start]
    parsed = BytesHeaderParser(policy=policy.default).parsebytes(header_block)
    if parsed.defects:
        raise ValidationFailed(f"the message's headers are malformed: {parsed.defects[0].__doc__}")
    tags: list[str] = []
    custom: dict[str, str] = {}
    metadata: Any = {}
    webhook: str | None = None
    template_id: str | None = None
    ip_pool: str | None = None
    idempotency_key: str | None = None
    for name, value in parsed.items():
        lower = name.lower()
        text = str(value).strip()
        if lower.startswith(SVC_PREFIX):
            if lower not in _KNOWN_SVC:
                raise ValidationFailed(
                    f"{name}: not a header this service reads (X-Svc-Tag, -Variables, -Webhook, -Idempotency-Key, "
                    "-Template, -Ip-Pool)"
                )
            if lower == TAG:
                tags.append(text)
            elif lower == VARIABLES:
                metadata = _variables(text)
            elif lower == WEBHOOK:
                webhook = text
            elif lower == TEMPLATE:
                template_id = text
            elif lower == IP_POOL:
                ip_pool = text
            else:
                idempotency_key = text
        elif lower.startswith("x-"):
            custom.setdefault(name, text)
    senders = parsed.get_all("From") or []
    if len(senders) != 1:
        raise ValidationFailed("the message needs exactly one From header")
    sender = senders[0]
    if len(getattr(sender, "addresses", ())) != 1:
        raise ValidationFailed("From: give exactly one address")
    fields: dict[str, Any] = {
        "from": str(sender),
        "subject": str(parsed.get("Subject", "")),
        "tags": tags,
        "headers": custom,
        "metadata": metadata,
    }
    if webhook:
        fields["webhook_url"] = webhook
    if template_id:
        fields["template_id"] = template_id
    if ip_pool:
        fields["ip_pool"] = ip_pool
    missing = [name for name in ("Date", "Message-ID") if name not in parsed]
    return Submitted(fields, idempotency_key or None, _without_hidden(header_block), raw, body_start, missing)


def _variables(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ValidationFailed(f"X-Svc-Variables: not JSON ({error})") from error
    if not isinstance(value, dict):
        raise ValidationFailed("X-Svc-Variables: give a JSON object of string values")
    return value


def _without_hidden(header_block: bytes) -> bytes:
    """The header block without Bcc and X-Svc-* fields, each with its folded continuation lines."""
    kept: list[bytes] = []
    keep = True
    for line in header_block.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):  # continues the field above
            if keep:
                kept.append(line)
            continue
        name = line.split(b":", 1)[0].strip().lower().decode("latin-1")
        keep = name not in _DROPPED and not name.startswith(SVC_PREFIX)
        if keep:
            kept.append(line)
    return b"\r\n".join(kept)


def added_headers(missing: list[str], *, date: str, message_id: str) -> bytes:
    """The Date and Message-ID fields a message lacked (RFC 5322 requires both; RFC 6409 8.3 lets a
    submission server add them), to put before its own headers."""
    values = {"Date": date, "Message-ID": message_id}
    return b"".join(f"{name}: {values[name]}\r\n".encode("ascii") for name in missing)


# -- the replies -------------------------------------------------------------------------------

AUTH_OK = "235 2.7.0 Authentication successful"
AUTH_INVALID = "535 5.7.8 Authentication credentials invalid: use your API key as the password"
AUTH_THROTTLED = "421 4.7.0 Too many failed AUTH attempts from your address; try again in a minute"
TOO_MANY_CONNECTIONS = "421 4.7.0 Too many simultaneous connections for this account ({limit}); closing"
TOO_MANY_RECIPIENTS = f"452 4.5.3 Too many recipients: at most {RECIPIENT_LIMIT} a message"
RATE_EXCEEDED = "452 4.7.0 Submission rate of {limit} messages a second exceeded; retry shortly"
TOO_BIG = f"552 5.3.4 Message too big: at most {MAX_MESSAGE_BYTES} bytes"
TEMPORARY = "451 4.3.0 Temporary failure; retry shortly"
BUSY = "451 4.3.1 Too many large messages in progress; retry shortly"


def queued(message_id: str) -> str:
    return f"250 2.0.0 Ok: queued as {message_id}"


def refusal(error: ApiError) -> str:
    """The SMTP reply of an error the send path raised: permanent (5xx) where the API's answer says
    do not retry, temporary (4xx) where it says retry."""
    text = " ".join(error.message.split())
    if error.code == "recipient_limit_exceeded":
        return f"452 4.5.3 {text}"
    if error.status in (401, 403):
        return f"550 5.7.1 {text}"
    if error.status == 429:
        return f"452 4.7.0 {text}"
    if error.status == 409 or error.status >= 500:
        return f"451 4.3.0 {text}"
    return f"550 5.6.0 {text}"


def auth_refusal(error: ApiError) -> str:
    """The AUTH reply of a key the API would refuse: its reason, so a client knows what to fix."""
    return f"535 5.7.8 {' '.join(error.message.split())}"
