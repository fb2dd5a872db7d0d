"""An SMTP message to a list's address is read for its bodies: text and HTML alternatives (encoded
as clients encode them), Reply-To, attachments counted (a list send refuses them), an undecodable
body refused by name."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage

import pytest

from postline.sending.mime_bodies import bodies_of
from postline.shared.errors import ValidationFailed


def _message() -> EmailMessage:
    message = EmailMessage()
    message["From"] = "hello@postline.test"
    message["To"] = "news@lists.example"
    message["Subject"] = "News"
    return message


def test_text_and_html_alternatives_are_decoded_and_reply_to_kept() -> None:
    message = _message()
    message["Reply-To"] = "Desk <desk@postline.test>"
    message.set_content("Grüße, {{ name }}\n", charset="utf-8", cte="quoted-printable")
    message.add_alternative("<p>Grüße</p>", subtype="html", cte="base64")
    bodies = bodies_of(message.as_bytes(policy=policy.SMTP))
    assert (bodies.text, bodies.html) == ("Grüße, {{ name }}\n", "<p>Grüße</p>\n")
    assert (bodies.reply_to, bodies.attachments) == ("Desk <desk@postline.test>", 0)


def test_a_plain_message_has_no_html_and_an_attachment_is_counted() -> None:
    message = _message()
    message.set_content("Hello\n")
    assert (bodies_of(message.as_bytes()).html, bodies_of(message.as_bytes()).attachments) == (None, 0)
    message.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename="a.pdf")
    bodies = bodies_of(message.as_bytes())
    assert (bodies.text, bodies.attachments) == ("Hello\n", 1)


def test_an_unknown_charset_is_refused_by_name() -> None:
    raw = (
        b"From: hello@postline.test\r\nSubject: x\r\nContent-Type: text/plain; charset=x-no-such\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\nHello\r\n"
    )
    with pytest.raises(ValidationFailed, match="text/plain"):
        bodies_of(raw)
