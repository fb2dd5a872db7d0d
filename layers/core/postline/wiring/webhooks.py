"""The webhooks area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ContentKey, EgressPolicy, Resources
from postline.wiring import shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.webhooks.service import WebhookService
    from postline.webhooks.store import DynamoWebhookEndpoints
    from postline.webhooks.url_guard import ResolvingUrlGuard


@built_once()
def webhook_endpoints() -> DynamoWebhookEndpoints:
    from postline.webhooks.store import DynamoWebhookEndpoints

    return DynamoWebhookEndpoints(
        client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id
    )


@built_once()
def url_guard() -> ResolvingUrlGuard:
    from postline.webhooks.url_guard import ResolvingUrlGuard

    return ResolvingUrlGuard(allow_private=settings(EgressPolicy).allow_private)


def webhook_service() -> WebhookService:
    from postline.webhooks.service import WebhookService

    return WebhookService(endpoints=webhook_endpoints(), guard=url_guard(), ids=shared.ids(), clock=clock())
