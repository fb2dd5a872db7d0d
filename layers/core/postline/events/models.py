"""GET /v3/events: an event as the API shows it, and a page of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from postline.events.domain import Event, EventType
from postline.shared.base import Model


class EventView(Model):
    """An event as GET /v3/events lists it."""

    id: str
    type: EventType
    message_id: str
    recipient: str | None
    timestamp: datetime
    tags: list[str]
    metadata: dict[str, Any] | None = Field(
        description="The metadata attached at send merged with the event's provider details (bounce reason, "
        "smtp_response, clicked url, user_agent, retry_count, test, ...); a key attached at send wins over a "
        "provider detail of the same name. Null when both are empty."
    )
    created_at: datetime


def event_view(event: Event) -> EventView:
    merged = {**event.data, **(event.metadata or {})}
    return EventView(
        id=event.id,
        type=event.type,
        message_id=event.message_id,
        recipient=event.recipient,
        timestamp=event.timestamp,
        tags=event.tags,
        metadata=merged or None,
        created_at=event.created_at,
    )


class EventListPage(Model):
    """A page of events: repeat with cursor=next_cursor until has_more is false."""

    items: list[EventView]
    has_more: bool
    next_cursor: str | None = Field(
        description="Pass as cursor, with the same filters, for the next page; null on the last page."
    )
    total_count: int = Field(description="Every match of the filters, whatever the cursor.")
