"""The metrics roll-ups against moto: events written to the events table, their stream records
read back from the table's real stream, counted by RollupService over DynamoRollups, read by
MetricsService and compared with a recount of the events in plain Python. Exactly once: a
replayed batch, a re-batched redelivery and a crash between two transactions of a batch change
nothing."""

from __future__ import annotations

import uuid
from collections import Counter as Tally
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from postline.accounts.domain import Account, Plan
from postline.events.domain import Event, EventType
from postline.events.store import DynamoEventStore, StreamRecords
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.metrics.domain import Dimension, Resolution
from postline.metrics.ports import Chunk
from postline.metrics.service import MetricsService, RollupService
from postline.metrics.store import DynamoRollups
from postline.shared.errors import QueryTimeout, ValidationFailed
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HUMAN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36"
BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


class Stream:
    """The events table's stream as a consumer sees it: new records since the last read."""

    def __init__(self, stack: InProcessStack) -> None:
        self._streams = stack.client("dynamodbstreams")
        table = stack.client("dynamodb").describe_table(TableName=stack.env["EVENTS_TABLE"])["Table"]
        self._arn = table["LatestStreamArn"]
        shards = self._streams.describe_stream(StreamArn=self._arn)["StreamDescription"]["Shards"]
        self._iterators = {
            shard["ShardId"]: self._streams.get_shard_iterator(
                StreamArn=self._arn, ShardId=shard["ShardId"], ShardIteratorType="LATEST"
            )["ShardIterator"]
            for shard in shards
        }

    def read(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for shard, iterator in self._iterators.items():
            while True:
                page = self._streams.get_records(ShardIterator=iterator, Limit=1000)
                iterator = page["NextShardIterator"]
                records += page["Records"]
                if not page["Records"]:
                    break
            self._iterators[shard] = iterator
        return records


@pytest.fixture(scope="module")
def stream(stack: InProcessStack) -> Stream:
    return Stream(stack)


@pytest.fixture
def rollups(stack: InProcessStack) -> DynamoRollups:
    return DynamoRollups(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])


def _principal(env: Environment = Environment.TEST) -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, created_at=NOW - timedelta(days=400))
    return Principal(account=account, scope=Scope.READ_ONLY, env=env)


def _event(account_id: str, kind: EventType, at: datetime, message: str, recipient: str, **data: Any) -> Event:
    return Event(
        id=f"evt_{uuid.uuid4().hex}",
        account_id=account_id,
        type=kind,
        message_id=message,
        recipient=recipient,
        timestamp=at,
        tags=["invoice"] if message.endswith(("0", "2", "4", "6", "8")) else ["welcome"],
        data={"test": True, **data},
        sending_domain="example.com" if message.endswith(("0", "1", "2")) else "example.org",
        created_at=at,
        expires_at=int((at + timedelta(days=30)).timestamp()),
    )


def _day_of_traffic(account_id: str, start: datetime, messages: int = 40) -> list[Event]:
    """Per message: queued, sent, then delivered / hard or soft bounce / complaint, and for the
    delivered ones human and bot opens, repeated opens and clicks; spread over a day."""
    events: list[Event] = []
    for n in range(messages):
        at = start + timedelta(minutes=37 * n)
        message, to = f"msg_{account_id}_{n}", f"user{n}@{['gmail.com', 'example.net', 'yahoo.com'][n % 3]}"
        events.append(_event(account_id, EventType.QUEUED, at, message, to))
        events.append(
            _event(account_id, EventType.SENT, at + timedelta(seconds=2), message, to, processing_ms=2000 + n)
        )
        outcome = n % 5
        later = at + timedelta(seconds=3)
        if outcome == 1:
            events.append(
                _event(account_id, EventType.BOUNCED, later, message, to, bounce_class="hard", bounce_code="5.1.1")
            )
        elif outcome == 2:
            events.append(
                _event(account_id, EventType.BOUNCED, later, message, to, bounce_class="soft", bounce_code="5.2.2")
            )
        else:
            events.append(_event(account_id, EventType.DELIVERED, later, message, to, delivery_ms=300 + 10 * n))
            if outcome == 3:
                events.append(_event(account_id, EventType.COMPLAINED, later, message, to, complaint_type="abuse"))
            else:
                for minutes in (20, 95):  # the same reader twice: one unique open
                    when = at + timedelta(minutes=minutes)
                    events.append(_event(account_id, EventType.OPENED, when, message, to, user_agent=HUMAN))
                events.append(
                    _event(account_id, EventType.OPENED, at + timedelta(minutes=1), message, to, user_agent=BOT)
                )
                events.append(
                    _event(account_id, EventType.CLICKED, at + timedelta(minutes=30), message, to, user_agent=HUMAN)
                )
    return events


def _recount(events: list[Event], since: datetime, until: datetime) -> Tally[str]:
    """The figures straight from the events: what the roll-ups must agree with."""
    counts: Tally[str] = Tally()
    uniques: dict[tuple[str, str, str], datetime] = {}
    for event in events:
        human = event.data.get("user_agent") == HUMAN
        if event.type in (EventType.OPENED, EventType.CLICKED) and human:
            pair = ("open" if event.type is EventType.OPENED else "click", event.message_id, event.recipient or "")
            uniques[pair] = min(uniques.get(pair, event.timestamp), event.timestamp)
        if not since <= event.timestamp < until:
            continue
        if event.type in (EventType.OPENED, EventType.CLICKED) and not human:
            continue
        counts[event.type.value] += 1
        if event.type is EventType.BOUNCED:
            counts[f"bounce_{event.data['bounce_class']}"] += 1
    for (kind, _, _), first in uniques.items():
        if since <= first < until:
            counts[f"unique_{kind}s"] += 1
    return counts


def _consume(service: RollupService, records: list[dict[str, Any]], size: int = 100) -> int:
    return sum(service.consume(records[start : start + size]) for start in range(0, len(records), size))


def _write(stack: InProcessStack, stream: Stream, events: list[Event]) -> list[dict[str, Any]]:
    stream.read()  # what earlier tests left
    DynamoEventStore(stack.client("dynamodb"), stack.env["EVENTS_TABLE"]).put(events)
    records = stream.read()
    assert len([r for r in records if r["dynamodb"]["Keys"]["pk"]["S"].startswith("EVT#")]) == len(events)
    return records


def _summary(service: MetricsService, principal: Principal, since: datetime, until: datetime, **more: Any) -> Any:
    defaults: dict[str, Any] = {"timezone": "UTC", "tag": None, "domain": None, "compare": False}
    return service.summary(principal, since=since, until=until, **{**defaults, **more})


@pytest.fixture
def metrics(rollups: DynamoRollups) -> MetricsService:
    return MetricsService(rollups=rollups, clock=FixedClock(NOW), budget_ms=30_000)


@pytest.fixture
def traffic(stack: InProcessStack, stream: Stream) -> tuple[Principal, list[Event], list[dict[str, Any]]]:
    principal = _principal()
    events = _day_of_traffic(principal.account.id, NOW - timedelta(days=2, hours=3))
    return principal, events, _write(stack, stream, events)


def test_the_summary_equals_a_recount_of_the_events(
    traffic: tuple[Principal, list[Event], list[dict[str, Any]]], rollups: DynamoRollups, metrics: MetricsService
) -> None:
    principal, events, records = traffic
    counted = _consume(RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW)), records)
    assert counted == sum(1 for e in events if e.type is not EventType.QUEUED and e.data.get("user_agent") != BOT)
    since, until = NOW - timedelta(days=7), NOW
    expected = _recount(events, since, until)
    summary = _summary(metrics, principal, since, until)
    delivery, engagement = summary.delivery, summary.engagement
    assert (delivery.sent, delivery.delivered, delivery.bounced, delivery.complained) == (
        expected["sent"], expected["delivered"], expected["bounced"], expected["complained"]
    )  # fmt: skip
    assert (delivery.bounces.hard, delivery.bounces.soft, delivery.bounces.undetermined) == (
        expected["bounce_hard"], expected["bounce_soft"], 0
    )  # fmt: skip
    assert delivery.bounced <= delivery.sent and delivery.bounce_rate == expected["bounced"] / expected["sent"]
    assert (engagement.opens, engagement.unique_opens, engagement.clicks, engagement.unique_clicks) == (
        expected["opened"], expected["unique_opens"], expected["clicked"], expected["unique_clicks"]
    )  # fmt: skip
    assert engagement.opens_direct == engagement.opens
    assert engagement.open_rate == expected["unique_opens"] / expected["delivered"]
    processing = sorted(float(e.data["processing_ms"]) for e in events if e.type is EventType.SENT)
    p50 = summary.latency.processing.p50_ms
    assert p50 is not None and abs(p50 - processing[int(0.5 * (len(processing) - 1))]) <= 0.011 * p50 + 1
    assert summary.latency.total.p50_ms is None  # no event recorded it

    # A live key sees none of the test traffic.
    live = Principal(account=principal.account, scope=principal.scope, env=Environment.LIVE)
    assert _summary(metrics, live, since, until).delivery.sent == 0


def test_a_replayed_or_rebatched_stream_changes_nothing(
    traffic: tuple[Principal, list[Event], list[dict[str, Any]]], rollups: DynamoRollups, metrics: MetricsService
) -> None:
    principal, events, records = traffic
    service = RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW))
    _consume(service, records[:70], size=35)
    since, until = NOW - timedelta(days=7), NOW
    first = _summary(metrics, principal, since, until)
    assert service.consume(records[:70]) == 0  # the same records again: all skipped
    assert _summary(metrics, principal, since, until) == first
    # Redelivered in other batches, overlapping what was counted: only the new ones count.
    _consume(service, records[50:], size=45)
    _consume(service, records, size=100)
    expected = _recount(events, since, until)
    summary = _summary(metrics, principal, since, until)
    assert (summary.delivery.sent, summary.engagement.unique_opens, summary.engagement.opens) == (
        expected["sent"], expected["unique_opens"], expected["opened"]
    )  # fmt: skip


class CrashAfter:
    """DynamoRollups that dies after `commits` runs of item writes: a worker killed mid-batch."""

    def __init__(self, inner: DynamoRollups, commits: int) -> None:
        self.inner, self.left = inner, commits

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def apply(self, chunk: Chunk) -> set[tuple[str, str]]:
        if self.left == 0:
            raise RuntimeError("killed")
        self.left -= 1
        return self.inner.apply(chunk)


def test_a_crash_between_transactions_of_a_batch_loses_and_doubles_nothing(
    stack: InProcessStack, stream: Stream, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    """A batch of many items (many recipient domains) is written in several runs; the worker dies
    after the first; the whole batch comes again."""
    principal = _principal()
    start = NOW - timedelta(hours=5)
    events = [
        _event(principal.account.id, EventType.SENT, start + timedelta(seconds=n), f"msg_{n}", f"u{n}@d{n}.example")
        for n in range(120)
    ]
    records = _write(stack, stream, events)
    crashing = RollupService(stream=StreamRecords(), rollups=CrashAfter(rollups, 1), clock=FixedClock(NOW))  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        crashing.consume(records)
    partial = _summary(metrics, principal, start, NOW).delivery.sent
    assert 0 < partial < 120
    RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW)).consume(records)
    assert _summary(metrics, principal, start, NOW).delivery.sent == 120
    breakdown = metrics.breakdown(
        principal, dimension=Dimension.RECIPIENT_DOMAIN, since=start, until=NOW, timezone="UTC",
        sort="sent", limit=5, include_trend=False,
    )  # fmt: skip
    assert breakdown.total == 120 and len(breakdown.data) == 5 and all(row.sent == 1 for row in breakdown.data)


def test_timeseries_and_breakdown_agree_with_the_events_in_kolkata_and_new_york_across_dst(
    stack: InProcessStack, stream: Stream, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    """Sends every 20 minutes from Saturday to Tuesday around New York's spring-forward (2026-03-08)."""
    principal = _principal()
    start = datetime(2026, 3, 7, 3, 5, tzinfo=UTC)
    events = [
        _event(principal.account.id, EventType.SENT, start + timedelta(minutes=20 * n), f"m{n}_x", f"u{n}@gmail.com")
        for n in range(3 * 72)  # messages named so that all are sent from example.org
    ]
    _consume(
        RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW)), _write(stack, stream, events)
    )
    for name in ("Asia/Kolkata", "America/New_York"):
        zone = ZoneInfo(name)
        since, until = datetime(2026, 3, 7, tzinfo=zone), datetime(2026, 3, 10, tzinfo=zone)
        series = metrics.timeseries(
            principal, since=since, until=until, timezone=name, resolution=Resolution.DAY,
            group_by="domain", tag=None, domain=None,
        )  # fmt: skip
        days = [point.timestamp for point in series.data]
        assert [d.date().isoformat() for d in days] == ["2026-03-07", "2026-03-08", "2026-03-09"]
        assert all(d.utcoffset() == d.astimezone(zone).utcoffset() and d.hour == 0 for d in days)
        bounds = [*days, until]
        for point, low, high in zip(series.data, bounds, bounds[1:], strict=False):
            assert point.sent == sum(1 for e in events if low <= e.timestamp < high), (name, point.timestamp)
        assert sum(point.sent for point in series.data) == sum(1 for e in events if since <= e.timestamp < until)
        (group,) = series.groups or []
        assert group.key == "example.org" and [p.sent for p in group.data] == [p.sent for p in series.data if p.sent]
    day = datetime(2026, 3, 8, tzinfo=ZoneInfo("America/New_York")).astimezone(UTC)  # 23 hours long
    hours = metrics.timeseries(
        principal, since=day, until=day + timedelta(hours=23), timezone="America/New_York",
        resolution=Resolution.HOUR, group_by="status", tag=None, domain=None,
    )  # fmt: skip
    assert len(hours.data) == 23  # the spring-forward day
    assert [g.key for g in hours.groups or []] == ["sent"]
    trend = metrics.breakdown(
        principal, dimension=Dimension.MAILBOX_PROVIDER, since=day, until=day + timedelta(hours=47),
        timezone="America/New_York", sort="sent", limit=10, include_trend=True,
    )  # fmt: skip
    (row,) = trend.data
    assert (row.key, row.label, trend.total) == ("google", "Google", 1)
    assert [point.value for point in row.trend or []] == [
        sum(1 for e in events if low <= e.timestamp < high)
        for low, high in ((day, day + timedelta(hours=23)), (day + timedelta(hours=23), day + timedelta(hours=47)))
    ]


def test_compare_and_the_window_rules(
    traffic: tuple[Principal, list[Event], list[dict[str, Any]]], rollups: DynamoRollups, metrics: MetricsService
) -> None:
    principal, events, records = traffic
    _consume(RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW)), records)
    middle = NOW - timedelta(days=2, hours=3) + timedelta(hours=12)
    summary = _summary(metrics, principal, middle, middle + timedelta(hours=12), compare=True)
    before = _recount(events, middle - timedelta(hours=12), middle)
    after = _recount(events, middle, middle + timedelta(hours=12))
    assert summary.comparison is not None
    assert (summary.comparison.delivery.sent, summary.delivery.sent) == (before["sent"], after["sent"])
    assert summary.comparison.delta.sent_pct_change == round((after["sent"] - before["sent"]) / before["sent"], 6)
    empty = _summary(metrics, principal, NOW - timedelta(days=300), NOW - timedelta(days=299), compare=True)
    assert empty.delivery.delivery_rate is None and empty.comparison is not None
    assert empty.comparison.delta.sent_pct_change is None and empty.comparison.delta.delivery_rate_pp is None
    tagged = _summary(metrics, principal, NOW - timedelta(days=7), NOW, tag="invoice")
    assert tagged.delivery.sent == sum(1 for e in events if e.type is EventType.SENT and "invoice" in e.tags)
    with pytest.raises(ValidationFailed):
        _summary(metrics, principal, NOW - timedelta(days=367), NOW)
    with pytest.raises(ValidationFailed):
        _summary(metrics, principal, NOW - timedelta(days=1), NOW, tag="a", domain="b.com")
    slow = MetricsService(rollups=rollups, clock=FixedClock(NOW), budget_ms=1)
    with pytest.raises(QueryTimeout) as timeout:
        _summary(slow, principal, NOW - timedelta(days=366), NOW)
    assert timeout.value.retry_after and timeout.value.status == 503


def test_a_backfill_rebuilds_closed_days_exactly_and_can_run_again(
    stack: InProcessStack, stream: Stream, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    """A stack deployed before the roll-ups: the events are stored, the stream never counted them
    (or counted part of a day). The backfill gives what the stream would have, and a rerun changes
    nothing; a day the stream may still deliver is refused."""
    principal = _principal()
    start = NOW - timedelta(days=4, hours=1)  # 2026-03-06 11:00 UTC to 2026-03-07 ~13:00
    events = _day_of_traffic(principal.account.id, start)
    records = _write(stack, stream, events)
    store = DynamoEventStore(stack.client("dynamodb"), stack.env["EVENTS_TABLE"])
    service = RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW))
    service.consume(records[: len(records) // 3])  # the stream had counted a part of the first day
    since, until = NOW - timedelta(days=7), NOW
    days = [date(2026, 3, 6), date(2026, 3, 7)]
    counted = [service.rebuild_day(principal.account.id, day, store) for day in days]
    assert sum(counted) == sum(1 for e in events if e.type is not EventType.QUEUED and e.data.get("user_agent") != BOT)
    expected = _recount(events, since, until)
    first = _summary(metrics, principal, since, until)
    assert (first.delivery.sent, first.delivery.bounced, first.engagement.opens, first.engagement.unique_opens) == (
        expected["sent"], expected["bounced"], expected["opened"], expected["unique_opens"]
    )  # fmt: skip
    assert first.engagement.unique_clicks == expected["unique_clicks"]
    for day in days:  # again: the same items
        service.rebuild_day(principal.account.id, day, store)
    assert _summary(metrics, principal, since, until) == first
    with pytest.raises(ValidationFailed):
        service.rebuild_day(principal.account.id, date(2026, 3, 9), store)


class DiesAfterWrites:
    """A DynamoDB client that dies after `writes` counter-item updates: a worker killed between two
    items of one run of writes (some items hold the batch's additions, the others not)."""

    def __init__(self, inner: Any, writes: int) -> None:
        self.inner, self.left = inner, writes

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def update_item(self, **params: Any) -> Any:
        if params["Key"]["pk"]["S"].startswith(("MET#", "EVC#")):
            if self.left == 0:
                raise RuntimeError("killed")
            self.left -= 1
        return self.inner.update_item(**params)


@pytest.mark.parametrize("writes", [1, 4, 9])
def test_a_crash_between_two_items_writes_loses_and_doubles_nothing(
    stack: InProcessStack, stream: Stream, rollups: DynamoRollups, metrics: MetricsService, writes: int
) -> None:
    """Each item keeps the last record it added (its mark): the redelivered batch adds to the items
    the crash left behind, and to the others only what they lack (here: nothing)."""
    principal = _principal()
    events = _day_of_traffic(principal.account.id, NOW - timedelta(days=2, hours=3), messages=10)
    records = _write(stack, stream, events)
    table = stack.env["COUNTERS_TABLE"]
    dying = DynamoRollups(DiesAfterWrites(stack.client("dynamodb"), writes), table)
    with pytest.raises(RuntimeError):
        RollupService(stream=StreamRecords(), rollups=dying, clock=FixedClock(NOW)).consume(records)
    service = RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(NOW))
    assert service.consume(records) > 0
    assert service.consume(records) == 0  # once more: every item holds it all
    since, until = NOW - timedelta(days=7), NOW
    expected = _recount(events, since, until)
    summary = _summary(metrics, principal, since, until)
    assert (summary.delivery.sent, summary.delivery.delivered, summary.delivery.bounced) == (
        expected["sent"], expected["delivered"], expected["bounced"]
    )  # fmt: skip
    assert (summary.engagement.opens, summary.engagement.unique_opens, summary.engagement.unique_clicks) == (
        expected["opened"], expected["unique_opens"], expected["unique_clicks"]
    )  # fmt: skip
