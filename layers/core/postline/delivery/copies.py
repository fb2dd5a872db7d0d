"""One recipient's copy as the dispatcher builds it, for the dispatcher, the content check and the
content route alike; and the vault as the kept copies' sealer.

The copy is built here once per hand-over: a test-mode message keeps that very copy (signed with the
domain's DKIM key, as the SMTP transport signs a live one), never a second rendering of it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from postline.content_checks.domain import Draft
from postline.delivery.mime import build_mime, submitted_copy
from postline.delivery.parcel import Parcel
from postline.delivery.transports.smtp import dkim_sign
from postline.sending.domain import Content, Message
from postline.tracking.domain import LinkMaker, add_pixel, wrap_links

if TYPE_CHECKING:
    from postline.domains.domain import SendingDomain
    from postline.sending.ports import ContentVault


def links_for(links: LinkMaker | None, domain: SendingDomain | None) -> LinkMaker | None:
    """The domain's CNAME resolves to our tracking host: its links carry its own name."""
    if links is not None and domain is not None and domain.branded_tracking_host:
        return replace(links, base_url=f"https://{domain.branded_tracking_host}")
    return links


def recipient_copy(
    message: Message,
    content: Content,
    recipient: str,
    *,
    links: LinkMaker | None,
    domain: SendingDomain | None,
    now: datetime,
) -> bytes:
    """The MIME `recipient` is handed: tracking applied (own links, pixel, one-click unsubscribe)."""
    html, text = content.html, content.text
    unsubscribe = None
    made = links_for(links, domain)
    if made is not None:
        unsubscribe = made.unsubscribe_url(message.account_id, message.id, recipient)
        if html is not None and message.track_clicks:
            html = wrap_links(html, lambda url: made.click_url(message.account_id, message.id, recipient, url))
        if html is not None and message.track_opens:
            html = add_pixel(html, made.open_url(message.account_id, message.id, recipient))
    raw = content.mime_bytes
    if raw is not None:  # submitted over SMTP: delivered as submitted
        return submitted_copy(message, raw, unsubscribe_url=unsubscribe)
    return build_mime(message, content, html=html, text=text, now=now, unsubscribe_url=unsubscribe)


def signed_copy(parcel: Parcel, domain: SendingDomain | None) -> bytes:
    """The copy as the SMTP transport puts it on the wire: DKIM-signed by `domain` (None: unsigned)."""
    return dkim_sign(replace(parcel, domain=domain))


def signed_mime(message: Message, recipient: str, mime: bytes, domain: SendingDomain | None) -> bytes:
    parcel = Parcel(
        message_id=message.id,
        sender=message.from_,
        recipient=recipient,
        mime=mime,
        domain=domain,
        test=message.test,
        send_outcomes=None,
        attempt=1,
    )
    return dkim_sign(parcel)


def draft_of(
    message: Message, content: Content, mime: bytes, *, links: LinkMaker | None, domain: SendingDomain | None
) -> Draft:
    """What the content check reads of a copy: the copy, and the bodies as the sender wrote them."""
    made = links_for(links, domain)
    tracking = urlsplit(made.base_url).hostname if made is not None else None
    return Draft(
        mime=mime,
        from_domain=message.sender_domain,
        source_html=content.html,
        source_text=content.text,
        tracking_host=tracking.lower() if tracking else None,
    )


def check_basis(message: Message, content: Content) -> str:
    """A digest of what a message's content check depends on, as rendered for this message: From,
    subject, headers, tracking, a list's unsubscribe, the bodies as written (vars rendered, links
    before tracking), reply-to, attachments (name, type, bytes) and a submitted MIME. Not the
    recipients, nor the message id, date, tracking tokens or DKIM signature a copy adds: two
    messages with the same basis get the same check (a batch's messages whose vars change nothing
    the check reads), any other one is checked itself."""
    attachments = [
        [a.filename, a.content_type, hashlib.sha256(a.content.encode()).hexdigest()] for a in content.attachments
    ]
    basis = [
        message.from_, message.subject, sorted(message.headers.items()), message.track_opens, message.track_clicks,
        message.list_id is not None, content.html, content.text, content.reply_to, attachments,
        hashlib.sha256(content.mime.encode("latin-1")).hexdigest() if content.mime is not None else None,
    ]  # fmt: skip
    return hashlib.sha256(json.dumps(basis, ensure_ascii=False).encode()).hexdigest()


class VaultSealer:
    """content_checks' Sealer over the message vault: a copy is sealed as a message body is."""

    def __init__(self, vault: ContentVault) -> None:
        self._vault = vault

    def seal_copies(self, items: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
        sealed = self._vault.seal([(name, Content(mime=mime.decode("latin-1"))) for name, mime in items])
        return [dict(record) for record in sealed]

    def open_copy(self, name: str, sealed: dict[str, Any]) -> bytes:
        raw = self._vault.open(name, sealed).mime_bytes
        if raw is None:
            raise LookupError(f"{name} holds no copy")
        return raw
