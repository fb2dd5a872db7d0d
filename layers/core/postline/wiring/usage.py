"""The usage area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters
from postline.wiring import accounts
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.usage.pool import PooledQuotas
    from postline.usage.service import UsageService
    from postline.usage.store import DynamoCounterStore


@built_once()
def counter_store() -> DynamoCounterStore:
    from postline.usage.store import DynamoCounterStore

    return DynamoCounterStore(client("dynamodb"), settings(Counters).table)


@built_once()
def pooled_quotas() -> PooledQuotas:
    """What sends draw their quota from: their own plan's, or their organisation's pool (usage/pool.py)."""
    from postline.usage.pool import PooledQuotas

    return PooledQuotas(counter_store(), accounts.account_store(), credits=counter_store())


def usage_service() -> UsageService:
    from postline.usage.service import UsageService

    return UsageService(
        counters=counter_store(), clock=clock(), accounts=accounts.account_store(), credits=counter_store()
    )
