"""The webhook_delivery area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Notifications, WebhookDeliveries, WebhookRetry, WebhookTls
from postline.wiring import accounts, keys, shared, signing_keys, webhooks
from postline.wiring.registry import CurrentClock, built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.webhook_delivery.history_service import DeliveryHistoryService
    from postline.webhook_delivery.http_client import WebhookHttp
    from postline.webhook_delivery.samples import SampleDeliveries
    from postline.webhook_delivery.service import WebhookDeliverer
    from postline.webhook_delivery.store import DynamoDeliveryStore


@built_once()
def webhook_deliveries() -> DynamoDeliveryStore:
    from postline.webhook_delivery.store import DynamoDeliveryStore

    return DynamoDeliveryStore(client("dynamodb"), settings(WebhookDeliveries).table)


@built_once()
def webhook_http() -> WebhookHttp:
    # Cached (it holds connection pools and tokens), so it is given the process's clock as it is
    # at each call, not the one installed when it was built.
    from postline.webhook_delivery.http_client import WebhookHttp

    return WebhookHttp(CurrentClock(), webhooks.url_guard().vet, ca_bundle=settings(WebhookTls).ca_bundle or None)


def webhook_deliverer() -> WebhookDeliverer:
    from postline.delivery.owner_notices import OwnerNotifier
    from postline.delivery.transports.smtp import Relay
    from postline.events.store import StreamRecords
    from postline.webhook_delivery.service import WebhookDeliverer
    from postline.webhook_delivery.workflow import StepFunctionsRetry

    notifications = settings(Notifications)
    return WebhookDeliverer(
        stream=StreamRecords(),
        deliveries=webhook_deliveries(),
        endpoints=webhooks.webhook_endpoints(),
        signer=signing_keys.signing_key_service(),
        client=webhook_http(),
        workflow=StepFunctionsRetry(client("stepfunctions"), lambda: settings(WebhookRetry).state_machine_arn),
        notifier=OwnerNotifier(
            accounts.account_store(),
            notifications.sender,
            ses=client("sesv2"),
            relay=Relay.parse(notifications.smtp_relay),
        ),
        retention_days=accounts.retention_days,
        ids=shared.ids(),
        clock=clock(),
        meter=shared.meter(),
    )


def delivery_history_service() -> DeliveryHistoryService:
    from postline.webhook_delivery.history_service import DeliveryHistoryService

    return DeliveryHistoryService(
        deliveries=webhook_deliveries(), endpoints=webhooks.webhook_endpoints(), hasher=keys.hasher(), clock=clock()
    )


def sample_deliveries() -> SampleDeliveries:
    from postline.webhook_delivery.samples import SampleDeliveries
    from postline.webhook_delivery.workflow import StepFunctionsRetry

    return SampleDeliveries(
        endpoints=webhooks.webhook_endpoints(),
        deliveries=webhook_deliveries(),
        workflow=StepFunctionsRetry(client("stepfunctions"), lambda: settings(WebhookRetry).state_machine_arn),
        ids=shared.ids(),
        clock=clock(),
    )
