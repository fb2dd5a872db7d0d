"""The bodies of a message submitted over SMTP whose recipient is a mailing list's address.

A list send makes each member's copy as an API send's (lists/sends.py): the subject and bodies are
rendered with the member's variables, so `{{ name }}` in them is personalized. Such a message is
therefore read, not relayed as submitted: its text/plain and text/html bodies (the first of each
that is not an attachment), its Reply-To, and how many attachments it has (a list send takes
none, as over the API). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser

from postline.shared.errors import ValidationFailed


@dataclass(frozen=True)
class MimeBodies:
    text: str | None
    html: str | None
    reply_to: str | None
    attachments: int


def bodies_of(mime: bytes) -> MimeBodies:
    """Raises ValidationFailed when a body cannot be decoded (an unknown charset, say)."""
    message = BytesParser(policy=policy.default).parsebytes(mime)
    if not isinstance(message, EmailMessage):  # what policy.default makes: never otherwise
        raise ValidationFailed("the message could not be read")
    attachments = sum(1 for _ in message.iter_attachments()) if message.is_multipart() else 0
    reply_to = message.get("Reply-To")
    return MimeBodies(
        text=_content(message.get_body(preferencelist=("plain",))),
        html=_content(message.get_body(preferencelist=("html",))),
        reply_to=str(reply_to).strip() if reply_to else None,
        attachments=attachments,
    )


def _content(part: MIMEPart | None) -> str | None:
    if part is None:
        return None
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError) as error:
        raise ValidationFailed(f"a {part.get_content_type()} body could not be decoded: {error}") from error
    return content.replace("\r\n", "\n") if isinstance(content, str) else None  # SMTP's CRLF: as the API's text
