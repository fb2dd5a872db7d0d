"""The RFC 5322 message one recipient receives, read back with the standard library's parser."""

from __future__ import annotations

import base64
import email
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest

from postline.delivery.mime import UnbuildableMessage, build_mime
from postline.sending.domain import Attachment, Content, Message
from postline.sending.models import SendRequest
from postline.tracking.domain import LinkMaker

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
UNSUBSCRIBE = "https://api.postline.dev/v3/track/unsubscribe/tok"


def message(**fields: Any) -> Message:
    values: dict[str, Any] = {
        "id": "msg_0001",
        "account_id": "acct_1",
        "key_id": "key_1",
        "test": False,
        "from": "Acme <billing@acme.example>",
        "to": ["ann@example.com", "bob@example.com"],
        "cc": ["cc@example.com"],
        "bcc": ["hidden@example.com"],
        "subject": "Your invoice",
        "headers": {"X-Invoice": "42", "x-campaign": "spring"},
        "created_at": NOW,
    }
    return Message.model_validate({**values, **fields})


def build(
    msg: Message | None = None,
    content: Content | None = None,
    *,
    html: str | None = "<p>Hello</p>",
    text: str | None = "Hello",
    unsubscribe_url: str | None = UNSUBSCRIBE,
) -> bytes:
    return build_mime(
        msg or message(), content or Content(), html=html, text=text, now=NOW, unsubscribe_url=unsubscribe_url
    )


def parse(raw: bytes) -> EmailMessage:
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed


def attachment(filename: str, data: bytes, content_type: str) -> Attachment:
    return Attachment(filename=filename, content=base64.b64encode(data).decode(), content_type=content_type)


# --- headers ------------------------------------------------------------------------------------


def test_from_to_and_cc_are_written() -> None:
    parsed = parse(build())
    assert parsed["From"] == "Acme <billing@acme.example>"
    assert parsed["To"] == "ann@example.com, bob@example.com"
    assert parsed["Cc"] == "cc@example.com"


def test_bcc_never_appears() -> None:
    raw = build()
    assert parse(raw)["Bcc"] is None
    assert b"hidden@example.com" not in raw


def test_no_cc_header_without_cc() -> None:
    assert parse(build(message(cc=[])))["Cc"] is None


def test_subject_date_and_message_ids_are_written() -> None:
    parsed = parse(build())
    assert parsed["Subject"] == "Your invoice"
    assert parsed["Date"].datetime == NOW
    assert parsed["Message-ID"] == "<msg_0001@acme.example>"
    assert parsed["X-Postline-Message-Id"] == "msg_0001"


def test_the_message_id_domain_is_the_sender_domain_lowercased() -> None:
    assert parse(build(message(**{"from": "billing@ACME.Example"})))["Message-ID"] == "<msg_0001@acme.example>"


def test_custom_x_headers_are_stamped() -> None:
    parsed = parse(build())
    assert (parsed["X-Invoice"], parsed["X-Campaign"]) == ("42", "spring")


def test_reply_to_comes_from_the_content() -> None:
    assert parse(build(content=Content(reply_to="Help <help@acme.example>")))["Reply-To"] == "Help <help@acme.example>"
    assert parse(build())["Reply-To"] is None


def test_one_click_unsubscribe_headers_when_there_is_an_unsubscribe_url() -> None:
    parsed = parse(build())
    assert parsed["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert parsed["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_no_unsubscribe_headers_without_an_unsubscribe_url() -> None:
    parsed = parse(build(unsubscribe_url=None))
    assert parsed["List-Unsubscribe"] is None
    assert parsed["List-Unsubscribe-Post"] is None


def test_a_real_unsubscribe_url_is_written_literally() -> None:
    url = LinkMaker("https://api.postline.dev", b"s" * 32).unsubscribe_url(
        "acct_0123456789abcdef", "msg_0123456789abcdef0123", "someone.with.a.long.name@example.com"
    )
    raw = build(unsubscribe_url=url)
    assert parse(raw)["List-Unsubscribe"] == f"<{url}>"  # the default policy decodes encoded-words ...
    undecoded = email.message_from_bytes(raw)  # ... what a client reads does not
    assert "".join(str(undecoded["List-Unsubscribe"]).split()) == f"<{url}>"


def test_non_ascii_subject_round_trips() -> None:
    subject = "Grüße aus Köln — 東京 " * 5
    raw = build(message(subject=subject))
    assert raw.isascii()
    assert parse(raw)["Subject"] == subject


def test_a_non_ascii_display_name_round_trips() -> None:
    stored = SendRequest.model_validate(
        {"from": "José <jose@acme.example>", "to": ["a@example.com"], "subject": "s", "text": "t"}
    ).from_
    assert parse(build(message(**{"from": stored})))["From"] == "José <jose@acme.example>"


# --- bodies -------------------------------------------------------------------------------------


def test_text_and_html_are_alternatives() -> None:
    parsed = parse(build(html="<p>Héllo</p>", text="Héllo"))
    assert parsed.get_content_type() == "multipart/alternative"
    parts = list(parsed.iter_parts())
    assert [part.get_content_type() for part in parts] == ["text/plain", "text/html"]
    assert [part.get_content().strip() for part in parts] == ["Héllo", "<p>Héllo</p>"]


def test_text_only_is_plain_text() -> None:
    parsed = parse(build(html=None, text="Just text"))
    assert parsed.get_content_type() == "text/plain"
    assert parsed.get_content().strip() == "Just text"


def test_html_only_is_html() -> None:
    parsed = parse(build(html="<p>Only html</p>", text=None))
    assert parsed.get_content_type() == "text/html"
    assert parsed.get_content().strip() == "<p>Only html</p>"


def test_the_bodies_are_the_ones_given_not_the_stored_content() -> None:
    parsed = parse(build(content=Content(html="<p>stored</p>", text="stored"), html="<p>sent</p>", text="sent"))
    html = parsed.get_body(preferencelist=("html",))
    assert html is not None
    assert html.get_content().strip() == "<p>sent</p>"


# --- attachments --------------------------------------------------------------------------------


def test_attachments_decode_to_their_input() -> None:
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 40
    csv = "name,city\nJosé,Köln\n".encode()
    content = Content(
        attachments=[attachment("invoice.pdf", pdf, "application/pdf"), attachment("rows.csv", csv, "text/csv")]
    )
    parsed = parse(build(content=content))
    assert parsed.get_content_type() == "multipart/mixed"
    found = [
        (part.get_filename(), part.get_content_type(), part.get_payload(decode=True))
        for part in parsed.iter_attachments()
    ]
    assert found == [("invoice.pdf", "application/pdf", pdf), ("rows.csv", "text/csv", csv)]


def test_attachments_keep_both_bodies() -> None:
    content = Content(attachments=[attachment("a.bin", b"\x00\x01", "application/octet-stream")])
    parsed = parse(build(content=content))
    text, html = parsed.get_body(preferencelist=("plain",)), parsed.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    assert (text.get_content().strip(), html.get_content().strip()) == ("Hello", "<p>Hello</p>")


def test_a_non_ascii_attachment_name_round_trips() -> None:
    content = Content(attachments=[attachment("Rechnung März.pdf", b"%PDF", "application/pdf")])
    (part,) = parse(build(content=content)).iter_attachments()
    assert part.get_filename() == "Rechnung März.pdf"


@pytest.mark.parametrize("char", ["\u2028", "\x00", "\x85", "\r\n"])
@pytest.mark.parametrize(
    "fields",
    [lambda c: {"subject": f"Hi{c}there"}, lambda c: {"headers": {"X-Tag": f"a{c}b"}}],
    ids=["subject", "custom-header"],
)
def test_a_header_the_api_would_refuse_cannot_be_built(fields: Any, char: str) -> None:
    """A message stored before the API checked these (or by a path that skipped it) fails to build
    with the same rule, as a permanent error the dispatcher turns into a failed event."""
    with pytest.raises(UnbuildableMessage, match="U\\+"):
        build(message(**fields(char)))
