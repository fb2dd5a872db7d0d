"""The retention area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ContentBucket, Counters, Events, Messages, Resources, WebhookDeliveries
from postline.wiring.registry import client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.retention.service import RetentionService


def retention_service() -> RetentionService:
    from postline.retention.service import RetentionService
    from postline.retention.store import DynamoRetentionStore

    store = DynamoRetentionStore(
        client("dynamodb"),
        client("s3"),
        resources=settings(Resources).table,
        counters=settings(Counters).table,
        events=settings(Events).table,
        messages=settings(Messages).table,
        deliveries=settings(WebhookDeliveries).table,
        content_bucket=settings(ContentBucket).bucket,
    )
    return RetentionService(store, clock())
