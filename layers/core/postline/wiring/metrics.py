"""The metrics area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters, MetricsQuery, Notifications, Resources
from postline.wiring import accounts, events, ip_pools, shared, subaccounts
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.metrics.packing import PackingService
    from postline.metrics.reputation_service import ReputationService
    from postline.metrics.reputation_store import DynamoReputations
    from postline.metrics.service import MetricsService, RollupService
    from postline.metrics.store import DynamoRollups


@built_once()
def rollups() -> DynamoRollups:
    from postline.metrics.store import DynamoRollups

    return DynamoRollups(client("dynamodb"), settings(Counters).table)


def rollup_service() -> RollupService:
    from postline.events.autoshard import AutoSharder
    from postline.events.store import StreamRecords
    from postline.metrics.service import RollupService

    stream = StreamRecords()
    shards = AutoSharder(writes=stream, schedules=events.shard_directory(), clock=clock())
    return RollupService(
        stream=stream, rollups=rollups(), clock=clock(), reputation=reputation_service(), shards=shards
    )


def reputations() -> DynamoReputations:
    """The reputation snapshots: the consumer writes them, the domain and pool routes read them."""
    from postline.metrics.reputation_store import DynamoReputations

    return DynamoReputations(client("dynamodb"), settings(Counters).table, settings(Resources).table)


def reputation_service() -> ReputationService:
    from postline.delivery.owner_notices import OwnerNotifier
    from postline.delivery.transports.smtp import Relay
    from postline.metrics.reputation_service import ReputationService

    notifications = settings(Notifications)
    return ReputationService(
        rollups=rollups(),
        store=reputations(),
        pools=ip_pools.ip_pool_store(),
        notices=OwnerNotifier(
            accounts.account_store(),
            notifications.sender,
            ses=client("sesv2"),
            relay=Relay.parse(notifications.smtp_relay),
        ),
        ids=shared.ids(),
        clock=clock(),
    )


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
