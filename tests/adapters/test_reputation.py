"""Reputation against moto: events with a source (pool and address) written to the events table, read
back from its stream, counted by RollupService over DynamoRollups, evaluated by ReputationService
over DynamoReputations (the roll-ups' `sending_domain` and `sending_ip` series in one key range per
day, the snapshot item, audit entries in the resources table); the pool store is the real one.
Complaints push a domain and a pool past the danger line: one audit entry each and one notice, no
more on the next evaluations; back above and down again raises again."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from devtools.moto_patches import moto_transactions
from postline.audit.domain import AuditEntry
from postline.audit.store import DynamoAuditStore
from postline.events.domain import Event, EventType
from postline.events.store import StreamRecords
from postline.ip_pools.domain import Pool, PoolType
from postline.ip_pools.store import DynamoIpPoolStore
from postline.metrics.reputation import SCORED_SPAN, WINDOW
from postline.metrics.reputation_service import EVERY, ReputationService
from postline.metrics.reputation_store import DynamoReputations, reputation_key
from postline.metrics.service import RollupService
from postline.metrics.store import DynamoRollups
from tests.adapters.test_metrics_rollups import Stream, _consume, _write
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock, SequentialIds

NOW = datetime(2026, 4, 20, 12, 0, tzinfo=UTC)
DOMAIN = "shop.example"


class Notices:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []

    def email_owner(self, account_id: str, subject: str, text: str) -> None:
        self.sent.append((account_id, subject, text))


@pytest.fixture(scope="module", autouse=True)
def _transactions_cost_what_they_write() -> Iterator[None]:
    with moto_transactions.installed():  # as in test_metrics_packing.py: moto copies the table per item
        yield


@pytest.fixture(scope="module")
def stream(stack: InProcessStack) -> Stream:
    return Stream(stack)


class World:
    def __init__(self, stack: InProcessStack, stream: Stream) -> None:
        self.stack, self.stream = stack, stream
        self.account = f"acct_{uuid.uuid4().hex[:10]}"
        self.clock = FixedClock(NOW)
        db = stack.client("dynamodb")
        self.rollups = DynamoRollups(db, stack.env["COUNTERS_TABLE"])
        self.store = DynamoReputations(db, stack.env["COUNTERS_TABLE"], stack.env["RESOURCES_TABLE"])
        self.pools = DynamoIpPoolStore(db, stack.env["RESOURCES_TABLE"])
        self.audit = DynamoAuditStore(db, stack.env["RESOURCES_TABLE"])
        self.notices = Notices()
        self.reputation = ReputationService(
            rollups=self.rollups,
            store=self.store,
            pools=self.pools,
            notices=self.notices,
            ids=SequentialIds(),
            clock=self.clock,
        )
        self.consumer = RollupService(
            stream=StreamRecords(), rollups=self.rollups, clock=self.clock, reputation=self.reputation
        )
        self.pool = Pool(
            id=str(uuid.uuid4()), account_id=self.account, name="transactional", type=PoolType.DEDICATED,
            ips=["192.0.2.10", "192.0.2.11"], created_at=NOW - timedelta(days=40),
        )  # fmt: skip
        entry = AuditEntry(
            id=str(uuid.uuid4()), account_id=self.account, actor_type="staff", action="x", created_at=NOW
        )
        self.pools.create_pool(self.pool, max_pools=None, make_default=False, audit=entry)
        self.sent = 0

    def send(
        self, copies: int, outcome: EventType | None = None, *, live: bool = True, at: datetime | None = None
    ) -> None:
        """`copies` sent from the pool's two addresses, each then `outcome` (none: just sent)."""
        events: list[Event] = []
        moment = at or self.clock.now() - timedelta(minutes=1)
        for n in range(copies):
            self.sent += 1
            message, to = f"msg_{self.account}_{self.sent}", f"user{self.sent}@gmail.com"
            source = {"ip_pool": self.pool.id, "ip": self.pool.ips[n % len(self.pool.ips)], "test": not live}
            events.append(self._event(EventType.SENT, moment, message, to, source))
            if outcome is EventType.COMPLAINED:
                events.append(self._event(outcome, moment, message, to, {**source, "complaint_type": "abuse"}))
            elif outcome is EventType.BOUNCED:
                events.append(self._event(outcome, moment, message, to, {**source, "bounce_class": "hard"}))
        _consume(self.consumer, _write(self.stack, self.stream, events), size=500)  # Lambda's batch size

    def _event(self, kind: EventType, at: datetime, message: str, to: str, data: dict[str, Any]) -> Event:
        return Event(
            id=f"evt_{uuid.uuid4().hex}",
            account_id=self.account,
            type=kind,
            message_id=message,
            recipient=to,
            timestamp=at,
            data=data,
            sending_domain=DOMAIN,
            created_at=at,
            expires_at=int((at + timedelta(days=60)).timestamp()),
        )

    def alerts(self) -> list[AuditEntry]:
        entries, _ = self.audit.list_audit(self.account, page=1, per_page=100)
        return [entry for entry in entries if entry.action.endswith("reputation_danger")]


@pytest.fixture
def world(stack: InProcessStack, stream: Stream) -> World:
    return World(stack, stream)


def test_one_key_range_reads_the_domain_and_source_series_and_nothing_else(world: World) -> None:
    world.send(150)
    items = world.rollups.read(world.account, "live", [f"{NOW.date()}"], span=SCORED_SPAN, budget_seconds=10)
    series = {item.series for item in items}
    assert series == {f"sending_domain#{DOMAIN}", *(f"sending_ip#{world.pool.id}#{ip}" for ip in world.pool.ips)}
    sources = [item for item in items if item.series.startswith("sending_ip#")]
    assert sum(value for item in sources for name, value in item.values.items() if name.endswith("_sent")) == 150
    assert all(name.endswith("_sent") for item in sources for name in item.values)  # no latency bins there


def test_complaints_cross_the_danger_line_once_and_again_after_recovering(world: World) -> None:
    world.send(300)  # the first batch evaluates: healthy
    snapshot = world.store.snapshot(world.account, "live")
    assert snapshot is not None and snapshot.domains == {DOMAIN: 100} and snapshot.pools == {world.pool.id: 100}
    assert snapshot.ips == {"192.0.2.10": 100, "192.0.2.11": 100} and world.alerts() == []

    world.send(1, EventType.COMPLAINED)  # inside the throttle: not evaluated yet
    assert world.store.pool_scores(world.account, "live")[0] == {world.pool.id: 100}

    world.clock.advance(EVERY.total_seconds())
    world.send(1, EventType.COMPLAINED)  # 2 of 302: 0.66%
    assert world.store.domain_scores(world.account, "live") == {DOMAIN: 0}
    pools, ips = world.store.pool_scores(world.account, "live")
    assert pools == {world.pool.id: 0} and ips == {"192.0.2.10": 0, "192.0.2.11": 100}  # both from the first
    alerts = world.alerts()
    assert sorted((a.action, a.target) for a in alerts) == [
        ("domain.reputation_danger", DOMAIN),
        ("ip_pool.reputation_danger", world.pool.id),
    ]
    assert all(a.actor_type == "system" and "reputation 0" in (a.details or "") for a in alerts)
    assert [subject for _, subject, _ in world.notices.sent] == [
        f"Sending domain {DOMAIN}: reputation 0, past the danger line",
        f"IP pool transactional ({world.pool.id}): reputation 0, past the danger line",
    ]

    world.clock.advance(EVERY.total_seconds())
    world.send(1, EventType.COMPLAINED)  # still in danger: nothing more
    assert len(world.alerts()) == 2 and len(world.notices.sent) == 2

    world.send(1500)  # inside the throttle
    world.clock.advance(EVERY.total_seconds())
    world.send(1)  # 3 of 1804: 0.17%, back above the line
    assert world.store.domain_scores(world.account, "live")[DOMAIN] == 60
    assert len(world.alerts()) == 2

    world.clock.advance(EVERY.total_seconds())
    world.send(20, EventType.COMPLAINED)  # 23 of 1824: 1.3%, down again
    assert world.store.domain_scores(world.account, "live")[DOMAIN] == 0
    assert len(world.alerts()) == 4 and len(world.notices.sent) == 4


def test_the_window_is_30_days_and_test_mode_is_apart_and_audited_without_a_notice(world: World) -> None:
    old = NOW - timedelta(days=31)
    world.send(200, EventType.COMPLAINED, at=old)  # outside the window
    world.clock.advance(EVERY.total_seconds())
    world.send(200)
    assert world.store.domain_scores(world.account, "live") == {DOMAIN: 100}
    item = world.stack.client("dynamodb").get_item(
        TableName=world.stack.env["COUNTERS_TABLE"], Key=reputation_key(world.account, "live")
    )["Item"]
    assert int(item["expires_at"]["N"]) == int((world.clock.now() + WINDOW).timestamp())  # no mail left by then

    world.send(200, EventType.BOUNCED, live=False)  # test mode: its own roll-ups and snapshot
    assert world.store.domain_scores(world.account, "test") == {DOMAIN: 0}
    assert world.store.domain_scores(world.account, "live") == {DOMAIN: 100}
    alerts = world.alerts()
    assert len(alerts) == 2 and all("in test mode" in (a.details or "") for a in alerts)
    assert world.notices.sent == []


def test_a_platform_pool_gets_no_computed_score_nor_alert(world: World) -> None:
    platform = Pool(id=str(uuid.uuid4()), name="shared", type=PoolType.SHARED, ips=["198.51.100.7"], created_at=NOW)
    world.pool = platform  # the account's mail leaves from the shared pool
    world.send(200, EventType.COMPLAINED)
    pools, ips = world.store.pool_scores(world.account, "live")
    assert pools == {} and ips == {"198.51.100.7": 0}
    assert [a.action for a in world.alerts()] == ["domain.reputation_danger"]


def test_evaluations_are_throttled_and_a_concurrent_save_raises_nothing(world: World) -> None:
    assert world.store.claim(world.account, "live", NOW, EVERY)
    assert not world.store.claim(world.account, "live", NOW + EVERY - timedelta(seconds=1), EVERY)
    assert world.store.claim(world.account, "live", NOW + EVERY, EVERY)
    world.send(200, EventType.COMPLAINED)  # throttled: the claim above holds
    assert world.store.snapshot(world.account, "live") is None
    before = world.reputation.evaluate(world.account, "live")
    assert before.danger == {f"domain:{DOMAIN}", f"pool:{world.pool.id}"}
    stale = world.store.snapshot(world.account, "live")
    assert stale is not None
    assert not world.store.save(world.account, "live", stale, read_version=stale.version - 1, audits=[])
    assert len(world.alerts()) == 2


class CountingClient:
    """The DynamoDB client, counting its UpdateItem calls."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.updates = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def update_item(self, **params: Any) -> Any:
        self.updates += 1
        return self.inner.update_item(**params)


def test_a_claim_the_instance_knows_would_be_refused_writes_nothing(stack: InProcessStack) -> None:
    """Another instance claimed the account: the first refusal here costs a write (and tells when
    the next claim can succeed), the ones before then none."""
    account = f"acct_{uuid.uuid4().hex[:10]}"
    other = DynamoReputations(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"], stack.env["RESOURCES_TABLE"])
    assert other.claim(account, "live", NOW, EVERY)
    from postline.metrics import reputation_store

    reputation_store._NEXT_CLAIM.clear()  # a fresh instance: it has not seen that claim
    client = CountingClient(stack.client("dynamodb"))
    here = DynamoReputations(client, stack.env["COUNTERS_TABLE"], stack.env["RESOURCES_TABLE"])
    assert not here.claim(account, "live", NOW + timedelta(seconds=1), EVERY)
    assert not here.claim(account, "live", NOW + EVERY - timedelta(seconds=1), EVERY)
    assert client.updates == 1
    assert here.claim(account, "live", NOW + EVERY, EVERY) and client.updates == 2
