"""The metrics area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters, MetricsQuery
from postline.wiring import subaccounts
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.metrics.packing import PackingService
    from postline.metrics.service import MetricsService, RollupService
    from postline.metrics.store import DynamoRollups


@built_once()
def rollups() -> DynamoRollups:
    from postline.metrics.store import DynamoRollups

    return DynamoRollups(client("dynamodb"), settings(Counters).table)


def rollup_service() -> RollupService:
    from postline.events.store import StreamRecords
    from postline.metrics.service import RollupService

    return RollupService(stream=StreamRecords(), rollups=rollups(), clock=clock())


def packing_service() -> PackingService:
    from postline.metrics.packing import PackingService

    return PackingService(store=rollups(), clock=clock())


def metrics_service() -> MetricsService:
    from postline.metrics.service import MetricsService

    return MetricsService(
        rollups=rollups(),
        clock=clock(),
        budget_ms=settings(MetricsQuery).budget_ms,
        workspaces=subaccounts.subaccount_store(),
    )
