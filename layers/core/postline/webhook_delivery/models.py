"""GET /v3/webhooks/{id}/deliveries: deliveries and their attempts as the API shows them."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from postline.shared.base import Model
from postline.webhook_delivery.domain import Attempt, AttemptResult, Delivery, DeliveryStatus


class DeliveryAttemptView(Model):
    number: int = Field(description="1 for the first attempt; X-Webhook-Attempt carried this number.")
    at: datetime
    outcome: AttemptResult = Field(
        description="succeeded (a 2xx), retryable (429, 5xx, 3xx, network error), cut_short (timed out or "
        "dropped mid-answer), refused (a 4xx other than 429: no more retries)."
    )
    response_code: int | None = Field(description="The receiver's HTTP status; null when there was no answer.")
    latency_ms: int
    error: str | None = Field(description="What went wrong when there was no usable answer.")


class WebhookDeliveryView(Model):
    """One delivery of one event to one endpoint (or a message's webhook_url), with its attempts.
    The payload itself is not shown."""

    id: str = Field(examples=["whd_3f1c0a9e5b7d4e2f8a6c1b0d9e7f5a3c"])
    endpoint_id: str | None = Field(description="Null for a message's own webhook_url.")
    url: str
    event_id: str
    event: str = Field(description="The event type.", examples=["delivered"])
    message_id: str
    status: DeliveryStatus
    manual: bool = Field(description="True for a resend: one attempt, never retried.")
    resent_from: str | None = Field(description="The delivery this one resent; null unless a resend.")
    created_at: datetime
    next_attempt_at: datetime | None = Field(description="When the next scheduled attempt is due, while retrying.")
    attempts: list[DeliveryAttemptView]


def attempt_view(attempt: Attempt) -> DeliveryAttemptView:
    return DeliveryAttemptView(
        number=attempt.number,
        at=attempt.at,
        outcome=attempt.result,
        response_code=attempt.status_code,
        latency_ms=attempt.latency_ms,
        error=attempt.error,
    )


def delivery_view(delivery: Delivery) -> WebhookDeliveryView:
    return WebhookDeliveryView(
        id=delivery.id,
        endpoint_id=delivery.endpoint_id,
        url=delivery.url,
        event_id=delivery.event_id,
        event=delivery.event_type,
        message_id=delivery.message_id,
        status=delivery.status,
        manual=delivery.manual,
        resent_from=delivery.resent_from,
        created_at=delivery.created_at,
        next_attempt_at=delivery.next_attempt_at,
        attempts=[attempt_view(attempt) for attempt in delivery.attempts],
    )


class WebhookDeliveryPage(Model):
    deliveries: list[WebhookDeliveryView] = Field(description="Newest first.")
    has_more: bool
    next_cursor: str | None = Field(
        description="Pass as cursor, with the same filters, for the next page; null on the last page."
    )
