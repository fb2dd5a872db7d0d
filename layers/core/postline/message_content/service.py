"""POST /v3/messages/check and GET /v3/messages/{id}/content.

The check renders the send as POST /v3/messages would (sending's preview: same validation, template
and vars), builds the first recipient's copy as the dispatcher would (delivery/copies.py), signs it
with the domain's DKIM key as the SMTP transport would, and checks it (content_checks). Nothing is
stored, queued or counted.

The content of a test-mode message is the copies the dispatcher kept (sealed) as it handed them to
the simulator, with the check it made then, each signed here with the domain's DKIM key (an RSA
signature per copy would cost the pipeline more than the rest of a delivery); a live message's copies
are built again from its sealed body (Date: its acceptance or scheduled time; the DKIM signature made
now), until retention or erasure takes the body.
"""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import TYPE_CHECKING

from postline.content_checks.domain import ContentCheck
from postline.delivery.copies import draft_of, recipient_copy, signed_mime
from postline.message_content.models import CopySource, Header, MessageContent, MimePart, RecipientCopy
from postline.shared.errors import NotFound

if TYPE_CHECKING:
    from collections.abc import Callable

    from postline.content_checks.service import ContentChecker, KeptCopies
    from postline.domains.ports import SendingDomains
    from postline.keys.identity import Principal
    from postline.message_content.ports import Previews, StoredBodies
    from postline.sending.domain import Message
    from postline.sending.models import SendRequest
    from postline.sending.ports import ContentVault, MessageStore
    from postline.shared.ports import Clock
    from postline.tracking.domain import LinkMaker


class MessageContentService:
    def __init__(
        self,
        *,
        previews: Previews,
        messages: MessageStore,
        bodies: StoredBodies,
        vault: ContentVault,
        domains: SendingDomains,
        links: Callable[[], LinkMaker | None],
        checker: ContentChecker,
        copies: KeptCopies,
        clock: Clock,
    ) -> None:
        self._previews = previews
        self._messages = messages
        self._bodies = bodies
        self._vault = vault
        self._domains = domains
        self._links = links
        self._checker = checker
        self._copies = copies
        self._clock = clock

    def check(self, principal: Principal, request: SendRequest) -> ContentCheck:
        message, content = self._previews.preview(principal, request)
        domain = self._domains.verified_domain(principal.account.id, message.sender_domain)
        recipient = message.all_recipients[0]
        links = self._links()
        built = recipient_copy(message, content, recipient, links=links, domain=domain, now=self._clock.now())
        copy = signed_mime(message, recipient, built, domain)
        draft = draft_of(message, content, copy, links=links, domain=domain)
        return self._checker.check(draft, account_id=principal.account.id, domain=domain)

    def content(self, principal: Principal, message_id: str) -> MessageContent:
        message = self._messages.get(message_id)
        if message is None or message.account_id != principal.account.id:
            raise NotFound(f"No message {message_id} in this account.")
        if message.test:
            kept = self._copies.read(message.id)
            if not kept:
                raise NotFound(
                    f"Message {message_id} has no kept copy yet: a test-mode message's copies are kept as the "
                    "simulator takes them (retry once its status is past queued)."
                )
            check = ContentCheck.model_validate(message.content_check) if message.content_check else None
            # Kept as handed over, signed now with the domain's key as the SMTP transport signs a live copy.
            domain = self._domains.verified_domain(message.account_id, message.sender_domain)
            signed = {recipient: signed_mime(message, recipient, raw, domain) for recipient, raw in kept.items()}
            return _content(message, CopySource.KEPT, check, signed)
        return _content(message, CopySource.REBUILT, None, self._rebuilt(message))

    def _rebuilt(self, message: Message) -> dict[str, bytes]:
        sealed = self._bodies.sealed_body(message.id)
        if not sealed:
            raise NotFound(f"The content of message {message.id} is no longer kept.")
        try:
            content = self._vault.open(message.id, sealed)
        except LookupError as error:  # erased: its data key is destroyed
            raise NotFound(f"The content of message {message.id} was erased.") from error
        domain = self._domains.verified_domain(message.account_id, message.sender_domain)
        links = self._links()
        when = message.send_at or message.created_at
        return {
            recipient: signed_mime(
                message,
                recipient,
                recipient_copy(message, content, recipient, links=links, domain=domain, now=when),
                domain,
            )
            for recipient in message.all_recipients
        }


def _content(
    message: Message, source: CopySource, check: ContentCheck | None, copies: dict[str, bytes]
) -> MessageContent:
    return MessageContent(
        id=message.id,
        test=message.test,
        source=source,
        check=check,
        recipients=[parsed_copy(recipient, raw) for recipient, raw in copies.items()],
    )


def parsed_copy(recipient: str, raw: bytes) -> RecipientCopy:
    """Headers (decoded) and leaf parts of a copy, and the copy itself."""
    email = message_from_bytes(raw, policy=policy.default)
    assert isinstance(email, EmailMessage)
    parts = []
    for part in email.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        disposition = part.get_content_disposition()
        text = None
        if part.get_content_maintype() == "text" and disposition != "attachment" and isinstance(part, EmailMessage):
            text = str(part.get_content())
        parts.append(
            MimePart(
                content_type=part.get_content_type(),
                charset=part.get_content_charset(),
                disposition=disposition,
                filename=part.get_filename(),
                size_bytes=size,
                content=text,
            )
        )
    return RecipientCopy(
        recipient=recipient,
        headers=[Header(name=name, value=str(value)) for name, value in email.items()],
        parts=parts,
        raw=raw.decode("utf-8", "replace"),
    )
