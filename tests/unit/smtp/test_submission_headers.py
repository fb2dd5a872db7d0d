"""What a message submitted over SMTP says, and the copy that is delivered (postline/smtp/domain.py)."""

from __future__ import annotations

import tracemalloc

import pytest

from postline.sending.domain import RecipientLimitExceeded
from postline.shared.errors import ApiError, Forbidden, RateLimited, ServiceUnavailable, Unauthorized, ValidationFailed
from postline.smtp.domain import added_headers, read_submission, refusal

BODY = b"Hello.\r\n.. a dot-stuffed line stays as it came\r\n"


def message(*headers: str, body: bytes = BODY) -> bytes:
    return "".join(f"{header}\r\n" for header in headers).encode() + b"\r\n" + body


def test_svc_headers_become_fields_and_leave_the_copy_with_bcc() -> None:
    submitted = read_submission(
        message(
            "From: Acme <hello@acme.example>",
            "To: a@example.com",
            "Bcc: hidden@example.com,",
            " other-hidden@example.com",
            "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=",
            "X-Svc-Tag: one",
            "x-svc-tag: two",
            'X-Svc-Variables: {"order": "A-1"}',
            "X-Svc-Webhook: https://hooks.example/in",
            "X-Svc-Idempotency-Key: k-1",
            "X-Campaign: spring",
            "X-Mailer: tests",
        )
    )
    assert submitted.fields == {
        "from": "Acme <hello@acme.example>",
        "subject": "Grüße",
        "tags": ["one", "two"],
        "headers": {"X-Campaign": "spring", "X-Mailer": "tests"},
        "metadata": {"order": "A-1"},
        "webhook_url": "https://hooks.example/in",
    }
    assert submitted.idempotency_key == "k-1"
    assert submitted.missing == ["Date", "Message-ID"]
    header_block, body = submitted.mime.split(b"\r\n\r\n", 1)
    assert header_block.split(b"\r\n") == [
        b"From: Acme <hello@acme.example>",
        b"To: a@example.com",
        b"Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=",
        b"X-Campaign: spring",
        b"X-Mailer: tests",
    ]
    assert body == BODY


def test_bare_line_ends_become_crlf_and_the_body_is_otherwise_untouched() -> None:
    raw = b"From: a@acme.example\nSubject: s\nDate: x\nMessage-ID: <1@a>\n\nline\rnext\n\xff\xfe binary\r\n"
    submitted = read_submission(raw)
    assert submitted.mime == (
        b"From: a@acme.example\r\nSubject: s\r\nDate: x\r\nMessage-ID: <1@a>\r\n\r\nline\r\nnext\r\n\xff\xfe binary\r\n"
    )
    assert submitted.missing == []


@pytest.mark.parametrize(
    ("headers", "problem"),
    [
        (("To: a@example.com",), "exactly one From"),
        (("From: a@acme.example", "From: b@acme.example"), "exactly one From"),
        (("From: a@acme.example, b@acme.example",), "exactly one address"),
        (("From: a@acme.example", "X-Svc-Variables: {nope"), "X-Svc-Variables: not JSON"),
        (("From: a@acme.example", "X-Svc-Variables: [1]"), "JSON object"),
        (("From: a@acme.example", "X-Svc-Priority: high"), "X-Svc-Priority: not a header"),
    ],
)
def test_headers_the_service_cannot_use_are_refused_by_name(headers: tuple[str, ...], problem: str) -> None:
    with pytest.raises(ValidationFailed, match=problem):
        read_submission(message(*headers))


def test_a_message_without_a_body_keeps_its_headers() -> None:
    submitted = read_submission(b"From: a@acme.example\r\nBcc: x@example.com\r\nSubject: only headers\r\n")
    assert submitted.mime == b"From: a@acme.example\r\nSubject: only headers\r\n"


def test_a_large_message_is_read_and_copied_once() -> None:
    """Only the header block is parsed; the body goes into the delivered copy in one join, so reading
    a 19 MB message allocates about one message's size, never two."""
    line = b"x" * 76 + b"\r\n"
    raw = message("From: a@acme.example", "Bcc: b@example.com", "X-Svc-Tag: t", body=line * (19 * 2**20 // len(line)))
    tracemalloc.start()
    try:
        copy = read_submission(raw).copy(b"Date: D\r\n")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert copy.startswith(b"Date: D\r\nFrom: a@acme.example\r\n\r\n") and copy.endswith(line)
    assert len(raw) < peak < 1.1 * len(raw)


def test_date_and_message_id_are_added_only_where_missing() -> None:
    assert added_headers(["Message-ID"], date="D", message_id="<m@acme.example>") == b"Message-ID: <m@acme.example>\r\n"
    assert added_headers([], date="D", message_id="<m>") == b""


@pytest.mark.parametrize(
    ("error", "reply"),
    [
        (ValidationFailed("subject: too long"), "550 5.6.0 subject: too long"),
        (RecipientLimitExceeded("1001 recipients"), "452 4.5.3 1001 recipients"),
        (Unauthorized("Invalid or revoked API key."), "550 5.7.1 Invalid or revoked API key."),
        (Forbidden("suspended", code="account_suspended"), "550 5.7.1 suspended"),
        (RateLimited("quota\nreached", code="rate_limit_exceeded"), "452 4.7.0 quota reached"),
        (ServiceUnavailable("paused", code="sending_paused"), "451 4.3.0 paused"),
        (ApiError("odd"), "550 5.6.0 odd"),
    ],
)
def test_send_errors_become_permanent_or_temporary_replies(error: ApiError, reply: str) -> None:
    assert refusal(error) == reply
