"""Webhook attempts counted through the Meter port, by outcome (the delivery's status after the
attempt) and kind (scheduled, resend): once each recorded attempt, never for one another worker
recorded first or for a stream record delivered again."""

from __future__ import annotations

import pytest

from postline.events.domain import Event, EventType
from postline.shared.ids import RandomIds
from postline.webhook_delivery.domain import ClientCertificate, Delivery, DeliveryStatus, HttpAnswer
from postline.webhook_delivery.service import WEBHOOK_ATTEMPTS, WebhookDeliverer
from postline.webhooks.domain import WebhookEndpoint
from tests.fakes.shared import FixedClock, RecordingMeter, dims
from tests.fakes.signing_keys import FixedSigner
from tests.fakes.webhook_delivery import InMemoryDeliveries, RecordingWorkflow
from tests.fakes.webhooks import NoEndpoints

URL = "https://hooks.example.com/postline"


class Receiver:
    """Answers with the next status of its script (the last one repeats)."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses)
        self.posted = 0

    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer:
        self.posted += 1
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        return HttpAnswer(status, 3)


class Setup:
    def __init__(self, *statuses: int) -> None:
        self.clock = FixedClock()
        self.meter = RecordingMeter()
        self.deliveries = InMemoryDeliveries()
        self.receiver = Receiver(*statuses)
        self.workflow = RecordingWorkflow()
        self.deliverer = WebhookDeliverer(
            stream=None,  # type: ignore[arg-type]  # fan_out is given events
            deliveries=self.deliveries,
            endpoints=NoEndpoints(),
            signer=FixedSigner(),
            client=self.receiver,  # type: ignore[arg-type]
            workflow=self.workflow,
            notifier=None,  # type: ignore[arg-type]
            retention_days=lambda _: 30,
            ids=RandomIds(),
            clock=self.clock,
            meter=self.meter,
        )

    def event(self) -> Event:
        return Event(
            id="evt_1",
            account_id="acct_1",
            type=EventType.DELIVERED,
            message_id="msg_1",
            recipient="ada@example.com",
            timestamp=self.clock.now(),
            webhook_url=URL,
            created_at=self.clock.now(),
            expires_at=0,
        )

    def attempts(self) -> dict[frozenset[tuple[str, str]], int]:
        return self.meter.of(WEBHOOK_ATTEMPTS)


def test_a_succeeded_attempt_counts_once_though_the_stream_delivers_its_event_twice() -> None:
    setup = Setup(200)
    setup.deliverer.fan_out([setup.event()])
    setup.deliverer.fan_out([setup.event()])  # the stream's at-least-once: the delivery is over already

    assert setup.receiver.posted == 1
    assert setup.attempts() == {dims(outcome="succeeded", kind="scheduled"): 1}


def test_a_refused_attempt_counts_as_failed() -> None:
    setup = Setup(400)  # a 4xx other than 429 ends the delivery
    setup.deliverer.fan_out([setup.event()])

    assert setup.attempts() == {dims(outcome="failed", kind="scheduled"): 1}


def test_a_retried_delivery_counts_each_attempt_by_its_outcome() -> None:
    setup = Setup(503, 503, 204)
    setup.deliverer.fan_out([setup.event()])
    (delivery_id, due), *_ = setup.workflow.started
    for _ in range(2):
        setup.clock.set(due)
        over, next_due = setup.deliverer.attempt(delivery_id)
        due = next_due or due

    assert over and setup.receiver.posted == 3
    assert setup.attempts() == {
        dims(outcome="retrying", kind="scheduled"): 2,
        dims(outcome="succeeded", kind="scheduled"): 1,
    }


def test_an_attempt_another_worker_recorded_first_is_not_counted() -> None:
    setup = Setup(200)
    setup.deliveries.lose_races = True
    setup.deliverer.fan_out([setup.event()])

    assert setup.receiver.posted == 1
    assert setup.attempts() == {}


def test_a_resend_counts_its_single_attempt_as_a_resend() -> None:
    setup = Setup(500)
    now = setup.clock.now()
    original = Delivery(
        id="whd_1",
        account_id="acct_1",
        endpoint_id=None,
        url=URL,
        event_id="evt_1",
        event_type="delivered",
        message_id="msg_1",
        body="{}",
        created_at=now,
        expires_at=0,
    )
    resend = original.resent("whd_2", original.target, now, expires_at=0)
    setup.deliveries.create(resend)

    after = setup.deliverer.resend_attempt(resend.id)
    setup.deliverer.resend_attempt(resend.id)  # a repeated queue message: it has had its attempt

    assert after is not None and after.status is DeliveryStatus.FAILED  # a resend is never retried
    assert setup.receiver.posted == 1
    assert setup.attempts() == {dims(outcome="failed", kind="resend"): 1}


class OneEndpoint(NoEndpoints):
    """An account with one enabled endpoint at URL, its failure streak as given; counts the
    streak's writes."""

    def __init__(self, clock: FixedClock, failures: int) -> None:
        self.endpoint = WebhookEndpoint(
            id="wh_1",
            account_id="acct_1",
            url=URL,
            consecutive_failures=failures,
            failing_since=clock.now() if failures else None,
            created_at=clock.now(),
            updated_at=clock.now(),
        )
        self.successes = 0

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        return [self.endpoint]

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None:
        return self.endpoint

    def record_success(self, account_id: str, endpoint_id: str) -> None:
        self.successes += 1


@pytest.mark.parametrize(("failures", "writes"), [(0, 0), (3, 1)])
def test_a_success_writes_the_endpoint_only_to_end_a_streak_it_had(failures: int, writes: int) -> None:
    setup = Setup(200)
    endpoints = OneEndpoint(setup.clock, failures)
    setup.deliverer._endpoints = endpoints
    event = setup.event().model_copy(update={"webhook_url": None})

    setup.deliverer.fan_out([event])

    assert setup.receiver.posted == 1 and endpoints.successes == writes
