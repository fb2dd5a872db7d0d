"""A delivery joins its endpoint's history with its first recorded attempt: the open write before
the POST stays out of the history's index (webhook_delivery/store.py). A fan-out that dies after
opening, or hands a delivery to the workflow, leaves it pending and unlisted; the redelivered
batch, or the workflow, attempts it once and it is listed from then on."""

from __future__ import annotations

from datetime import timedelta

import pytest

from postline.events.domain import Event, EventType
from postline.webhook_delivery.domain import ClientCertificate, DeliveryStatus, HttpAnswer
from tests.fakes.shared import FixedClock
from tests.fakes.webhook_delivery import InMemoryDeliveries, RecordingWorkflow
from tests.unit.webhooks.test_fan_out_deadline import _deliverer

URL = "https://hooks.example.com/own"


class DyingOnce:
    """The receiver side of the world: the first POST kills the worker (no answer recorded)."""

    def __init__(self) -> None:
        self.posted = 0

    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer:
        self.posted += 1
        if self.posted == 1:
            raise RuntimeError("the invocation died mid-POST")
        return HttpAnswer(200, 3)


def _event(clock: FixedClock) -> Event:
    return Event(
        id="evt_h", account_id="acct_1", type=EventType.DELIVERED, message_id="msg_h", recipient="ada@example.com",
        timestamp=clock.now(), webhook_url=URL, created_at=clock.now(), expires_at=0,
    )  # fmt: skip


def _listed(deliveries: InMemoryDeliveries, clock: FixedClock) -> list[tuple[str, int]]:
    month = f"{clock.now():%Y-%m}"
    found = deliveries.for_endpoint(
        "acct_1", None, [month], since=clock.now() - timedelta(hours=1), until=clock.now() + timedelta(hours=1)
    )
    return [(d.status.value, len(d.attempts)) for d in found]


def test_a_fan_out_that_dies_leaves_it_unlisted_and_the_redelivery_lists_it_once() -> None:
    clock, deliveries, receiver, workflow = FixedClock(), InMemoryDeliveries(), DyingOnce(), RecordingWorkflow()
    deliverer = _deliverer(clock, deliveries, receiver, workflow)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        deliverer.fan_out([_event(clock)])
    (opened,) = deliveries.items.values()
    assert opened.status is DeliveryStatus.PENDING and _listed(deliveries, clock) == []

    deliverer.fan_out([_event(clock)])  # the stream redelivers the batch
    assert receiver.posted == 2 and _listed(deliveries, clock) == [("succeeded", 1)]
    deliverer.fan_out([_event(clock)])  # and again: over, no POST
    assert receiver.posted == 2


def test_a_delivery_handed_to_the_workflow_is_listed_from_its_attempt() -> None:
    clock, deliveries, receiver, workflow = FixedClock(), InMemoryDeliveries(), DyingOnce(), RecordingWorkflow()
    receiver.posted = 1  # no dying here
    deliverer = _deliverer(clock, deliveries, receiver, workflow)  # type: ignore[arg-type]
    deliverer.fan_out([_event(clock)], remaining_ms=lambda: 1_000)
    ((delivery_id, _),) = workflow.started
    assert _listed(deliveries, clock) == []
    assert deliverer.attempt(delivery_id) == (True, None)
    assert _listed(deliveries, clock) == [("succeeded", 1)]
