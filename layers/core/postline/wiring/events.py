"""The events area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters, Events, EventsQuery
from postline.wiring import keys
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.events.service import EventService
    from postline.events.store import DynamoEventStore, ShardDirectory


@built_once()
def event_store() -> DynamoEventStore:
    from postline.events.store import DynamoEventStore

    return DynamoEventStore(client("dynamodb"), settings(Events).table)


def shard_directory() -> ShardDirectory:
    from postline.events.store import ShardDirectory

    return ShardDirectory(client("dynamodb"), settings(Events).table)


def event_service() -> EventService:
    from postline.events.count_store import DynamoEventCounts
    from postline.events.service import EventService

    return EventService(
        events=event_store(),
        hasher=keys.hasher(),
        clock=clock(),
        budget_ms=settings(EventsQuery).budget_ms,
        counts=DynamoEventCounts(client("dynamodb"), settings(Counters).table),
    )
