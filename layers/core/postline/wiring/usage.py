"""The usage area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.usage.service import UsageService
    from postline.usage.store import DynamoCounterStore


@built_once()
def counter_store() -> DynamoCounterStore:
    from postline.usage.store import DynamoCounterStore

    return DynamoCounterStore(client("dynamodb"), settings(Counters).table)


def usage_service() -> UsageService:
    from postline.usage.service import UsageService

    return UsageService(counters=counter_store(), clock=clock())
