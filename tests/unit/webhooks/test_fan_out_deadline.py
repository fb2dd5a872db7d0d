"""The fan-out makes first attempts only while the invocation has time for one: the rest go to
the retry workflow, due now, so a batch with slow receivers never runs past its timeout (which
would re-run the whole batch and hold the stream up)."""

from __future__ import annotations

import threading

from postline.events.domain import Event, EventType
from postline.shared.ids import RandomIds
from postline.webhook_delivery.domain import ClientCertificate, DeliveryStatus, HttpAnswer
from postline.webhook_delivery.service import WebhookDeliverer
from tests.fakes.shared import FixedClock, RecordingMeter
from tests.fakes.signing_keys import FixedSigner
from tests.fakes.webhook_delivery import InMemoryDeliveries, RecordingWorkflow
from tests.fakes.webhooks import NoEndpoints


class Receivers:
    def __init__(self) -> None:
        self.posted: list[str] = []

    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer:
        self.posted.append(url)
        return HttpAnswer(200, 3)


def _deliverer(
    clock: FixedClock, deliveries: InMemoryDeliveries, receivers: Receivers, workflow: RecordingWorkflow
) -> WebhookDeliverer:
    return WebhookDeliverer(
        stream=None,  # type: ignore[arg-type]  # fan_out is given events
        deliveries=deliveries,
        endpoints=NoEndpoints(),
        signer=FixedSigner(),
        client=receivers,  # type: ignore[arg-type]
        workflow=workflow,
        notifier=None,  # type: ignore[arg-type]
        retention_days=lambda _: 30,
        ids=RandomIds(),
        clock=clock,
        meter=RecordingMeter(),
    )


def _events(clock: FixedClock, count: int) -> list[Event]:
    return [
        Event(
            id=f"evt_{n}",
            account_id="acct_1",
            type=EventType.DELIVERED,
            message_id=f"msg_{n}",
            recipient="ada@example.com",
            timestamp=clock.now(),
            webhook_url=f"https://hooks.example.com/{n}",
            created_at=clock.now(),
            expires_at=0,
        )
        for n in range(count)
    ]


def test_first_attempts_without_time_left_go_to_the_workflow_due_now() -> None:
    clock = FixedClock()
    deliveries, receivers, workflow = InMemoryDeliveries(), Receivers(), RecordingWorkflow()
    deliverer = _deliverer(clock, deliveries, receivers, workflow)
    asked = iter([60_000, 40_000, 34_000, 1_000])
    lock = threading.Lock()

    def remaining_ms() -> int:
        with lock:
            return next(asked)

    deliverer.fan_out(_events(clock, 4), remaining_ms=remaining_ms)

    assert len(receivers.posted) == 2
    handed_off = {delivery_id for delivery_id, _ in workflow.started}
    assert len(handed_off) == 2 and {due for _, due in workflow.started} == {clock.now()}
    states = {d.id: d.status for d in deliveries.items.values()}
    assert {states[i] for i in handed_off} == {DeliveryStatus.PENDING}  # attempt 1 is the workflow's
    assert sorted(states.values()).count(DeliveryStatus.SUCCEEDED) == 2


def test_without_a_deadline_every_first_attempt_is_made_here() -> None:
    clock = FixedClock()
    deliveries, receivers, workflow = InMemoryDeliveries(), Receivers(), RecordingWorkflow()
    deliverer = _deliverer(clock, deliveries, receivers, workflow)
    deliverer.fan_out(_events(clock, 3))
    assert len(receivers.posted) == 3 and workflow.started == []
