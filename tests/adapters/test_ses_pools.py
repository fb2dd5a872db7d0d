"""An IP pool's SES counterpart on moto (the SES transport): a dedicated IP pool and a configuration
set sending through it, made with the pool and deleted with it; a refused create leaves nothing; the
relay's deployments make nothing; a send through the pool goes out with its configuration set."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, audit_entry
from postline.delivery.parcel import Parcel
from postline.delivery.transports.ses import SesTransport
from postline.ip_pools.domain import PoolType, Scaling
from postline.ip_pools.models import IpPoolCreate
from postline.ip_pools.service import IpPoolService, SourcePicker
from postline.ip_pools.ses import SesDedicatedPools
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import Forbidden
from postline.wiring import accounts, shared
from postline.wiring import ip_pools as ip_pools_root
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock
from tests.support import SesEventDestinations

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
TOPIC = "arn:aws:sns:us-east-1:123456789012:feedback"


def _principal(plan: Plan = Plan.PROFESSIONAL) -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex}", name="a", plan=plan, created_at=NOW)
    actor = Actor(ActorType.SYSTEM, None, None)
    entry = audit_entry(entry_id=str(uuid.uuid4()), account_id=account.id, actor=actor, action="account.created",
                        target=None, now=NOW)  # fmt: skip
    accounts.account_store().create_account(account, entry)
    stored = accounts.account_store().get_account(account.id)
    assert stored is not None
    return Principal(account=stored, scope=Scope.FULL_ACCESS, env=Environment.LIVE, source_ip="127.0.0.1")


def _service(stack: InProcessStack, *, enabled: bool, ses: Any = None) -> IpPoolService:
    pools = SesDedicatedPools(
        ses or SesEventDestinations(stack.client("sesv2")), enabled=enabled, feedback_topic_arn=TOPIC
    )
    return IpPoolService(pools=ip_pools_root.ip_pool_store(), ids=shared.ids(), clock=FixedClock(NOW), ses=pools)


def _ses_pool(stack: InProcessStack, name: str) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = stack.client("sesv2").get_dedicated_ip_pool(PoolName=name)["DedicatedIpPool"]
        return found
    except ClientError:
        return None


def _configuration_set(stack: InProcessStack, name: str) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = stack.client("sesv2").get_configuration_set(ConfigurationSetName=name)
        return found
    except ClientError:
        return None


def test_a_pool_gets_its_ses_pool_and_configuration_set_and_loses_them_when_deleted(stack: InProcessStack) -> None:
    principal = _principal()
    ses = SesEventDestinations(stack.client("sesv2"))
    service = _service(stack, enabled=True, ses=ses)
    created = service.create(principal, IpPoolCreate(name="transactional", scaling=Scaling.MANAGED))
    name = f"postline-{created.id}"
    assert (_ses_pool(stack, name) or {}).get("ScalingMode") == "MANAGED"
    configuration = _configuration_set(stack, name)
    assert configuration is not None and configuration["DeliveryOptions"]["SendingPoolName"] == name
    # Its reports go where the deployment's own go: the feedback topic (SNS -> the feedback queue).
    assert ses.destinations[name]["SnsDestination"] == {"TopicArn": TOPIC}
    assert {"BOUNCE", "COMPLAINT", "DELIVERY"} <= set(ses.destinations[name]["MatchingEventTypes"])
    stored = ip_pools_root.ip_pool_store().get_pool(principal.account.id, created.id)
    assert stored is not None and stored.ses_configuration_set == name

    # A managed pool has no addresses of its own: its sends go through its configuration set.
    picked = SourcePicker(pools=ip_pools_root.ip_pool_store()).pick(principal.account.id, created.id, "m:r", NOW.date())
    assert picked is not None and (picked.pool_id, picked.ip, picked.ses_configuration_set) == (created.id, None, name)

    service.delete(principal, created.id)
    assert _ses_pool(stack, name) is None and _configuration_set(stack, name) is None


def test_a_refused_create_leaves_nothing_in_ses_and_the_relay_makes_nothing(stack: InProcessStack) -> None:
    full = _principal()
    service = _service(stack, enabled=True)
    limit = full.account.limits.dedicated_ip_pools
    for n in range(limit):
        service.create(full, IpPoolCreate(name=f"pool-{n}"))
    before = stack.client("sesv2").list_dedicated_ip_pools()["DedicatedIpPools"]
    with pytest.raises(Forbidden):  # the store counts the plan's pools: made in SES first, then taken back
        service.create(full, IpPoolCreate(name="one-too-many"))
    assert stack.client("sesv2").list_dedicated_ip_pools()["DedicatedIpPools"] == before
    principal = _principal()
    relay = _service(stack, enabled=False).create(principal, IpPoolCreate(name="relayed", type=PoolType.WARMING))
    assert _ses_pool(stack, f"postline-{relay.id}") is None
    stored = ip_pools_root.ip_pool_store().get_pool(principal.account.id, relay.id)
    assert stored is not None and stored.ses_configuration_set is None


class _RecordingSes:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def send_email(self, **request: Any) -> dict[str, str]:
        self.requests.append(request)
        return {"MessageId": "ses-1"}


def test_a_copy_through_a_pool_is_sent_with_the_pools_configuration_set() -> None:
    ses = _RecordingSes()
    transport = SesTransport(ses, "postline-default")
    base = {"message_id": "m1", "sender": "a@b.test", "recipient": "c@d.test", "mime": b"x", "domain": None,
            "test": False, "send_outcomes": None, "attempt": 1}  # fmt: skip
    list(transport.deliver([Parcel(**base, ses_configuration_set="postline-pool-1"), Parcel(**base)]))
    assert [r["ConfigurationSetName"] for r in ses.requests] == ["postline-pool-1", "postline-default"]
