"""A late stream record of an erased event, fanned out to an endpoint created after its removal
(which left no tombstone for that endpoint): the fan-out asks the event's erasure mark, and only
for an endpoint newer than the event, so the usual fan-out reads nothing more. A resend's copy,
which a removal cannot find before its attempt, asks the mark before and after it."""

from __future__ import annotations

from datetime import timedelta

from postline.events.domain import Event, EventType
from postline.shared.ids import RandomIds
from postline.webhook_delivery.domain import ClientCertificate, Delivery, HttpAnswer
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


def _setup(
    endpoint_age: timedelta, deliveries: AskedDeliveries | None = None, receiver: Receiver | None = None
) -> tuple[WebhookDeliverer, AskedDeliveries, Receiver, Event]:
    clock, deliveries, receiver = FixedClock(), deliveries or AskedDeliveries(), receiver or Receiver(200)
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


# -- a resend's copy --------------------------------------------------------------------------------


class ErasedDuringThePost(Receiver):
    """The removal runs while the POST is under way: it marks the event erased."""

    def __init__(self, deliveries: InMemoryDeliveries, event_id: str) -> None:
        super().__init__(200)
        self._deliveries, self._event_id = deliveries, event_id

    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer:
        self._deliveries.erased_events.add(self._event_id)
        return super().post(url, body, headers, certificate=certificate)


def _resend_copy(deliverer: WebhookDeliverer, deliveries: InMemoryDeliveries, event: Event) -> Delivery:
    now = event.created_at
    source = Delivery(
        id="whd_source", account_id="acct_1", url="https://own.example/hook", event_id=event.id,
        event_type="delivered", message_id=event.message_id, body='{"recipient":"erin@example.com"}',
        created_at=now, expires_at=0,
    )  # fmt: skip
    copy = source.resent("whd_copy", source.target, now, expires_at=0)
    assert deliveries.create(copy)
    return copy


def test_a_resends_copy_of_an_event_erased_before_its_attempt_is_not_posted_and_goes() -> None:
    deliverer, deliveries, receiver, event = _setup(endpoint_age=timedelta(days=3))
    copy = _resend_copy(deliverer, deliveries, event)
    deliveries.erased_events.add(event.id)  # the removal, between the job's copy and its attempt

    assert deliverer.resend_attempt(copy.id) is None

    assert receiver.posted == 0 and deliveries.get(copy.id) is None and deliveries.create(copy) is False


def test_a_resends_copy_of_an_event_erased_during_its_post_leaves_no_record() -> None:
    deliveries = AskedDeliveries()
    receiver = ErasedDuringThePost(deliveries, "evt_late")
    deliverer, _, _, event = _setup(endpoint_age=timedelta(days=3), deliveries=deliveries, receiver=receiver)
    copy = _resend_copy(deliverer, deliveries, event)

    assert deliverer.resend_attempt(copy.id) is None

    assert receiver.posted == 1  # under way when the removal ran: it could not be stopped
    assert deliveries.get(copy.id) is None and deliveries.indexed == set()  # but its record is gone


def test_a_resends_copy_of_a_kept_event_is_posted_and_recorded() -> None:
    deliverer, deliveries, receiver, event = _setup(endpoint_age=timedelta(days=3))
    copy = _resend_copy(deliverer, deliveries, event)

    after = deliverer.resend_attempt(copy.id)

    assert after is not None and after.status.value == "succeeded" and receiver.posted == 1
    assert deliveries.get(copy.id) == after and deliveries.asked == [event.id, event.id]
