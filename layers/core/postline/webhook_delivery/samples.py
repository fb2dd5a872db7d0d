"""Sample events: POST /v3/webhooks/{id}/test sends one endpoint an event of a chosen type.

A receiver is checked before real mail depends on it (SendGrid's "Test Your Integration", Svix's
"send example"): the sample goes the way a real delivery goes (the same payload shape, the same
signatures and auth, from the same egress addresses) as a manual delivery, so it has one attempt,
is never retried and never counts toward the endpoint's failure streak. It is marked as what it is:
`data.test` (as every simulated message's events are) and `data.sample`, with ids no real message
has (`msg_sample_...`, `evt_sample_...`). The attempt itself is made by the retry workflow's task, due
at once: the API answers 202 with the delivery, and its attempt shows in the endpoint's delivery
history a moment later.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field

from postline.accounts.domain import retention_days
from postline.events.domain import Event, EventType, retention_expiry
from postline.keys.identity import Principal
from postline.shared.base import Model
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.webhook_delivery.domain import Delivery, encode_body, payload
from postline.webhook_delivery.models import WebhookDeliveryView, delivery_view
from postline.webhook_delivery.ports import DeliveryStore, RetryWorkflow
from postline.webhooks.domain import WEBHOOK_EVENT_TYPES, WebhookEndpoint
from postline.webhooks.ports import EndpointDirectory

SAMPLE_RECIPIENT = "recipient@example.com"

# What each type's `data` holds on a real event, with plausible values.
_SAMPLE_DATA: dict[EventType, dict[str, Any]] = {
    EventType.QUEUED: {},
    EventType.SENT: {"processing_ms": 182},
    EventType.DELIVERED: {"delivery_ms": 640, "total_ms": 822},
    EventType.OPENED: {"user_agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6)", "machine_open": False},
    EventType.CLICKED: {"url": "https://example.com/welcome", "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1)"},
    EventType.BOUNCED: {
        "bounce_type": "hard",
        "bounce_class": "bad_mailbox",
        "bounce_code": "5.1.1",
        "smtp_response": "550 5.1.1 The email account that you tried to reach does not exist",
    },
    EventType.COMPLAINED: {"complaint_type": "abuse"},
    EventType.UNSUBSCRIBED: {"source": "one_click"},
    EventType.DELAYED: {"reason": "MailboxFull", "smtp_response": "452 4.2.2 Mailbox full"},
    EventType.REJECTED: {"reason": "suppressed"},
    EventType.FAILED: {"reason": "retries exhausted", "retry_count": 6},
}


class SampleRequest(Model):
    model_config = ConfigDict(extra="forbid")

    event: EventType | None = Field(
        default=None,
        description="The event type to send; default: the first type the endpoint subscribes to.",
        examples=["bounced"],
    )


def sample_event(account_id: str, event_type: EventType, sample_id: str, now: datetime, expires_at: int) -> Event:
    """An event of `event_type` that no message had, marked test and sample."""
    return Event(
        id=f"evt_sample_{sample_id}",
        account_id=account_id,
        type=event_type,
        message_id=f"msg_sample_{sample_id}",
        recipient=SAMPLE_RECIPIENT,
        timestamp=now,
        tags=["sample"],
        metadata={"sample": "true"},
        headers={"X-Sample": "true"},
        data={**_SAMPLE_DATA[event_type], "test": True, "sample": True},
        created_at=now,
        expires_at=expires_at,
    )


def sample_type(endpoint: WebhookEndpoint, asked: EventType | None) -> EventType:
    if asked is None:
        return endpoint.events[0] if endpoint.events else EventType.DELIVERED
    if asked not in WEBHOOK_EVENT_TYPES:
        raise ValidationFailed(f"event: webhooks carry these event types: {', '.join(WEBHOOK_EVENT_TYPES)}")
    return asked


class SampleDeliveries:
    def __init__(
        self,
        *,
        endpoints: EndpointDirectory,
        deliveries: DeliveryStore,
        workflow: RetryWorkflow,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._endpoints = endpoints
        self._deliveries = deliveries
        self._workflow = workflow
        self._ids = ids
        self._clock = clock

    def send(self, principal: Principal, endpoint_id: str, request: SampleRequest) -> WebhookDeliveryView:
        account_id = principal.account.id
        endpoint = self._endpoints.get_endpoint(account_id, endpoint_id)
        if endpoint is None:
            raise NotFound(f"No webhook endpoint {endpoint_id} in this account.")
        if not endpoint.enabled:
            raise ValidationFailed(
                f"The endpoint {endpoint_id} is disabled: enable it (PUT /v3/webhooks/{{id}}) first."
            )
        now = self._clock.now()
        expires_at = retention_expiry(now, retention_days(principal.account, now))
        sample_id = self._ids.new_id()
        event = sample_event(account_id, sample_type(endpoint, request.event), sample_id, now, expires_at)
        delivery = Delivery(
            id=self._ids.new_id("whd_"),
            account_id=account_id,
            endpoint_id=endpoint.id,
            url=endpoint.url,
            event_id=event.id,
            event_type=str(event.type),
            message_id=event.message_id,
            body=encode_body(payload(event)),
            manual=True,
            created_at=now,
            expires_at=expires_at,
        )
        self._deliveries.create(delivery)
        self._workflow.start(delivery.id, now)  # due now: the workflow's task makes the one attempt
        return delivery_view(delivery)
