"""Packing closed days of metrics roll-ups against moto: traffic around New York's spring-forward
(2026-03-08) counted by the roll-up consumer, then every route's answers in UTC, Asia/Kolkata
(+05:30), Asia/Kathmandu (+05:45) and America/New_York before and after packing, after a pass
that dies between two transactions and its re-run, and with a consumer write racing the pass."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from devtools.moto_patches import moto_transactions
from postline.events.domain import EventType
from postline.events.store import StreamRecords
from postline.keys.identity import Principal
from postline.metrics import store as metrics_store
from postline.metrics.domain import Dimension, Resolution
from postline.metrics.packing import PackingRun, PackingService
from postline.metrics.service import MetricsService, RollupService
from postline.metrics.store import DynamoRollups, rollup_pk
from tests.adapters.test_metrics_rollups import Stream, _consume, _day_of_traffic, _event, _principal, _write
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

LATER = datetime(2026, 3, 13, 12, 0, tzinfo=UTC)  # 2026-03-11 is the last day closed for 26 hours
DAYS = [f"{date(2026, 3, 5) + timedelta(days=n)}" for n in range(7)]  # 03-05 .. 03-11
ZONES = ("UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/New_York")
# Every zone is compared in the first test; the others need one whose +05:45 moves every boundary.
ONE_ZONE = ("Asia/Kathmandu",)


@pytest.fixture(scope="module", autouse=True)
def _transactions_cost_what_they_write() -> Iterator[None]:
    """moto alone deep-copies the whole table for each item of a transaction (the emulator's patch
    fixes that, devtools/moto_patches/moto_transactions.py): packing writes many transactions."""
    with moto_transactions.installed():
        yield


@pytest.fixture(scope="module")
def stream(stack: InProcessStack) -> Stream:
    return Stream(stack)


@pytest.fixture
def rollups(stack: InProcessStack) -> DynamoRollups:
    return DynamoRollups(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])


@pytest.fixture
def metrics(rollups: DynamoRollups) -> MetricsService:
    return MetricsService(rollups=rollups, clock=FixedClock(LATER), budget_ms=30_000)


@pytest.fixture
def counted(stack: InProcessStack, stream: Stream, rollups: DynamoRollups) -> Principal:
    """Sends every 40 minutes from 2026-03-06 to 03-10 (in quarters 0, 1 and 3 of their hours) and
    most of a day of mixed traffic (bounces, complaints, human and bot opens, clicks, latency)
    across New York's change to summer time."""
    principal = _principal()
    account = principal.account.id
    start = datetime(2026, 3, 6, 1, 5, tzinfo=UTC)
    events = [
        _event(account, EventType.SENT, start + timedelta(minutes=40 * n), f"m{n}_x", f"u{n}@gmail.com")
        for n in range(4 * 36)
    ]
    events += _day_of_traffic(account, datetime(2026, 3, 7, 22, 10, tzinfo=UTC), messages=30)
    _consume(
        RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(LATER)), _write(stack, stream, events)
    )
    return principal


def _answers(metrics: MetricsService, principal: Principal, zones: tuple[str, ...] = ZONES) -> list[dict[str, Any]]:
    """Every route's answer for the days around the change, in each zone, at several resolutions."""
    out: list[dict[str, Any]] = []
    for name in zones:
        zone = ZoneInfo(name)
        since, until = datetime(2026, 3, 6, tzinfo=zone), datetime(2026, 3, 11, 7, 45, tzinfo=zone)
        out.append(
            metrics.summary(
                principal, since=since, until=until, timezone=name, tag=None, domain=None, compare=True
            ).model_dump()
        )
        for resolution in (Resolution.HOUR, Resolution.DAY, Resolution.WEEK):
            for group_by in ("status", "domain"):
                out.append(
                    metrics.timeseries(
                        principal, since=since, until=until, timezone=name, resolution=resolution,
                        group_by=group_by, tag=None, domain=None,
                    ).model_dump()
                )  # fmt: skip
        for dimension in (Dimension.MAILBOX_PROVIDER, Dimension.TAG, Dimension.BOUNCE_CODE, Dimension.CLIENT):
            out.append(
                metrics.breakdown(
                    principal, dimension=dimension, since=since, until=until, timezone=name,
                    sort="sent", limit=10, include_trend=True,
                ).model_dump()
            )  # fmt: skip
    for answer in out:
        answer.pop("data_as_of", None)
    return out


def _sort_keys(stack: InProcessStack, account_id: str) -> dict[str, list[str]]:
    """Each test-mode day partition's sort keys."""
    client = stack.client("dynamodb")
    keys: dict[str, list[str]] = {}
    for day in DAYS:
        response = client.query(
            TableName=stack.env["COUNTERS_TABLE"],
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": rollup_pk(account_id, "test", day)}},
        )
        keys[day] = [item["sk"]["S"] for item in response["Items"]]
    return keys


def test_packing_changes_no_answer_in_any_zone_and_a_second_pass_nothing(
    stack: InProcessStack, counted: Principal, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    account = counted.account.id
    before = _answers(metrics, counted)
    assert before[0]["delivery"]["sent"] > 0 and before[0]["engagement"]["unique_opens"] > 0
    hour_items = sum(len(keys) for keys in _sort_keys(stack, account).values())
    packing = PackingService(store=rollups, clock=FixedClock(LATER))
    run = PackingRun()
    assert packing.pack_account(account, run)
    assert run.hour_items == hour_items and run.changed == 0 and run.too_large == 0
    packed = _sort_keys(stack, account)
    assert all(sk.endswith("#d") for keys in packed.values() for sk in keys)
    assert sum(len(keys) for keys in packed.values()) == run.series < hour_items / 5
    assert rollups.packed_through(account) == date(2026, 3, 11)
    assert _answers(metrics, counted) == before

    again = PackingRun()
    assert packing.pack_account(account, again) and again.series == 0 and again.days == 0
    assert _sort_keys(stack, account) == packed  # wrote nothing, so every answer stays


class _DiesAfter:
    """A DynamoDB client whose process dies after `commits` transactions."""

    def __init__(self, inner: Any, commits: int) -> None:
        self.inner, self.left = inner, commits

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def transact_write_items(self, **request: Any) -> Any:
        if self.left == 0:
            raise RuntimeError("killed")
        self.left -= 1
        return self.inner.transact_write_items(**request)


def test_a_pass_dying_mid_day_changes_nothing_and_its_rerun_finishes(
    stack: InProcessStack, counted: Principal, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    account = counted.account.id
    before = _answers(metrics, counted, ONE_ZONE)
    dying = DynamoRollups(_DiesAfter(stack.client("dynamodb"), 3), stack.env["COUNTERS_TABLE"])
    with pytest.raises(RuntimeError):
        PackingService(store=dying, clock=FixedClock(LATER)).pack_account(account)
    keys = [sk for day_keys in _sort_keys(stack, account).values() for sk in day_keys]
    assert any(sk.endswith("#d") for sk in keys) and not all(sk.endswith("#d") for sk in keys)  # partly packed
    assert _answers(metrics, counted, ONE_ZONE) == before

    run = PackingRun()
    assert PackingService(store=rollups, clock=FixedClock(LATER)).pack_account(account, run)
    assert run.changed == 0 and run.series > 0
    assert all(sk.endswith("#d") for day_keys in _sort_keys(stack, account).values() for sk in day_keys)
    assert _answers(metrics, counted, ONE_ZONE) == before


class _RacingWrite:
    """A DynamoDB client through which a consumer's ADD reaches an hour item just before the first
    packing transaction (after the pass read the partition)."""

    def __init__(self, inner: Any, table: str, item_key: dict[str, Any]) -> None:
        self.inner, self.table, self.item_key, self.raced = inner, table, item_key, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def transact_write_items(self, **request: Any) -> Any:
        if not self.raced:
            self.raced = True
            self.inner.update_item(
                TableName=self.table, Key=self.item_key,
                UpdateExpression="ADD q1_sent :one, v :one", ExpressionAttributeValues={":one": {"N": "1"}},
            )  # fmt: skip
        return self.inner.transact_write_items(**request)


def test_a_write_racing_the_pass_is_neither_lost_nor_doubled(
    stack: InProcessStack, counted: Principal, rollups: DynamoRollups, metrics: MetricsService
) -> None:
    account = counted.account.id
    day = "2026-03-08"
    since, until = datetime(2026, 3, 8, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC)

    def sent() -> int:
        summary = metrics.summary(
            counted, since=since, until=until, timezone="UTC", tag=None, domain=None, compare=False
        )
        return summary.delivery.sent

    first = sent()
    pk, sk = rollup_pk(account, "test", day), "all#05"
    racing = _RacingWrite(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"], {"pk": {"S": pk}, "sk": {"S": sk}})
    result = DynamoRollups(racing, stack.env["COUNTERS_TABLE"]).pack_day(account, "test", day)
    assert racing.raced and result.changed == 1 and result.series > 0  # the raced series was left alone
    assert sent() == first + 1
    again = rollups.pack_day(account, "test", day)
    assert (again.series, again.changed) == (1, 0)
    assert sent() == first + 1
    # An hour item written after its day was packed (a record the stream still had) counts, and folds in.
    client = stack.client("dynamodb")
    client.update_item(
        TableName=stack.env["COUNTERS_TABLE"], Key={"pk": {"S": pk}, "sk": {"S": sk}},
        UpdateExpression="ADD q2_sent :one, v :one", ExpressionAttributeValues={":one": {"N": "1"}},
    )  # fmt: skip
    assert sent() == first + 2
    assert rollups.pack_day(account, "test", day).series == 1 and sent() == first + 2


def test_a_day_too_big_for_one_item_keeps_its_hour_items(
    stack: InProcessStack,
    counted: Principal,
    rollups: DynamoRollups,
    metrics: MetricsService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    account = counted.account.id
    before = _answers(metrics, counted, ONE_ZONE)
    monkeypatch.setattr(metrics_store, "PACKED_MAX_BYTES", 600)  # the busier series of a day
    result = rollups.pack_day(account, "test", "2026-03-08")
    assert result.too_large > 0 and result.series > 0
    keys = _sort_keys(stack, account)["2026-03-08"]
    assert any(sk.endswith("#d") for sk in keys) and any(not sk.endswith("#d") for sk in keys)
    assert _answers(metrics, counted, ONE_ZONE) == before


def test_a_series_read_takes_its_own_hour_and_packed_items_only(stack: InProcessStack, rollups: DynamoRollups) -> None:
    """A series' key range (`tag#a#00` to `tag#a#d`) also spans a tag `a#b`'s items."""
    account = _principal().account.id
    pk = rollup_pk(account, "test", "2026-03-08")
    client = stack.client("dynamodb")
    for sk, sent in (("tag#a#05", 1), ("tag#a#b#05", 10), ("tag#a#B#d", 100), ("tag#a#d", 1000)):
        name = "h07q0_sent" if sk.endswith("#d") else "q0_sent"
        item = {"pk": {"S": pk}, "sk": {"S": sk}, name: {"N": str(sent)}, "expires_at": {"N": "1"}}
        client.put_item(TableName=stack.env["COUNTERS_TABLE"], Item=item)
    found = rollups.read(account, "test", ["2026-03-08"], series="tag#a", budget_seconds=10)
    assert sorted((item.hour, item.values["q0_sent"]) for item in found) == [(5, 1), (7, 1000)]
    everything = rollups.read(account, "test", ["2026-03-08"], dimension="tag", budget_seconds=10)
    assert sum(item.values["q0_sent"] for item in everything) == 1111


def test_a_day_is_not_packed_while_the_consumer_lags_behind_it(
    stack: InProcessStack, stream: Stream, rollups: DynamoRollups
) -> None:
    """The consumer notes its lag (IteratorAge: now - the batch's oldest ApproximateCreationDateTime)
    as it reads a batch; the pass counts the days closed from where the consumer stands."""
    at = LATER + timedelta(days=2)  # 03-15 12:00 (away from the other tests' minute): 03-13 is closed 26 h
    principal = _principal()
    account = principal.account.id
    day = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
    events = [
        _event(account, EventType.SENT, day + timedelta(minutes=n), f"m{n}_l", f"u{n}@gmail.com") for n in range(6)
    ]
    records = _write(stack, stream, events)
    for record in records:  # they entered the stream 40 hours ago: the consumer is that far behind
        record["dynamodb"]["ApproximateCreationDateTime"] = int((at - timedelta(hours=40)).timestamp())
    _consume(RollupService(stream=StreamRecords(), rollups=rollups, clock=FixedClock(at)), records)
    assert rollups.consumer_lag(at) == 40 * 3600
    rollups.note_lag(at, 5.0)  # a later batch of the same minute, caught up: the minute keeps its largest
    assert rollups.consumer_lag(at + timedelta(minutes=9)) == 40 * 3600

    packing = PackingService(store=rollups, clock=FixedClock(at + timedelta(minutes=9)))
    assert packing.pack_account(account)
    keys = _day_keys(stack, account, "2026-03-12")
    assert keys and not any(sk.endswith("#d") for sk in keys)  # 03-12: the consumer stands at 03-13 20:00
    assert rollups.packed_through(account) is None

    later = at + timedelta(minutes=11)  # no lag noted in the last ten minutes: the stream is caught up
    assert rollups.consumer_lag(later) == 0.0
    assert PackingService(store=rollups, clock=FixedClock(later)).pack_account(account)
    assert all(sk.endswith("#d") for sk in _day_keys(stack, account, "2026-03-12"))
    assert rollups.packed_through(account) == date(2026, 3, 13)


def _day_keys(stack: InProcessStack, account_id: str, day: str) -> list[str]:
    response = stack.client("dynamodb").query(
        TableName=stack.env["COUNTERS_TABLE"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": rollup_pk(account_id, "test", day)}},
    )
    return [item["sk"]["S"] for item in response["Items"]]
