"""Live mail through SES (moto's SESv2), then SES's reports through the feedback worker."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from postline import wiring
from postline.accounts.domain import Plan
from postline.auth.service import RouteRule
from postline.delivery.parcel import MESSAGE_TAG
from postline.delivery.service import Dispatcher
from postline.delivery.transports.ses import SesTransport
from postline.domains.domain import DomainStatus, SendingDomain
from postline.ip_pools.domain import Scaling
from postline.ip_pools.models import IpPoolCreate
from postline.ip_pools.service import IpPoolService, SourcePicker
from postline.ip_pools.ses import SesDedicatedPools
from postline.keys.access import Access, Environment
from postline.metrics.domain import contribution, source_series
from postline.sending.dispatch_job import DispatchJob
from postline.sending.models import SendRequest
from postline.verification.service import Verifier
from postline.wiring import auth, events, sending, shared
from postline.wiring import domains as domains_root
from postline.wiring import ip_pools as ip_pools_root
from postline.wiring import operator as operator_root
from postline.wiring import suppressions as suppressions_root
from tests.aws_stack import InProcessStack
from tests.fakes.shared import RecordingMeter
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes
from tests.support import SesEventDestinations

TOPIC = "arn:aws:sns:us-east-1:123456789012:feedback"


@pytest.fixture
def live_message(stack: InProcessStack) -> tuple[str, str]:
    """(account id, message id) of a live message from a verified domain, handed to SES."""
    return _live_message(stack)


def _live_message(stack: InProcessStack, *, pool: str | None = None) -> tuple[str, str]:
    """pool: an IP pool of the account's made first (its SES pool and configuration set), named by
    the send as `ip_pool`, which the dispatcher picks as the SES transport's does (SourcePicker ses)."""
    operator = operator_root.operator_service()
    account = operator.create_account(name="ses", plan=Plan.PROFESSIONAL)
    key = operator.create_key(account.id, name="live", env=Environment.LIVE)
    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    domains_root.sending_domains().put_domain(
        SendingDomain(
            account_id=account.id,
            id="dom_fixture",
            created_at=datetime.now(UTC),
            domain="ses.test",
            status=DomainStatus.VERIFIED,
            dkim_selector="s1",
            dkim_private_key=pem.decode(),
        )
    )
    stack.client("sesv2").create_email_identity(EmailIdentity="ses.test")
    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", RouteRule(Access.SEND, False))
    assert principal.principal is not None
    body = {"from": "news@ses.test", "to": ["ada@example.com", "bob@example.com"], "subject": "s", "text": "t"}
    if pool is not None:
        ses = SesDedicatedPools(SesEventDestinations(stack.client("sesv2")), enabled=True, feedback_topic_arn=TOPIC)
        service = IpPoolService(pools=ip_pools_root.ip_pool_store(), ids=shared.ids(), clock=wiring.clock(), ses=ses)
        body["ip_pool"] = service.create(principal.principal, IpPoolCreate(name=pool, scaling=Scaling.MANAGED)).id
    request = SendRequest.model_validate(body)
    message_id = sending.send_service().send(principal.principal, request).id
    dispatcher = Dispatcher(
        messages=sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: SesTransport(stack.client("sesv2"), None),
        verifier=Verifier(StaticRoutes()),
        links=None,
        retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(),
        clock=wiring.clock(),
        meter=RecordingMeter(),
        worker_id="w",
        sources=SourcePicker(pools=ip_pools_root.ip_pool_store(), ses=True),
    )
    dispatcher.dispatch(DispatchJob(message_id=message_id, account_id=account.id))
    return account.id, message_id


def _report(kind: str, message_id: str, body: dict[str, Any], configuration_set: str = "postline") -> dict[str, Any]:
    """An SQS record holding SNS's envelope around an SES event, as the feedback queue receives it
    (SES tags each with the configuration set that published it)."""
    tags = {MESSAGE_TAG: [message_id], "ses:configuration-set": [configuration_set]}
    event = {
        "eventType": kind,
        "mail": {"timestamp": "2026-11-21T12:00:00.000Z", "tags": tags},
        kind[0].lower() + kind[1:]: body,
    }
    envelope = {"Type": "Notification", "Message": json.dumps(event)}
    return {
        "messageId": f"m-{kind}-{message_id}",
        "receiptHandle": "r",
        "body": json.dumps(envelope),
        "attributes": {},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:feedback",
        "awsRegion": "us-east-1",
    }


def _feed(stack: InProcessStack, *records: dict[str, Any]) -> Any:
    return stack.functions["FeedbackFunction"].invoke({"Records": list(records)})


def _events(message_id: str) -> list[tuple[str, str | None]]:
    return [(e.type.value, e.recipient) for e in events.event_store().for_message(message_id)]


def test_ses_accepts_and_later_reports_delivery_once(stack: InProcessStack, live_message: tuple[str, str]) -> None:
    _, message_id = live_message
    message = sending.message_store().get(message_id)
    assert message is not None and message.status.value == "sent"
    delivery = {"timestamp": "2026-11-21T12:00:02.000Z", "recipients": ["ada@example.com"], "smtpResponse": "250 ok"}
    record = _report("Delivery", message_id, delivery)
    assert _feed(stack, record, record) == {"batchItemFailures": []}  # SNS delivered it twice
    assert _events(message_id).count(("delivered", "ada@example.com")) == 1
    message = sending.message_store().get(message_id)
    assert message is not None and message.recipients["ada@example.com"].value == "delivered"
    assert message.status.value == "delivered"  # the furthest stage any recipient reached


def test_a_permanent_bounce_suppresses_the_address(stack: InProcessStack, live_message: tuple[str, str]) -> None:
    account_id, message_id = live_message
    bounce = {
        "timestamp": "2026-11-21T12:00:03.000Z",
        "bounceType": "Permanent",
        "bounceSubType": "General",
        "bouncedRecipients": [{"emailAddress": "bob@example.com", "diagnosticCode": "smtp; 550 5.1.1 unknown"}],
    }
    _feed(stack, _report("Bounce", message_id, bounce))
    (bounced,) = [e for e in events.event_store().for_message(message_id) if e.type.value == "bounced"]
    assert (bounced.recipient, bounced.data["bounce_type"]) == ("bob@example.com", "hard")
    assert suppressions_root.suppressions().suppressed(account_id, ["bob@example.com"]) == {"bob@example.com"}


def test_a_report_for_a_message_we_do_not_know_is_ignored(stack: InProcessStack) -> None:
    assert _feed(stack, _report("Delivery", "msg_unknown", {"recipients": ["x@example.com"]})) == {
        "batchItemFailures": []
    }


def test_a_pools_later_bounces_and_complaints_count_toward_its_reputation(stack: InProcessStack) -> None:
    """A send through a pool goes out with the pool's configuration set; SES's later reports of that
    set name the pool on their events, which the reputation roll-ups count as the pool's (with the
    sent events; SES picked the address, so no address's)."""
    _, message_id = _live_message(stack, pool="transactional")
    message = sending.message_store().get(message_id)
    assert message is not None and message.ip_pool is not None
    pool_id, configuration_set = message.ip_pool, f"postline-{message.ip_pool}"
    bounce = {
        "timestamp": "2026-11-21T12:00:03.000Z",
        "bounceType": "Permanent",
        "bounceSubType": "General",
        "bouncedRecipients": [{"emailAddress": "bob@example.com", "diagnosticCode": "smtp; 550 5.1.1 unknown"}],
    }
    complaint = {"timestamp": "2026-11-21T12:00:04.000Z", "complainedRecipients": [{"emailAddress": "ada@example.com"}]}
    _feed(stack, _report("Bounce", message_id, bounce, configuration_set))
    _feed(stack, _report("Complaint", message_id, complaint, configuration_set))

    found = {(e.type.value, e.recipient): e for e in events.event_store().for_message(message_id)}
    for key in (("sent", "ada@example.com"), ("sent", "bob@example.com"), ("bounced", "bob@example.com"),
                ("complained", "ada@example.com")):  # fmt: skip
        assert found[key].data.get("ip_pool") == pool_id, key
        assert "ip" not in found[key].data, key
        plan = contribution(found[key])
        assert plan is not None and source_series(pool_id, "") in plan.series, key


def test_a_report_of_the_deployments_own_configuration_set_names_no_pool(
    stack: InProcessStack, live_message: tuple[str, str]
) -> None:
    _, message_id = live_message
    complaint = {"timestamp": "2026-11-21T12:00:04.000Z", "complainedRecipients": [{"emailAddress": "ada@example.com"}]}
    _feed(stack, _report("Complaint", message_id, complaint, "postline"))
    (complained,) = [e for e in events.event_store().for_message(message_id) if e.type.value == "complained"]
    assert "ip_pool" not in complained.data
