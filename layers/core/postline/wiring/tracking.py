"""The tracking area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from postline.config import PublicUrl, TrackingSecret
from postline.wiring import accounts, events, lists, sending, shared, suppressions
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.tracking.domain import LinkMaker
    from postline.tracking.service import TrackingService


@built_once()
def tracking_secret() -> Callable[[], bytes]:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings(TrackingSecret).secret_id
    return lambda: str(provider.get(secret_id, max_age=300)).encode()


def links() -> LinkMaker | None:
    from postline.tracking.domain import LinkMaker

    base_url = settings(PublicUrl).base_url
    return LinkMaker(base_url, tracking_secret()()) if base_url else None


def tracking_service() -> TrackingService:
    from postline.tracking.service import TrackingService

    return TrackingService(
        messages=sending.message_store(),
        events=events.event_store(),
        suppressions=suppressions.suppressions(),
        secret=tracking_secret(),
        retention_days=accounts.retention_days,
        clock=clock(),
        lists=lists.lists_store(),
        ids=shared.ids(),
        meter=shared.meter(),
    )
