"""The IP pools area's composition root: its adapter and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import PoolProvisioning, Resources
from postline.wiring import shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.ip_pools.service import IpPoolAdmin, IpPoolService, SourcePicker
    from postline.ip_pools.ses import SesDedicatedPools
    from postline.ip_pools.store import DynamoIpPoolStore


@built_once()
def ip_pool_store() -> DynamoIpPoolStore:
    from postline.ip_pools.store import DynamoIpPoolStore

    return DynamoIpPoolStore(client("dynamodb"), settings(Resources).table)


def ip_pool_service() -> IpPoolService:
    from postline.ip_pools.service import IpPoolService

    return IpPoolService(
        pools=ip_pool_store(), ids=shared.ids(), clock=clock(), ses=ses_pools(), reputations=_Reputations()
    )


@built_once()
def ses_pools() -> SesDedicatedPools:
    from postline.ip_pools.ses import SesDedicatedPools

    provisioning = settings(PoolProvisioning)
    return SesDedicatedPools(
        client("sesv2"), enabled=provisioning.transport == "ses", feedback_topic_arn=provisioning.feedback_topic_arn
    )


def ip_pool_admin() -> IpPoolAdmin:
    from postline.ip_pools.service import IpPoolAdmin

    return IpPoolAdmin(pools=ip_pool_store(), ids=shared.ids(), clock=clock())


@built_once()
def source_picker() -> SourcePicker:
    from postline.ip_pools.service import SourcePicker
    from postline.ip_pools.store import DynamoWarmupCounts

    return SourcePicker(pools=ip_pool_store(), warmup=DynamoWarmupCounts(client("dynamodb"), settings(Resources).table))


def ses_source_picker() -> SourcePicker:
    """With the SES transport: a pool's configuration set; SES picks and warms the address (the
    dispatcher Lambda only reads the resources table)."""
    from postline.ip_pools.service import SourcePicker

    return SourcePicker(pools=ip_pool_store(), ses=True)


class _Reputations:
    """The metrics roll-ups' reputation snapshots (ip_pools/ports.py PoolReputations), built when
    first read (the routes; never the send path's source picker)."""

    def pool_scores(self, account_id: str, mode: str) -> tuple[dict[str, int | None], dict[str, int | None]]:
        from postline.wiring import metrics

        return metrics.reputations().pool_scores(account_id, mode)
