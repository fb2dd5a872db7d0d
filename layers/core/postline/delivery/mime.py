"""Builds the RFC 5322 message one recipient receives: headers, alternative bodies, attachments."""

from __future__ import annotations

import base64
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime

from postline.sending.domain import Content, Message
from postline.shared.addresses import domain_of
from postline.shared.header_text import header_text_problem

MESSAGE_ID_HEADER = "X-Postline-Message-Id"
# SMTP's line endings, but headers folded only past RFC 5322's hard limit: at the default 78 the
# email package turns a long List-Unsubscribe URL into encoded-words no mail client can click.
_POLICY = policy.SMTP.clone(max_line_length=998)


class UnbuildableMessage(ValueError):
    """The stored message cannot become an email (a header the API should have refused): building it
    again fails the same way, so the dispatcher fails the recipient instead of retrying."""


class _CheckedHeaders(EmailMessage):
    """Every header value passes the API's rule (shared/header_text.py) before it is set."""

    def __setitem__(self, name: str, value: str) -> None:
        problem = header_text_problem(str(value))
        if problem is not None:
            raise UnbuildableMessage(f"header {name}: {problem}")
        super().__setitem__(name, value)


def build_mime(
    message: Message,
    content: Content,
    *,
    html: str | None,
    text: str | None,
    now: datetime,
    unsubscribe_url: str | None,
) -> bytes:
    """`html` and `text` are the bodies as sent (tracking already applied); bcc never appears."""
    email = _CheckedHeaders(policy=_POLICY)
    email["From"] = message.from_
    email["To"] = ", ".join(message.to)
    if message.cc:
        email["Cc"] = ", ".join(message.cc)
    if content.reply_to:
        email["Reply-To"] = content.reply_to
    email["Subject"] = message.subject
    email["Date"] = format_datetime(now)
    email["Message-ID"] = f"<{message.id}@{domain_of(message.from_)}>"
    email[MESSAGE_ID_HEADER] = message.id
    for name, value in message.headers.items():
        email[name] = value
    if unsubscribe_url:
        # RFC 8058 one-click: mail clients POST "List-Unsubscribe=One-Click" to the URL.
        email["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        email["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"

    if text is not None:
        email.set_content(text)
        if html is not None:
            email.add_alternative(html, subtype="html")
    elif html is not None:
        email.set_content(html, subtype="html")
    for attachment in content.attachments:
        maintype, _, subtype = attachment.content_type.partition("/")
        email.add_attachment(
            base64.b64decode(attachment.content), maintype=maintype, subtype=subtype, filename=attachment.filename
        )
    return email.as_bytes()


def submitted_copy(message: Message, raw: bytes, *, unsubscribe_url: str | None) -> bytes:
    """A message submitted over SMTP as one recipient receives it: the submission's own bytes (Bcc and
    X-Svc-* were taken out at intake, which also added a Date and Message-ID where it lacked them),
    after the headers the service adds: our message id and the RFC 8058 one-click unsubscribe."""
    added = [f"{MESSAGE_ID_HEADER}: {message.id}"]
    if unsubscribe_url:
        added += [f"List-Unsubscribe: <{unsubscribe_url}>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
    for line in added:
        problem = header_text_problem(line)
        if problem is not None:
            raise UnbuildableMessage(f"header {line.split(':', 1)[0]}: {problem}")
    return "".join(f"{line}\r\n" for line in added).encode("ascii") + raw
