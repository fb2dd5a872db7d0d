"""A late stream record of an erased event, fanned out to an endpoint created after its removal
(which left no tombstone for that endpoint): the fan-out asks the event's erasure mark, and only
for an endpoint newer than the event, so the usual fan-out reads nothing more."""

from __future__ import annotations

from datetime import timedelta

from postline.events.domain import Event, EventType
from postline.shared.ids import RandomIds
from postline.webhook_delivery.service import WebhookDeliverer
from tests.fakes.shared import FixedClock, RecordingMeter
from tests.fakes.signing_keys import FixedSigner
from tests.fakes.webhook_delivery import InMemoryDeliveries, RecordingWorkflow
from tests.unit.webhooks.test_attempt_metrics import OneEndpoint, Receiver


class AskedDeliveries(InMemoryDeliveries):
    """Counts the erasure marks asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def erased(self, event_id: str) -> bool:
        self.asked.append(event_id)
        return super().erased(event_id)


def _setup(endpoint_age: timedelta) -> tuple[WebhookDeliverer, AskedDeliveries, Receiver, Event]:
    clock, deliveries, receiver = FixedClock(), AskedDeliveries(), Receiver(200)
    endpoints = OneEndpoint(clock, 0)
    made = clock.now() - endpoint_age
    endpoints.endpoint = endpoints.endpoint.model_copy(update={"created_at": made, "updated_at": made})
    deliverer = WebhookDeliverer(
        stream=None,  # type: ignore[arg-type]  # fan_out is given events
        deliveries=deliveries,
        endpoints=endpoints,
        signer=FixedSigner(),
        client=receiver,  # type: ignore[arg-type]
        workflow=RecordingWorkflow(),
        notifier=None,  # type: ignore[arg-type]
        retention_days=lambda _: 30,
        ids=RandomIds(),
        clock=clock,
        meter=RecordingMeter(),
    )
    created = clock.now() - timedelta(minutes=5)  # the event: written five minutes ago, its record late
    event = Event(
        id="evt_late", account_id="acct_1", type=EventType.DELIVERED, message_id="msg_late",
        recipient="erin@example.com", timestamp=created, created_at=created, expires_at=0,
    )  # fmt: skip
    return deliverer, deliveries, receiver, event


def test_an_endpoint_made_after_an_erased_event_gets_nothing_of_it() -> None:
    deliverer, deliveries, receiver, event = _setup(endpoint_age=timedelta(minutes=1))
    deliveries.erased_events.add(event.id)

    deliverer.fan_out([event])

    assert (receiver.posted, deliveries.items, deliveries.asked) == (0, {}, [event.id])


def test_an_endpoint_made_after_an_event_still_gets_it_when_it_was_not_erased() -> None:
    deliverer, deliveries, receiver, event = _setup(endpoint_age=timedelta(minutes=1))

    deliverer.fan_out([event])

    assert (receiver.posted, len(deliveries.items), deliveries.asked) == (1, 1, [event.id])


def test_an_endpoint_older_than_the_event_asks_no_mark() -> None:
    """The usual case reads nothing more: were the event erased, the removal's tombstone at this
    endpoint's key refuses the open (the adapters' and end-to-end tests)."""
    deliverer, deliveries, receiver, event = _setup(endpoint_age=timedelta(days=3))

    deliverer.fan_out([event])

    assert (receiver.posted, len(deliveries.items), deliveries.asked) == (1, 1, [])
