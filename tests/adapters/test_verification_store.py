"""Verification's counters-table items against moto (tables from template.yaml): credits that
stop at the limit and come back on release, the per-domain facts and their expiry, and the
recipient activity counted once per event however often the stream delivers it, in any order,
after a crash between two transactions of a batch, and against a concurrent writer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from postline.events.domain import Event, EventType
from postline.usage.quota import EmailLimits
from postline.usage.store import DynamoCounterStore
from postline.verification.activity import ActivityChunk, ActivityRecorder, Recipient, Seen
from postline.verification.domain import Registration
from postline.verification.ports import ActivityCounters
from postline.verification.store import DynamoActivity, DynamoDomainFacts, DynamoVerificationCounters
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock, RecordingMeter

NOW = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)


ACCOUNT = "acc_activity"


def event(
    kind: EventType, at: datetime, recipient: str = "Ada@Acme.test", step: str = "0", *, test: bool = False
) -> Event:
    return Event(
        id=f"evt_{kind.value}_{at.timestamp():.0f}_{step}",
        account_id=ACCOUNT,
        data={"test": True} if test else {},
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
    facts.remember_registration("acme.test", Registration(registered), NOW)
    assert facts.registration("acme.test", NOW + timedelta(days=29)) == Registration(registered)
    assert facts.registration("acme.test", NOW + timedelta(days=31)) is None
    down = Registration(None, "the registry answered 503 for down.test", unreachable=True)
    facts.remember_registration("down.test", down, NOW)
    assert facts.registration("down.test", NOW + timedelta(minutes=59)) == down
    assert facts.registration("down.test", NOW + timedelta(minutes=61)) is None
    facts.remember_registration("gone.test", Registration(None, "the registry answered 404 for gone.test"), NOW)
    assert facts.registration("gone.test", NOW) is None  # an answer without a date is asked again


class Batch:
    """A stream batch as the consumer sees it: (events partition, sequence number, event)."""

    def __init__(self, positioned: list[tuple[str, str, Event]]) -> None:
        self.positioned = positioned

    def positioned_events(self, records: list[dict[str, object]]) -> list[tuple[str, str, Event]]:
        return self.positioned


def recorder(
    stack: InProcessStack, counters: ActivityCounters | None = None
) -> tuple[ActivityRecorder, RecordingMeter]:
    meter = RecordingMeter()
    store = counters or DynamoActivity(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    return ActivityRecorder(stream=Batch([]), counters=store, clock=FixedClock(NOW), meter=meter), meter


def consume(activity: ActivityRecorder, positioned: list[tuple[str, str, Event]]) -> int:
    activity._stream = Batch(positioned)
    return activity.record_records([])


def totals(stack: InProcessStack, address: str = "ada@acme.test") -> dict[str, object]:
    return DynamoActivity(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"]).activity(ACCOUNT, address).model_dump()


def test_activity_counts_each_event_once_in_any_order(stack: InProcessStack) -> None:
    activity, meter = recorder(stack)
    early, late = NOW - timedelta(days=3), NOW - timedelta(hours=1)
    first = [
        ("EVT#a", "100", event(EventType.SENT, late)),
        ("EVT#a", "101", event(EventType.DELIVERED, late)),
        ("EVT#a", "102", event(EventType.SENT, late, recipient="bo@acme.test", test=True)),  # a test key's: not history
    ]
    second = [  # another partition's records, older events, arriving later (another shard)
        ("EVT#b", "7", event(EventType.SENT, early)),
        ("EVT#b", "8", event(EventType.BOUNCED, early)),
        ("EVT#a", "103", event(EventType.OPENED, late)),
        ("EVT#a", "104", event(EventType.CLICKED, late)),
    ]
    assert consume(activity, first) == 2
    assert consume(activity, second) == 4
    assert consume(activity, first) == consume(activity, second) == 0  # the stream redelivered both batches
    assert consume(activity, first[1:] + second[2:]) == 0  # re-batched: still nothing new
    assert meter.counts == {("RecipientActivityCounted", frozenset()): 6}
    assert totals(stack) == {
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
    assert totals(stack, "nobody@acme.test")["seen"] is False
    assert totals(stack, "bo@acme.test")["seen"] is False


class CrashAfter:
    """The store, dying (like a Lambda timing out) after `commits` runs of writes."""

    def __init__(self, store: DynamoActivity, commits: int) -> None:
        self._store = store
        self._left = commits
        self.watermarks = store.watermarks
        self.seen = store.seen

    def apply(self, chunk: ActivityChunk, seen: dict[Recipient, Seen]) -> int:
        if self._left == 0:
            raise TimeoutError("the function timed out")
        self._left -= 1
        return self._store.apply(chunk, seen)


def test_a_batch_of_many_recipients_resumes_after_a_crash_between_runs_of_writes(stack: InProcessStack) -> None:
    store = DynamoActivity(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    readers = [f"reader{n}@crash.test" for n in range(150)]  # 150 recipients: two runs of writes
    batch = [
        (f"EVT#p{n % 3}", f"{1000 + n}", event(kind, NOW - timedelta(minutes=n), recipient=to, step=str(n)))
        for n, (to, kind) in enumerate((to, kind) for to in readers for kind in (EventType.SENT, EventType.DELIVERED))
    ]
    crashing, _ = recorder(stack, CrashAfter(store, commits=1))
    with pytest.raises(TimeoutError):
        consume(crashing, batch)
    counted_before = sum(bool(totals(stack, to)["seen"]) for to in readers)
    assert 0 < counted_before < len(readers)  # the first run wrote, the second did not
    retried, _ = recorder(stack)
    assert consume(retried, batch) == len(batch) - 2 * counted_before
    for to in readers:
        found = totals(stack, to)
        assert (found["total_sends"], found["delivered"]) == (1, 1), to
        assert found["first_seen_at"] is not None and found["first_seen_at"] <= found["last_seen_at"]  # type: ignore[operator]


def test_a_concurrent_writer_fails_the_condition_and_the_write_is_rebuilt_from_the_item(stack: InProcessStack) -> None:
    store = DynamoActivity(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])
    to = "race@acme.test"
    racing, _ = recorder(stack)
    stale = store.seen  # what this run read, before the other shard's run wrote

    class Interleaved:
        watermarks = store.watermarks
        apply = store.apply

        def seen(self, recipients: list[Recipient]) -> dict[Recipient, Seen]:
            found = stale(recipients)
            other, _ = recorder(stack)
            consume(other, [("EVT#other", "5", event(EventType.SENT, NOW - timedelta(days=9), recipient=to))])
            return found

    racing._counters = Interleaved()
    mine = [("EVT#mine", "5", event(EventType.SENT, NOW - timedelta(days=10), recipient=to, step="m"))]
    assert consume(racing, mine) == 1  # its first-seen condition failed on the other's write: rebuilt
    found = totals(stack, to)
    assert (found["total_sends"], found["first_seen_at"]) == (2, NOW - timedelta(days=10))
    assert found["last_seen_at"] == NOW - timedelta(days=9)
    again, _ = recorder(stack)
    assert consume(again, mine) == 0  # the same record again: the item's mark holds it
    assert totals(stack, to)["total_sends"] == 2
