"""Verification's counters-table items against moto (tables from template.yaml): credits that
stop at the limit and come back on release, the per-domain facts and their expiry, and the
recipient activity counted once per event however often the stream delivers it, in any order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from postline.events.domain import Event, EventType
from postline.usage.quota import EmailLimits
from postline.usage.store import DynamoCounterStore
from postline.verification.store import DynamoActivity, DynamoDomainFacts, DynamoVerificationCounters
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)


def event(kind: EventType, at: datetime, recipient: str = "Ada@Acme.test", step: str = "0") -> Event:
    return Event(
        id=f"evt_{kind.value}_{at.timestamp():.0f}_{step}",
        account_id="acc_activity",
        type=kind,
        message_id="msg_1",
        recipient=recipient,
        timestamp=at,
        created_at=at,
        expires_at=int((at + timedelta(days=30)).timestamp()),
    )


def test_credits_stop_at_the_limit_and_come_back_on_release(stack: InProcessStack) -> None:
    counters = DynamoVerificationCounters(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    taken = [counters.consume_verification("acc_credits", month="2026-11", limit=2, test=False) for _ in range(3)]
    assert taken == [True, True, False]
    assert counters.consume_verification("acc_credits", month="2026-11", limit=2, test=True)  # its own counter
    counters.release_verification("acc_credits", month="2026-11", test=False)
    assert counters.consume_verification("acc_credits", month="2026-11", limit=2, test=False)
    assert not counters.consume_verification("acc_credits", month="2026-11", limit=0, test=False)
    assert counters.consume_verification("acc_credits", month="2026-11", limit=None, test=False)  # unlimited
    assert [counters.count_validation("acc_credits", 60, expires_at=180) for _ in range(3)] == [1, 2, 3]


def test_usage_reads_the_counters_the_send_and_verification_paths_keep(stack: InProcessStack) -> None:
    """GET /v3/usage's store sees live and test verifications and test sends where their writers put them."""
    db, table = stack.client("dynamodb"), stack.env["COUNTERS_TABLE"]
    counters = DynamoVerificationCounters(db, table)
    usage = DynamoCounterStore(db, table)
    for test in (False, False, True, True, True):
        assert counters.consume_verification("acc_usage", month="2026-11", limit=10, test=test)
    assert (
        usage.consume_emails("acc_usage", 4, month="2026-11", day="2026-11-02", limits=EmailLimits(10, None, True))
        is None
    )
    assert (
        usage.consume_emails("acc_usage", 2, month="2026-11", day="2026-11-02", limits=EmailLimits(10, 5, False))
        is None
    )
    assert usage.usage("acc_usage", month="2026-11", day="2026-11-02") == {
        "emails": 2, "emails_daily": 2, "verify": 2, "test_verify": 3, "test_emails": 4,
    }  # fmt: skip
    assert usage.usage("acc_usage", month="2026-12", day="2026-12-01") == dict.fromkeys(
        ("emails", "emails_daily", "verify", "test_verify", "test_emails"), 0
    )


def test_domain_facts_expire(stack: InProcessStack) -> None:
    facts = DynamoDomainFacts(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    assert facts.catch_all("acme.test", NOW) is None
    facts.remember_catch_all("acme.test", False, NOW)
    assert facts.catch_all("acme.test", NOW + timedelta(hours=23)) is False
    assert facts.catch_all("acme.test", NOW + timedelta(hours=25)) is None
    registered = datetime(2015, 3, 1, tzinfo=UTC)
    facts.remember_registered_at("acme.test", registered, NOW)
    assert facts.registered_at("acme.test", NOW + timedelta(days=29)) == registered
    assert facts.registered_at("acme.test", NOW + timedelta(days=31)) is None


def test_activity_counts_each_event_once_in_any_order(stack: InProcessStack) -> None:
    activity = DynamoActivity(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    early, late = NOW - timedelta(days=3), NOW - timedelta(hours=1)
    events = [
        event(EventType.SENT, late),
        event(EventType.DELIVERED, late),
        event(EventType.SENT, early),  # delivered out of order (another shard)
        event(EventType.BOUNCED, early),
        event(EventType.OPENED, late),
        event(EventType.CLICKED, late),
    ]
    assert [activity.record(e, NOW) for e in events] == [True] * 6
    assert [activity.record(e, NOW) for e in events] == [False] * 6  # the stream redelivered the batch
    found = activity.activity("acc_activity", "ada@acme.test")
    assert found.model_dump() == {
        "seen": True,
        "first_seen_at": early,
        "last_seen_at": late,
        "total_sends": 2,
        "delivered": 1,
        "bounced": 1,
        "opened": 1,
        "clicked": 1,
        "complained": 0,
        "unsubscribed": 0,
    }
    assert activity.activity("acc_activity", "nobody@acme.test").seen is False
