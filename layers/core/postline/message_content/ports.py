"""What the content routes need from outside: sending's preview and reads, the domain, the copies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.keys.identity import Principal
    from postline.sending.domain import Content, Message
    from postline.sending.models import SendRequest


class Previews(Protocol):
    def preview(self, principal: Principal, request: SendRequest) -> tuple[Message, Content]:
        """The message and content a send of `request` would store; stores nothing."""
        ...


class StoredBodies(Protocol):
    def sealed_body(self, message_id: str) -> dict[str, Any] | None:
        """The message item's sealed content (None: no such message)."""
        ...
