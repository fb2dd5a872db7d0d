"""Benchmark sections e-g: webhook latency, the events query on a large account, exports.

e. An event written straight to the events table, to the first webhook attempt arriving at a
   real receiver on 127.0.0.1, at a steady rate; bare = the receiver's own round trip for a
   direct POST of the same body over a kept-alive connection, as the webhook client makes it.
f. GET /v3/events, first page, on an account holding `events` events spread over its 30 days
   (loaded straight into moto with their roll-ups: bench/seed.py), with and without filters, through the API and
   through the service; bare = a boto3 Query of the same key and page. The first page also counts
   every match over the window's day partitions (total_count): that is part of what it costs, so
   the storage calls the API made are also replayed one after another (a second bare figure).
   Also: moto's own Query against the emulator's patched one (devtools/moto_patches/moto_query.py) on a
   table of the same events, the speedup the patch brings.
   Then the query's cost at one shard and at the most (events/sharding.py), side by side: two
   accounts holding the same SHARD_EVENTS events over the same days (loaded with their roll-ups), one
   at one shard, the other at MAX_SHARDS since before its first event; the same first pages through
   the service, timed here, with their Query calls, read units and time at AWS's latencies.
g. An export of `export_rows` of those events, by the exporter's service in this process: rows
   per second and peak traced memory, against a plain loop of Query pages over the same partitions
   writing CSV to /dev/null.
"""

from __future__ import annotations

import csv
import os
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests
import urllib3

from bench import cloud, seed
from bench.api import ApiClient
from bench.recorder import Call, CallRecorder
from bench.replay import Emulator
from bench.stats import Latencies, ratio
from devtools.local.runtime import Runtime
from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.events.domain import Event, EventType, event_id
from postline.events.query import DAY_READ_TYPES, TYPE_SPREAD, event_filters
from postline.events.sharding import MAX_SHARDS
from postline.events.store import (
    BY_RECIPIENT_INDEX,
    BY_TYPE_INDEX,
    DynamoEventStore,
    ShardDirectory,
    event_pk,
    recipient_key,
    sort_key,
    tag_pk,
    type_key,
)
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import QueryTimeout
from postline.wiring import auth, exports
from postline.wiring import events as events_root

_WEBHOOK_TIMEOUT_SECONDS = 60.0
_EXPORT_PAGE = 1000  # as the export's own reads (events/store.py)
_READ_BATCH = 200  # as the events query's filtered reads (events/store.py)
_SPEEDUP_REPEATS = 5
SPAN_DAYS = 30


# -- e. webhooks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Webhooks:
    events: int
    rate: float  # events written per second
    delivered: int
    latency: Latencies  # write returned -> request at the receiver
    bare: Latencies  # direct POST round trip
    ratio_p50: float
    ratio_p99: float
    # Events written first, untimed, each waited for: the first wakes the stream consumers' cold
    # starts (the fan-out's, the metrics roll-up's, the activity consumer's imports and clients),
    # which no later event pays. `cold_seconds`: that first event's latency, reported on its own.
    warmup: int = 0
    cold_seconds: float | None = None
    # CPU seconds per timed event, this process's (pumps, consumers, the bench's writes) and the emulator's.
    runtime_cpu_per_event: float | None = None
    emulator_cpu_per_event: float | None = None


WEBHOOK_WARMUP = 5


class Receiver:
    """Records when each webhook arrives (perf_counter), by event id, and its body (unless `keep` is
    False: a long run only counts them, `received`); answers 200, kept alive."""

    def __init__(self, *, keep: bool = True) -> None:
        self.arrived: dict[str, float] = {}
        self.bodies: list[bytes] = []
        self.received = 0
        self._keep = keep
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else a kept-alive answer waits ~40 ms for the client's delayed ACK

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                at = time.perf_counter()
                with receiver._lock:
                    receiver.received += 1
                    if receiver._keep:
                        receiver.arrived.setdefault(self.headers.get("X-Webhook-Event-Id", ""), at)
                        receiver.bodies.append(body)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="bench-receiver", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def webhooks(runtime: Runtime, api: ApiClient, aws: Emulator, count: int, rate: float) -> Webhooks:
    account_id = str(runtime.dev["account_id"])
    store = DynamoEventStore(aws.client("dynamodb"), runtime.env["EVENTS_TABLE"])
    with Receiver() as receiver:
        _, created = api.post("/v3/webhooks", {"url": receiver.url, "events": ["delivered"]}, expect=201)
        cold: list[float] = []
        for index in range(WEBHOOK_WARMUP):
            event = _delivered(account_id, f"{rate:g}_warm{index:03d}", runtime.clock.now())
            store.put([event])
            put_at = time.perf_counter()
            deadline = time.monotonic() + _WEBHOOK_TIMEOUT_SECONDS
            while event.id not in receiver.arrived and time.monotonic() < deadline:
                time.sleep(0.01)
            if event.id in receiver.arrived:
                cold.append(receiver.arrived[event.id] - put_at)
        warm = len(receiver.arrived)
        written: dict[str, float] = {}
        cpu_before = time.process_time(), runtime.emulator_cpu_seconds()
        began = time.perf_counter()
        for index in range(count):
            time.sleep(max(0.0, began + index / rate - time.perf_counter()))
            event = _delivered(account_id, f"{rate:g}_{index:06d}", runtime.clock.now())
            store.put([event])
            written[event.id] = time.perf_counter()
        deadline = time.monotonic() + _WEBHOOK_TIMEOUT_SECONDS
        while len(receiver.arrived) < count + warm and time.monotonic() < deadline:
            time.sleep(0.05)
        cpu_after = time.process_time(), runtime.emulator_cpu_seconds()
        latencies = [receiver.arrived[e] - at for e, at in written.items() if e in receiver.arrived]
        bare = _direct_posts(receiver.url, receiver.bodies[0], count)
    api.delete(f"/v3/webhooks/{created['id']}")
    latency, direct = Latencies.of(latencies), Latencies.of(bare)
    return Webhooks(
        events=count,
        rate=rate,
        delivered=len(latencies),
        latency=latency,
        bare=direct,
        ratio_p50=ratio(latency.p50, direct.p50),
        ratio_p99=ratio(latency.p99, direct.p99),
        warmup=WEBHOOK_WARMUP,
        cold_seconds=cold[0] if cold else None,
        runtime_cpu_per_event=(cpu_after[0] - cpu_before[0]) / count,
        emulator_cpu_per_event=(
            None if cpu_before[1] is None or cpu_after[1] is None else (cpu_after[1] - cpu_before[1]) / count
        ),
    )


def _delivered(account_id: str, name: str, now: datetime) -> Event:
    message_id = f"msg_bench_hook_{name}_{int(now.timestamp())}"
    recipient = f"hook{name}@example.com"
    return Event(
        id=event_id(message_id, EventType.DELIVERED, recipient),
        account_id=account_id,
        type=EventType.DELIVERED,
        message_id=message_id,
        recipient=recipient,
        timestamp=now,
        tags=["receipt"],
        data={"smtp_response": "250 2.0.0 OK"},
        created_at=now,
        expires_at=int((now + timedelta(days=30)).timestamp()),
    )


def _direct_posts(url: str, body: bytes, count: int) -> list[float]:
    pool = urllib3.PoolManager(retries=False)  # as the webhook client (webhook_delivery/http_client.py)
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        pool.request("POST", url, body=body, headers={"Content-Type": "application/json"})
        seconds.append(time.perf_counter() - started)
    return seconds


# -- f. the events query ---------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryCase:
    name: str
    params: dict[str, str]
    limit: int
    api: Latencies
    service: Latencies
    bare: Latencies  # the page alone
    calls: Latencies  # every storage call the API request made (counts too), one after another
    count_queries: int  # Select=COUNT queries of one request
    total_count: int | None  # None when every request ran out of its time budget
    ratio_api_p50: float
    ratio_api_p99: float
    ratio_service_p50: float
    ratio_calls_p50: float
    timeouts: int  # 503 query_timeout answers (the request's time budget ran out)


@dataclass(frozen=True)
class EventsQuery:
    events: int
    days: int
    load_seconds: float
    first_query_seconds: float  # counting every partition once: builds the Query patch's views, sizes items
    repeats: int
    budget_ms: int
    cases: list[QueryCase]
    speedup_items: int
    moto_query_seconds: float  # moto's own Query, first page of one partition (p50)
    patched_query_seconds: float
    speedup: float


def load_events(runtime: Runtime, count: int, prefix: str = "q") -> tuple[float, datetime, float]:
    """Loads `count` events of the dev account over the last SPAN_DAYS days, with the roll-ups the
    metrics consumer would have made of them; (seconds, newest, step). Loads with different
    `prefix`es add up (their message ids differ)."""
    until = runtime.clock.now() - timedelta(seconds=1)
    step = SPAN_DAYS * 86_400 / count
    body = {
        "table": runtime.env["EVENTS_TABLE"],
        "account_id": runtime.dev["account_id"],
        "count": count,
        "until": until.isoformat(),
        "step_seconds": step,
        "prefix": prefix,
        "counters_table": runtime.env["COUNTERS_TABLE"],
    }
    began = time.perf_counter()
    response = requests.post(runtime.endpoint_url + seed.PATH, json=body, timeout=3600)
    response.raise_for_status()
    return time.perf_counter() - began, until, step


_CASES: list[tuple[str, dict[str, str], int]] = [
    ("no filter", {}, 25),
    ("no filter", {}, 100),
    ("event=delivered", {"event": "delivered"}, 25),
    ("recipient=", {"recipient": "reader7@example.com"}, 25),
    ("tag=weekly", {"tag": seed.TAG}, 25),
    ("metadata[plan]=pro", {"metadata[plan]": seed.PLAN}, 25),
]


def events_query(
    runtime: Runtime,
    api: ApiClient,
    aws: Emulator,
    recorder: CallRecorder,
    count: int,
    load_seconds: float,
    repeats: int,
    progress: Callable[[str], None],
) -> EventsQuery:
    speedup_items = min(count, 100_000)
    progress(f"f. moto's own Query against the patched one, {speedup_items:,} events in this process")
    moto_seconds, patched_seconds = _query_speedup(speedup_items)
    db = aws.client("dynamodb")
    table = runtime.env["EVENTS_TABLE"]
    key = runtime.dev["keys"]["live"]
    principal = auth.authenticator().authenticate(f"Bearer {key}", "127.0.0.1")
    service = events_root.event_service()
    began = time.perf_counter()
    # Untimed: the first Query of the table and of each index builds the emulator's views of it, and
    # the first count of each partition measures its items' sizes (kept for later pages).
    now = runtime.clock.now()
    account = str(runtime.dev["account_id"])
    for day in range(SPAN_DAYS + 2):
        partition = f"{now - timedelta(days=day):%Y-%m-%d}"
        _count(db, {"TableName": table, "KeyConditionExpression": "pk = :k"}, event_pk(account, partition))
        _count(db, {"TableName": table, "KeyConditionExpression": "pk = :k"}, tag_pk(account, partition, seed.TAG))
    for index, name in ((BY_TYPE_INDEX, "type_key"), (BY_RECIPIENT_INDEX, "recipient_key")):
        _count(db, {"TableName": table, "IndexName": index, "KeyConditionExpression": f"{name} = :k"}, "-")
    first_query = time.perf_counter() - began
    cases = []
    for name, params, limit in _CASES:
        progress(f"f. GET /v3/events {name} limit {limit}: {repeats} times through the API, the service and bare")
        query = {**params, "limit": str(limit)}
        filters = event_filters(
            {k: [v] for k, v in params.items() if k.startswith("metadata[")},
            **{k: v for k, v in params.items() if not k.startswith("metadata[")},
        )
        bare_request = _bare_page(table, account, params, limit, runtime.clock.now())
        api_seconds: list[float] = []
        service_seconds: list[float] = []
        bare_seconds: list[float] = []
        replayed: list[float] = []
        timeouts = counts = 0
        total: int | None = None
        for _ in range(repeats):
            mark = recorder.mark()
            seconds, status, page = api.get_status("/v3/events", query)
            calls = [c for c in recorder.since(mark) if _of_request(c)]
            if status == 503:
                timeouts += 1
            else:
                total = int(page["total_count"])
            api_seconds.append(seconds)
            counts = sum(1 for c in calls if c.params.get("Select") == "COUNT")
            started = time.perf_counter()
            with suppress(QueryTimeout):  # the time budget ran out: counted for the API, above
                service.list_page(principal, filters, limit=limit, cursor=None)
            service_seconds.append(time.perf_counter() - started)
            bare_seconds.append(_bare_read(db, bare_request, limit))
            replayed.append(_replay_reads(db, calls))
        api_l, service_l, bare_l, calls_l = (
            Latencies.of(s) for s in (api_seconds, service_seconds, bare_seconds, replayed)
        )
        cases.append(
            QueryCase(
                name=name,
                params=params,
                limit=limit,
                api=api_l,
                service=service_l,
                bare=bare_l,
                calls=calls_l,
                count_queries=counts,
                total_count=total,
                ratio_api_p50=ratio(api_l.p50, bare_l.p50),
                ratio_api_p99=ratio(api_l.p99, bare_l.p99),
                ratio_service_p50=ratio(service_l.p50, bare_l.p50),
                ratio_calls_p50=ratio(api_l.p50, calls_l.p50),
                timeouts=timeouts,
            )
        )
    return EventsQuery(
        events=count,
        days=SPAN_DAYS,
        load_seconds=load_seconds,
        first_query_seconds=first_query,
        repeats=repeats,
        budget_ms=int(runtime.env.get("EVENTS_QUERY_BUDGET_MS", "5000")),
        cases=cases,
        speedup_items=speedup_items,
        moto_query_seconds=moto_seconds,
        patched_query_seconds=patched_seconds,
        speedup=ratio(moto_seconds, patched_seconds),
    )


SHARD_EVENTS = 20_000  # the shard comparison's account: a modest one, loaded twice
_SHARD_CASES: list[tuple[str, dict[str, str]]] = [
    ("no filter", {}),
    ("event=delivered", {"event": "delivered"}),
    ("tag=weekly", {"tag": seed.TAG}),
    ("recipient=", {"recipient": "reader7@example.com"}),
]


@dataclass(frozen=True)
class ShardedPage:
    shards: int
    seconds: Latencies  # the service's first page (its count and its read), here
    queries: int  # Query calls of one first page: COUNTs and reads
    read_units: float  # DynamoDB read units of one first page (bench/cloud.py's pricing)
    modeled_ms: float  # its calls at AWS's latencies, the store's 8 at a time (cloud.pooled_ms)
    total_count: int
    page: tuple[str, ...]  # the page's event ids


@dataclass(frozen=True)
class ShardCase:
    name: str
    one: ShardedPage
    most: ShardedPage

    @property
    def same(self) -> bool:
        """Both accounts answered the same page and total (the same events at either count)."""
        return (self.one.page, self.one.total_count) == (self.most.page, self.most.total_count)


@dataclass(frozen=True)
class ShardCost:
    events: int
    days: int
    max_shards: int
    repeats: int
    cases: list[ShardCase]


def shard_cost(runtime: Runtime, recorder: CallRecorder, repeats: int, progress: Callable[[str], None]) -> ShardCost:
    """The events query's first page at one shard and at MAX_SHARDS, on the same events."""
    until = runtime.clock.now() - timedelta(seconds=1)
    step = SPAN_DAYS * 86_400 / SHARD_EVENTS
    table, db = runtime.env["EVENTS_TABLE"], wiring.client("dynamodb")
    directory = ShardDirectory(db, table)
    principals = {}
    for shards in (1, MAX_SHARDS):
        account_id = f"acct_shards{shards}_{uuid.uuid4().hex[:8]}"
        progress(f"f. loading {SHARD_EVENTS:,} events of an account at {shards} shard(s)")
        if shards > 1:  # in force from before its first event
            directory.set_count(account_id, shards, until - timedelta(days=SPAN_DAYS + 1))
        body = {
            "table": table,
            "account_id": account_id,
            "count": SHARD_EVENTS,
            "until": until.isoformat(),
            "step_seconds": step,
            "prefix": "s",  # the same message and event ids in both accounts: the same pages
            "counters_table": runtime.env["COUNTERS_TABLE"],
            "shards": shards,
        }
        requests.post(runtime.endpoint_url + seed.PATH, json=body, timeout=3600).raise_for_status()
        account = Account(id=account_id, plan=Plan.PROFESSIONAL, created_at=until - timedelta(days=SPAN_DAYS))
        principals[shards] = Principal(account=account, scope=Scope.READ_ONLY, env=Environment.LIVE)
    service = events_root.event_service()
    here = threading.current_thread().name
    cases = []
    for name, params in _SHARD_CASES:
        progress(f"f. GET /v3/events {name}: {repeats} first pages at 1 shard and at {MAX_SHARDS}")
        filters = event_filters(None, **params)
        measured = []
        for shards, principal in principals.items():
            service.list_page(principal, filters, limit=25, cursor=None)  # untimed: the emulator's views
            seconds: list[float] = []
            calls: list[Call] = []
            page = None
            for _ in range(repeats):
                mark = recorder.mark()
                started = time.perf_counter()
                page = service.list_page(principal, filters, limit=25, cursor=None)
                seconds.append(time.perf_counter() - started)
                calls = [
                    c
                    for c in recorder.since(mark)
                    if c.service == "dynamodb" and (c.thread == here or c.thread.startswith(("events-query", "event-")))
                ]
            assert page is not None
            queries = [c for c in calls if c.operation == "Query"]
            measured.append(
                ShardedPage(
                    shards=shards,
                    seconds=Latencies.of(seconds),
                    queries=len(queries),
                    read_units=cloud.usage_of(calls).units.get("dynamodb.read_unit", 0.0),
                    modeled_ms=cloud.pooled_ms(calls, workers=8, pool_prefix="events-query"),
                    total_count=page.total_count,
                    page=tuple(item.id for item in page.items),
                )
            )
        cases.append(ShardCase(name, measured[0], measured[1]))
    return ShardCost(SHARD_EVENTS, SPAN_DAYS, MAX_SHARDS, repeats, cases)


def _count(db: Any, request: dict[str, Any], key: str) -> None:
    request = {**request, "Select": "COUNT", "ExpressionAttributeValues": {":k": {"S": key}}}
    while "LastEvaluatedKey" in (page := db.query(**request)):
        request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}


def _of_request(call: Call) -> bool:
    """A call made for an API request: on its gateway thread, or the events query's pool."""
    return call.in_request or call.thread.startswith("events-query")


def _bare_page(table: str, account: str, params: dict[str, str], limit: int, now: datetime) -> dict[str, Any]:
    """The Query a client would make by hand for the first page: the key the filter selects, today."""
    day = f"{now:%Y-%m-%d}"
    window = {":oldest": {"S": sort_key(now - timedelta(days=SPAN_DAYS + 1), "")}, ":newest": {"S": sort_key(now, "~")}}
    request: dict[str, Any] = {"TableName": table, "ScanIndexForward": False}
    if "event" in params and params["event"] not in DAY_READ_TYPES:
        request["IndexName"], name, value = BY_TYPE_INDEX, "type_key", type_key(account, day, params["event"])
    elif "recipient" in params:
        request["IndexName"], name, value = (
            BY_RECIPIENT_INDEX,
            "recipient_key",
            recipient_key(account, params["recipient"]),
        )
    else:
        name, value = "pk", event_pk(account, day)
    request["KeyConditionExpression"] = f"{name} = :key AND sk BETWEEN :oldest AND :newest"
    request["ExpressionAttributeValues"] = {":key": {"S": value}, **window}
    if "event" in params and params["event"] in DAY_READ_TYPES:  # not in the sparse by_type index
        request["FilterExpression"] = "#t = :type"
        request["ExpressionAttributeNames"] = {"#t": "type"}
        request["ExpressionAttributeValues"][":type"] = {"S": params["event"]}
    elif "tag" in params:
        request["FilterExpression"] = "contains(tags, :tag)"
        request["ExpressionAttributeValues"][":tag"] = {"S": params["tag"]}
    elif "metadata[plan]" in params:
        request["FilterExpression"] = "#m.#p = :plan"
        request["ExpressionAttributeNames"] = {"#m": "metadata", "#p": "plan"}
        request["ExpressionAttributeValues"][":plan"] = {"S": params["metadata[plan]"]}
    request["Limit"] = max(limit, _READ_BATCH) if "FilterExpression" in request else limit
    if "event" in params and params["event"] in DAY_READ_TYPES and len(params) == 1:
        request["Limit"] = limit * TYPE_SPREAD  # a common type: about a quarter of what it reads
    return request


def _bare_read(db: Any, request: dict[str, Any], limit: int) -> float:
    """Seconds to read `limit` items with the request (pages until enough match the filter)."""
    started = time.perf_counter()
    found = 0
    while True:
        page = db.query(**request)
        found += len(page["Items"])
        if found >= limit or "LastEvaluatedKey" not in page:
            return time.perf_counter() - started
        request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}


def _replay_reads(db: Any, calls: list[Call]) -> float:
    """Seconds to make the request's (read-only) DynamoDB calls again, one after another."""
    started = time.perf_counter()
    for call in calls:
        if call.service == "dynamodb" and call.operation in ("Query", "GetItem", "BatchGetItem"):
            getattr(db, {"Query": "query", "GetItem": "get_item", "BatchGetItem": "batch_get_item"}[call.operation])(
                **call.params
            )
    return time.perf_counter() - started


def _query_speedup(count: int) -> tuple[float, float]:
    """p50 seconds of a first-page Query (limit 25, newest first) of one day partition, moto's own
    Query and the patched one, on a moto table (in this process) holding `count` events."""
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    from devtools.moto_patches import moto_query

    keys = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    table = Table(  # type: ignore[abstract]
        "speedup",
        "123456789012",
        "us-east-1",
        schema=keys,
        attr=[{"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk")],
    )
    now = datetime.now(UTC)
    seed.load(table, seed.Seed("speedup", "acct", count, now, SPAN_DAYS * 86_400 / count))
    partition = DynamoType({"S": event_pk("acct", f"{now:%Y-%m-%d}")})
    between = [DynamoType({"S": "0"}), DynamoType({"S": "~"})]

    def query() -> float:
        started = time.perf_counter()
        table.query(
            partition,
            "BETWEEN",
            between,
            26,
            None,  # type: ignore[arg-type]
            False,
            None,
            hash_key_conditions=[("pk", partition)],
            range_key_conditions=[("sk", "BETWEEN", between)],
        )
        return time.perf_counter() - started

    with moto_query.installed():
        query()  # builds the views
        patched = Latencies.of([query() for _ in range(_SPEEDUP_REPEATS)]).p50
        with moto_query.bypassed():
            own = Latencies.of([query() for _ in range(_SPEEDUP_REPEATS)]).p50
    return own, patched


# -- g. exports ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Export:
    rows: int
    seconds: float
    rows_per_second: float
    peak_bytes: int  # traced Python memory at its highest while the export ran (a second run)
    bare_rows: int
    bare_seconds: float
    bare_rows_per_second: float
    bare_peak_bytes: int
    ratio: float  # bare rows/s over export rows/s
    memory_ratio: float


def export(runtime: Runtime, api: ApiClient, aws: Emulator, newest: datetime, step: float, rows: int) -> Export:
    """Exports the newest `rows` loaded events (the window holds exactly those), twice: timed, then traced."""
    since = newest - timedelta(seconds=step * (rows - 0.5))
    window = {"since": since.isoformat(), "until": newest.isoformat()}
    exporter = exports.export_service()
    account = str(runtime.dev["account_id"])

    def run() -> int:
        _, accepted = api.post("/v3/events/export", window, expect=202)
        exporter.run(account, accepted["export_id"], receive_count=1)
        _, job = api.get("/v3/events/export/" + accepted["export_id"])
        if job["status"] != "completed":
            raise RuntimeError(f"the export ended {job['status']}: {job}")
        return int(job["row_count"])

    def bare() -> int:
        return _bare_export(aws.client("dynamodb"), runtime.env["EVENTS_TABLE"], account, since, newest)

    seconds, written = _timed(run)
    bare_seconds, bare_written = _timed(bare)
    with _traced() as peak:
        run()
    with _traced() as bare_peak:
        bare()
    return Export(
        rows=written,
        seconds=seconds,
        rows_per_second=written / seconds,
        peak_bytes=peak[0],
        bare_rows=bare_written,
        bare_seconds=bare_seconds,
        bare_rows_per_second=bare_written / bare_seconds,
        bare_peak_bytes=bare_peak[0],
        ratio=ratio(bare_written / bare_seconds, written / seconds),
        memory_ratio=ratio(peak[0], bare_peak[0]),
    )


def _timed(work: Callable[[], int]) -> tuple[float, int]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


@contextmanager
def _traced() -> Iterator[list[int]]:
    """Yields a list that holds the block's peak traced memory (bytes) once it ends."""
    peak = [0]
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def _bare_export(db: Any, table: str, account: str, since: datetime, until: datetime) -> int:
    """Query pages over the window's day partitions, newest first, each item a CSV row to /dev/null."""
    rows = 0
    with open(os.devnull, "w", newline="") as sink:
        writer = csv.writer(sink)
        day = until.date()
        while day >= since.date():
            request: dict[str, Any] = {
                "TableName": table,
                "KeyConditionExpression": "pk = :pk AND sk BETWEEN :oldest AND :newest",
                "ExpressionAttributeValues": {
                    ":pk": {"S": event_pk(account, f"{day:%Y-%m-%d}")},
                    ":oldest": {"S": sort_key(since, "")},
                    ":newest": {"S": sort_key(until, "~")},
                },
                "ScanIndexForward": False,
                "Limit": _EXPORT_PAGE,
            }
            while True:
                page = db.query(**request)
                for item in page["Items"]:
                    recipient = item.get("recipient", {}).get("S", "")
                    kept = (item["timestamp"]["S"], item["tags"], item.get("metadata", ""))
                    writer.writerow([item["id"]["S"], item["type"]["S"], item["message_id"]["S"], recipient, *kept])
                    rows += 1
                if "LastEvaluatedKey" not in page:
                    break
                request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}
            day -= timedelta(days=1)
    return rows
