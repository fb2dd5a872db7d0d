"""A single send's quota reservation (sending/service.py, _Reservation) against a quota that counts
exactly and can fail: what is counted after each answer is what goes out."""

from __future__ import annotations

from datetime import datetime

import pytest

from postline.keys.access import Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.models import SendRequest
from postline.sending.ports import DispatchQueue
from postline.sending.service import SendService
from postline.shared.errors import RateLimited
from postline.usage.quota import EmailLimits
from tests.fakes.domains import SENDING_DOMAIN, OneVerifiedDomain
from tests.fakes.templates import NoTemplates
from tests.unit.sending.test_metrics import Sending
from tests.unit.world import World


class Unavailable(Exception):
    pass


class CountingQuotas:
    """One account's count against `limit`, exact; `failing_releases`: the next give-backs to fail."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.used = 0
        self.calls: list[tuple[str, int]] = []
        self.failing_releases = 0

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        self.calls.append(("consume", count))
        if self.limit is not None and self.used + count > self.limit:
            return "monthly"
        self.used += count
        return None

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        self.calls.append(("release", count))
        if self.failing_releases:
            self.failing_releases -= 1
            raise Unavailable
        self.used -= count


class FailingQueue:
    def enqueue(self, jobs: list[DispatchJob], *, not_before: datetime | None = None) -> None:
        raise Unavailable

    def unschedule(self, message_id: str) -> None:
        pass


@pytest.fixture
def sending(world: World) -> Sending:
    return Sending(world, suppressed=("gone@example.com",))


def _service(sending: Sending, quotas: CountingQuotas, *, queue: DispatchQueue | None = None) -> SendService:
    return SendService(
        messages=sending.messages,
        vault=sending.vault,
        queue=queue or sending.queue,
        quotas=quotas,
        suppressions=sending.suppressions,
        domains=OneVerifiedDomain(),
        templates=NoTemplates(),
        accounts=sending.world.store,
        check_webhook_url=lambda url: None,
        idempotency=sending.idempotency,
        ids=sending.world.ids,
        clock=sending.world.clock,
        meter=sending.meter,
    )


def _request(*to: str) -> SendRequest:
    return SendRequest.model_validate({"from": f"hello@{SENDING_DOMAIN}", "to": list(to), "subject": "s", "text": "t"})


def test_each_distinct_recipient_is_reserved_and_the_rejected_given_back(sending: Sending) -> None:
    quotas = CountingQuotas()
    _service(sending, quotas).send(sending.principal(), _request("a@example.com", "A@example.com", "gone@example.com"))

    assert quotas.calls == [("consume", 2), ("release", 1)]
    assert quotas.used == 1


def test_a_give_back_that_failed_is_tried_once_more_by_the_sends_failure(sending: Sending) -> None:
    quotas = CountingQuotas()
    quotas.failing_releases = 1
    with pytest.raises(Unavailable):
        _service(sending, quotas).send(sending.principal(), _request("a@example.com", "gone@example.com"))

    assert quotas.calls == [("consume", 2), ("release", 1), ("release", 2)]
    assert quotas.used == 0
    assert sending.messages.items == {}


def test_a_send_going_out_now_queues_nothing_itself_its_job_is_the_outboxs(sending: Sending) -> None:
    quotas = CountingQuotas()
    accepted = _service(sending, quotas, queue=FailingQueue()).send(sending.principal(), _request("a@example.com"))

    assert quotas.used == 1
    assert list(sending.messages.items) == [accepted.id]
    assert [job.message_id for job in sending.queue.jobs] == [accepted.id]  # the stream's, through the outbox


def test_refused_for_more_than_go_out_it_counts_those_that_do(sending: Sending) -> None:
    quotas = CountingQuotas(limit=1)
    service = _service(sending, quotas)
    principal = sending.principal()

    service.send(principal, _request("a@example.com", "gone@example.com"))
    assert quotas.calls == [("consume", 2), ("consume", 1)]
    assert quotas.used == 1
    with pytest.raises(RateLimited):
        service.send(principal, _request("b@example.com"))
    assert quotas.used == 1


def test_a_test_key_send_reserves_too(sending: Sending) -> None:
    quotas = CountingQuotas()
    _service(sending, quotas).send(sending.principal(Environment.TEST), _request("a@example.com"))

    assert quotas.calls == [("consume", 1)]
