"""The webhook_resend area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Jobs, ResendQueue
from postline.wiring import accounts, audit, shared, webhook_delivery, webhooks
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.webhook_resend.service import WebhookResendService
    from postline.webhook_resend.store import DynamoResendJobs


@built_once()
def resend_jobs() -> DynamoResendJobs:
    from postline.webhook_resend.store import DynamoResendJobs

    return DynamoResendJobs(client("dynamodb"), settings(Jobs).table)


def webhook_resend_service() -> WebhookResendService:
    from postline.webhook_resend.service import WebhookResendService
    from postline.webhook_resend.store import SqsResendQueue

    return WebhookResendService(
        jobs=resend_jobs(),
        queue=SqsResendQueue(client("sqs"), settings(ResendQueue).url),
        deliveries=webhook_delivery.webhook_deliveries(),
        endpoints=webhooks.webhook_endpoints(),
        audit=audit.audit_store(),
        ids=shared.ids(),
        retention_days=accounts.retention_days,
        resend_attempt=lambda delivery_id: webhook_delivery.webhook_deliverer().resend_attempt(
            delivery_id
        ),  # the worker's only
        clock=clock(),
    )
