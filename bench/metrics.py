"""Benchmark section n: the metrics routes and the events query's total_count on a large account.

The account's events are loaded straight into moto with the roll-ups the metrics consumer would
have made of them (bench/seed.py `load_rollups`), at two sizes (the small one, then the large one
holding both loads), so every figure comes twice and its growth shows whether it stays flat.

- GET /v3/metrics/summary (30 days), /timeseries (366 days, day resolution) and /breakdown (tag,
  30 days) through the API; bare = boto3 Queries of the roll-up items that request needs (one per
  UTC day partition, `all` series or the dimension's items), made 8 at a time as the service does.
  Goal: the API within 2x of the bare reads, and flat as the account grows (within 20%).
- GET /v3/events first page with total_count (no filter, event=delivered, tag=weekly) through the
  API; bare = one boto3 Query of the same page (bench/events.py). Goal: within 5x.
- At the larger size, the three metrics requests again after the daily pass packed the account's
  closed days (postline/metrics/packing.py, run here as if three days later): API and bare reads
  before and after, and the roll-up items each request reads (answers compared: equal).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import events as events_section
from bench import seed
from bench.api import ApiClient
from bench.recorder import CallRecorder
from bench.replay import Emulator
from bench.stats import Latencies, ratio
from devtools.local.runtime import Runtime
from postline.metrics.domain import ALL, utc_days
from postline.metrics.packing import PackingRun, PackingService
from postline.metrics.store import DynamoRollups, day_condition, rollup_pk

METRICS_GOAL = 2.0
EVENTS_GOAL = 5.0
_PARALLEL = 8  # as the metrics store's partition reads


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    params: dict[str, str]
    api: Latencies
    bare: Latencies
    reads: int  # storage calls of one request
    ratio_p50: float
    goal: float
    count_queries: int = 0  # COUNT queries of one request (the events page)
    total_count: int | None = None
    timeouts: int = 0  # 503 query_timeout answers (the request's time budget ran out): not timed


@dataclass(frozen=True)
class PackedCase:
    name: str
    api_before: Latencies
    api_after: Latencies
    bare_before: Latencies
    bare_after: Latencies
    items_before: int  # roll-up items the request reads
    items_after: int
    same_answer: bool


@dataclass(frozen=True)
class Packing:
    seconds: float
    series: int  # packed items written
    hour_items: int  # hour items folded into them
    cases: list[PackedCase]


@dataclass(frozen=True)
class MetricsRun:
    events: int
    repeats: int
    cases: list[Case]
    packing: Packing | None = None


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def measure(
    runtime: Runtime,
    api: ApiClient,
    aws: Emulator,
    recorder: CallRecorder,
    count: int,
    repeats: int,
    progress: Callable[[str], None],
    *,
    pack: bool = False,
) -> MetricsRun:
    db = aws.client("dynamodb")
    counters = runtime.env["COUNTERS_TABLE"]
    account = str(runtime.dev["account_id"])
    now = runtime.clock.now()
    month, year = now - timedelta(days=30), now - timedelta(days=366)
    planned: list[tuple[str, str, dict[str, str], Callable[[], Any]]] = [
        (
            "summary, 30 days",
            "/v3/metrics/summary",
            {"since": _iso(month), "until": _iso(now)},
            _rollup_reads(db, counters, account, month, now, series=ALL),
        ),
        (
            "timeseries, 366 days by day",
            "/v3/metrics/timeseries",
            {"since": _iso(year), "until": _iso(now), "resolution": "day"},
            _rollup_reads(db, counters, account, year, now, series=ALL),
        ),
        (
            "breakdown tag, 30 days",
            "/v3/metrics/breakdown",
            {"dimension": "tag", "since": _iso(month), "until": _iso(now)},
            _rollup_reads(db, counters, account, month, now, dimension="tag"),
        ),
    ]
    table = runtime.env["EVENTS_TABLE"]
    for name, params in (("events page", {}), ("events event=delivered", {"event": "delivered"})):
        request = events_section._bare_page(table, account, params, 25, now)
        planned.append((name, "/v3/events", {**params, "limit": "25"}, _page_read(db, request)))
    tagged = events_section._bare_page(table, account, {"tag": seed.TAG}, 25, now)
    planned.append(("events tag=weekly", "/v3/events", {"tag": seed.TAG, "limit": "25"}, _page_read(db, tagged)))
    cases = []
    for name, path, params, bare in planned:
        progress(f"n. {name}: {repeats} times through the API, then the bare reads")
        api.get_status(path, params)  # untimed: the route's cold start
        api_seconds, bare_seconds = [], []
        reads = counts = timeouts = 0
        total: int | None = None
        for _ in range(repeats):
            mark = recorder.mark()
            seconds, status, body = api.get_status(path, params)
            if status == 503:
                timeouts += 1
                continue
            if status != 200:
                raise RuntimeError(f"{path} answered {status}: {body}")
            api_seconds.append(seconds)
            calls = [c for c in recorder.since(mark) if c.service == "dynamodb" and c.operation != "UpdateItem"]
            reads = len(calls)
            counts = sum(1 for c in calls if c.params.get("Select") == "COUNT")
            total = body.get("total_count") if path == "/v3/events" else None
            started = time.perf_counter()
            bare()
            bare_seconds.append(time.perf_counter() - started)
        api_l, bare_l = Latencies.of(api_seconds), Latencies.of(bare_seconds)
        goal = EVENTS_GOAL if path == "/v3/events" else METRICS_GOAL
        cases.append(Case(name, path, params, api_l, bare_l, reads, ratio(api_l.p50, bare_l.p50), goal, counts, total))
    packing = _pack_and_measure(runtime, api, db, counters, account, planned[:3], repeats, progress) if pack else None
    return MetricsRun(count, repeats, cases, packing)


def _pack_and_measure(
    runtime: Runtime,
    api: ApiClient,
    db: Any,
    counters: str,
    account: str,
    planned: list[tuple[str, str, dict[str, str], Callable[[], Any]]],
    repeats: int,
    progress: Callable[[str], None],
) -> Packing:
    """The metrics requests before and after packing the account's closed days."""

    def timed(path: str, params: dict[str, str], bare: Callable[[], Any]) -> tuple[Latencies, Latencies, int, Any]:
        api_seconds, bare_seconds, items, answer = [], [], 0, None
        for _ in range(repeats):
            seconds, status, body = api.get_status(path, params)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}: {body}")
            api_seconds.append(seconds)
            answer = {k: v for k, v in body.items() if k != "data_as_of"}
            started = time.perf_counter()
            items = bare()
            bare_seconds.append(time.perf_counter() - started)
        return Latencies.of(api_seconds), Latencies.of(bare_seconds), items, answer

    before = {name: timed(path, params, bare) for name, path, params, bare in planned}
    progress("n. packing the account's closed days of roll-ups (the daily pass, as if three days later)")
    later = _At(runtime.clock.now() + timedelta(days=3))  # every loaded day closed for 26 hours
    run = PackingRun()
    started = time.perf_counter()
    PackingService(store=DynamoRollups(db, counters), clock=later).pack_account(account, run)
    seconds = time.perf_counter() - started
    cases = []
    for name, path, params, bare in planned:
        progress(f"n. {name} after packing: {repeats} times through the API, then the bare reads")
        api_b, bare_b, items_b, answer_b = before[name]
        api_a, bare_a, items_a, answer_a = timed(path, params, bare)
        cases.append(PackedCase(name, api_b, api_a, bare_b, bare_a, items_b, items_a, answer_a == answer_b))
    return Packing(seconds, run.series, run.hour_items, cases)


class _At:
    def __init__(self, moment: datetime) -> None:
        self._moment = moment

    def now(self) -> datetime:
        return self._moment


def _rollup_reads(
    db: Any,
    table: str,
    account: str,
    since: datetime,
    until: datetime,
    *,
    series: str | None = None,
    dimension: str | None = None,
) -> Callable[[], int]:
    """The Queries of the roll-up items a request over [since, until) needs, 8 at a time."""
    condition, bounds = day_condition(series=series, dimension=dimension)
    requests = [
        {
            "TableName": table,
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": {":pk": {"S": rollup_pk(account, "live", day)}, **bounds},
        }
        for day in utc_days(since, until)
    ]

    def read(request: dict[str, Any]) -> int:
        found = 0
        while True:
            page = db.query(**request)
            found += len(page["Items"])
            if "LastEvaluatedKey" not in page:
                return found
            request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}

    def run() -> int:
        with ThreadPoolExecutor(max_workers=_PARALLEL) as pool:
            return sum(pool.map(read, requests))

    return run


def _page_read(db: Any, request: dict[str, Any]) -> Callable[[], float]:
    return lambda: events_section._bare_read(db, request, 25)
