"""verify_before_send in the dispatcher, with the real stores (moto, tables from template.yaml): a
recipient that fails verification is rejected (failed_verification) and never handed over, the
others go on; repeating the job changes nothing. DNS is a table of routes (tests/fakes/verification.py); the
real resolver against a real DNS server is in tests/e2e/test_delivery_mx.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from postline import wiring
from postline.auth.service import RouteRule
from postline.delivery.outcomes import Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.service import Dispatcher
from postline.events.domain import Event, EventType
from postline.keys.access import Access, Environment
from postline.keys.identity import Principal
from postline.keys.models import KeyUpdate
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import RecipientState
from postline.sending.models import SendRequest
from postline.shared.mx import MailRoute
from postline.verification.service import Verifier
from postline.wiring import auth, events, keys, operator, sending
from postline.wiring import domains as domains_root
from postline.wiring import suppressions as suppressions_root
from tests.adapters.conftest import SENDER_DOMAIN
from tests.fakes.shared import RecordingMeter
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes

ROUTES = {
    "example.com": MailRoute(mx_hosts=("mx.example.com",)),
    "nomail.example": MailRoute(null_mx=True),
    "bare.example": MailRoute(),  # exists, but no MX and no address
    "flaky.example": MailRoute(lookup_error="timed out"),
}


class Recording:
    def __init__(self) -> None:
        self.handed: list[str] = []

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            self.handed.append(parcel.recipient)
            yield Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok")


def _send(account_id: str, to: list[str], *, env: Environment = Environment.LIVE, **key: Any) -> str:
    """A message accepted through the real service, from a new key of `env` with the `key` settings."""
    created = operator.operator_service().create_key(account_id, name="k", env=env)
    if key:  # as PATCH /v3/keys/{id} would
        keys.key_service().update(_principal(created.key), created.id, KeyUpdate(**key))
    body = {"from": f"a@{SENDER_DOMAIN}", "to": to, "subject": "s", "text": "hello"}
    return sending.send_service().send(_principal(created.key), SendRequest.model_validate(body)).id


def _principal(secret: str) -> Principal:
    admitted = auth.authenticator().admit([f"Bearer {secret}"], "127.0.0.1", RouteRule(Access.SEND, False))
    assert admitted.principal is not None
    return admitted.principal


def _dispatch(message_id: str, account_id: str, transport: Recording, routes: StaticRoutes) -> None:
    Dispatcher(
        messages=sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: transport,
        verifier=Verifier(routes),
        links=None,
        retention_days=lambda account: 30,
        quotas=UnlimitedQuotas(),
        clock=wiring.clock(),
        meter=RecordingMeter(),
        worker_id="w1",
    ).dispatch(DispatchJob(message_id=message_id, account_id=account_id, enqueued_at=wiring.clock().now()))


def _events(message_id: str) -> list[Event]:
    return events.event_store().for_message(message_id)


def test_a_failing_recipient_is_rejected_and_never_handed_over_while_the_others_go(account_id: str) -> None:
    operator.operator_service().set_verify_before_send(account_id, True)
    good, null_mx, bare, missing = "a@example.com", "b@nomail.example", "c@bare.example", "d@gone.example"
    message_id = _send(account_id, [good, null_mx, bare, missing])
    transport, routes = Recording(), StaticRoutes(ROUTES)
    _dispatch(message_id, account_id, transport, routes)

    assert transport.handed == [good]
    rejected = {e.recipient: e.data for e in _events(message_id) if e.type is EventType.REJECTED}
    assert set(rejected) == {null_mx, bare, missing}
    for data in rejected.values():
        assert data["reason"] == "failed_verification"
        assert data["verification"]["result"] == "invalid" and data["verification"]["reason"]
        assert "test" not in data
    assert "null MX" in rejected[null_mx]["verification"]["reason"]
    assert "does not exist" in rejected[missing]["verification"]["reason"]
    stored = sending.message_store().get(message_id)
    assert stored is not None and stored.status.value == "delivered"
    assert stored.recipients[null_mx] is RecipientState.REJECTED

    # The job again (SQS at-least-once): nothing is verified, sent or recorded twice.
    _dispatch(message_id, account_id, transport, routes)
    assert transport.handed == [good]
    assert len(_events(message_id)) == 4 + 2 + 3  # queued x4, sent + delivered, rejected x3


def test_each_domain_is_looked_up_once_per_message(account_id: str) -> None:
    operator.operator_service().set_verify_before_send(account_id, True)
    to = [f"user{i}@example.com" for i in range(5)]
    routes = StaticRoutes(ROUTES)
    _dispatch(_send(account_id, to), account_id, Recording(), routes)
    assert routes.asked == ["example.com"]


def test_dns_that_does_not_answer_is_unknown_and_the_mail_goes(account_id: str) -> None:
    operator.operator_service().set_verify_before_send(account_id, True)
    transport = Recording()
    message_id = _send(account_id, ["a@flaky.example"])
    _dispatch(message_id, account_id, transport, StaticRoutes(ROUTES))
    assert transport.handed == ["a@flaky.example"]
    assert [e.type for e in _events(message_id)] == [EventType.QUEUED, EventType.SENT, EventType.DELIVERED]


def test_without_verify_before_send_nothing_is_looked_up(account_id: str) -> None:
    transport, routes = Recording(), StaticRoutes(ROUTES)
    _dispatch(_send(account_id, ["b@nomail.example"]), account_id, transport, routes)
    assert transport.handed == ["b@nomail.example"] and routes.asked == []


def test_a_key_set_to_false_overrides_the_account(account_id: str) -> None:
    operator.operator_service().set_verify_before_send(account_id, True)
    transport, routes = Recording(), StaticRoutes(ROUTES)
    _dispatch(_send(account_id, ["b@nomail.example"], verify_before_send=False), account_id, transport, routes)
    assert transport.handed == ["b@nomail.example"] and routes.asked == []


def test_a_key_set_to_true_verifies_in_an_account_that_does_not(account_id: str) -> None:
    transport = Recording()
    message_id = _send(account_id, ["b@nomail.example"], verify_before_send=True)
    _dispatch(message_id, account_id, transport, StaticRoutes(ROUTES))
    assert transport.handed == []
    assert sending.message_store().get(message_id).status.value == "rejected"  # type: ignore[union-attr]


def test_a_test_key_draws_its_verification_and_never_asks_dns(account_id: str) -> None:
    transport, routes = Recording(), StaticRoutes(ROUTES)
    message_id = _send(
        account_id,
        ["invalid@simulator.postline.dev", "valid@simulator.postline.dev"],
        env=Environment.TEST,
        verify_before_send=True,
    )
    _dispatch(message_id, account_id, transport, routes)
    assert transport.handed == ["valid@simulator.postline.dev"] and routes.asked == []
    (rejected,) = [e for e in _events(message_id) if e.type is EventType.REJECTED]
    assert rejected.recipient == "invalid@simulator.postline.dev"
    assert rejected.data["reason"] == "failed_verification" and rejected.data["test"] is True
    assert rejected.data["verification"]["result"] == "invalid"
