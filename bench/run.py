"""The benchmark's steps, in one run against one embedded runtime."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import cloud_workloads, events, imports, listsend, metrics, queues, seed, suppressions, verify
from bench import load as bench_load
from bench.api import ApiClient
from bench.end_to_end import EndToEnd, end_to_end
from bench.pipeline import held, skip_outbox
from bench.recorder import Call, CallRecorder, call_mix, request_calls
from bench.replay import Emulator, Replayer
from bench.stats import Growth, Latencies, ratio
from devtools.local.emulator import EXTENSION_ENV
from devtools.local.runtime import Runtime
from postline.config import Events, SendQueue, Suppressions

if TYPE_CHECKING:
    from bench.smtp_intake import SmtpIntake

TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"
SENDER = "Postline Bench <news@postline.test>"  # the runtime's verified development domain
_POLL_SECONDS = 0.1
_DELIVERY_TIMEOUT_SECONDS = 120.0
_END_TO_END_TIMEOUT_SECONDS = 1800.0
_HTML = "<html><body><h1>Your receipt</h1>" + "<p>Thank you for your order. It ships tomorrow.</p>" * 20
_BATCH_TAGS = 1
_TEXT = "Your receipt\n\n" + "Thank you for your order. It ships tomorrow.\n" * 20


SECTIONS = (
    "sends",
    "pipeline",
    "end-to-end",
    "webhooks",
    "events",
    "export",
    "cloud",
    "imports",
    "suppressions",
    "listsend",
    "verify",
    "smtp",
    "metrics",
    "load",
)


@dataclass(frozen=True)
class Settings:
    """The stack's names the bench reads, from the runtime's environment."""

    send_queue_url: str
    events_table: str
    suppressions_table: str

    @classmethod
    def of(cls, environment: dict[str, str]) -> Settings:
        return cls(
            SendQueue.from_env(environment).url,
            Events.from_env(environment).table,
            Suppressions.from_env(environment).table,
        )


@dataclass(frozen=True)
class Options:
    sends: int = 300  # sequential single sends (and as many bare replays, alternating)
    round_size: int = 50  # queues are emptied (untimed) after this many sends of each kind
    clients: int = 4  # concurrent clients
    concurrent_sends: int = 200  # sends made by the concurrent clients (and as many bare replays)
    batch: int = 5_000  # recipients in the batch (c), and in the end-to-end batch
    small_batch: int = 500  # the same batches at a smaller size: their growth shows whether cost is linear
    burst: int = 100  # sends whose delivery the pipeline figures time (twice: held, then live)
    warmup: int = 10
    probes: int = 5  # sends recorded to learn a send's storage calls (the most common sequence wins)
    webhook_events: int = 200  # events written straight to the events table for the webhook latency
    webhook_rates: tuple[float, ...] = (20.0, 200.0)  # events per second, one run each
    events: int = 1_000_000  # events of the account the events query reads
    small_events: int = 100_000  # the events query first at this size: its growth shows whether it is flat
    query_repeats: int = 5  # first pages timed per query (and as many service calls and bare queries)
    # rows of the export (the newest of the loaded events); moto's response serializer takes ~1.5 ms
    # an item, so 100,000 rows take ~3 min an export, and the section makes four (timed and traced)
    export_rows: int = 20_000
    cloud_events: int = 20_000  # events of the account the cloud model's events page reads, without section f
    suppression_entries: int = 10_000  # addresses of the bulk add (j), at most 10,000 (one call)
    suppression_repeats: int = 3
    # Rows of the larger CSV import (j; the smaller is a tenth). 1,000,000 takes ~20 minutes on
    # the emulator (a BatchWriteItem per 25 rows): `--import-rows 1000000` for the figure.
    import_rows: int = 100_000
    # Members of the list sent to (k), two of them suppressed; first at the smaller size: its growth.
    # `--list-members 100000` for the 100,000-member fan-out (~15 minutes here, seeding included).
    list_members: int = 20_000
    small_list_members: int = 2_000
    verify_addresses: int = 100_000  # l: addresses of the bulk verification workload
    verify_domains: int = 1_000  # l: the domains they are spread over
    verify_timeout: float = 7_200.0
    verify_singles: tuple[int, ...] = (50, 500)  # l: single POST /v3/validate checks, one run per size
    smtp_messages: int = 500  # k: messages per side over SMTP and the API (10 clients)
    small_smtp_messages: int = 100  # k at a smaller size first: its growth
    smtp_clients: int = 10
    load: bench_load.Settings = field(default_factory=bench_load.Settings)  # o: its durations and plans
    sections: tuple[str, ...] = SECTIONS


@dataclass(frozen=True)
class SingleSends:
    calls: dict[str, int]  # the storage calls of one send
    api: Latencies
    bare: Latencies
    api_in_storage_mean: float  # seconds per API send spent inside its storage calls (as botocore saw it)
    ratio_mean: float
    ratio_p50: float
    clients: int
    concurrent_count: int
    concurrent_api_per_second: float
    concurrent_bare_per_second: float
    concurrent_ratio: float


@dataclass(frozen=True)
class BatchSend:
    recipients: int
    accepted: int
    calls: dict[str, int]
    api_seconds: float
    bare_seconds: float
    api_in_storage: float
    ratio: float
    api_seconds_by_call: dict[str, float]
    bare_seconds_by_call: dict[str, float]
    # From the first suppression read's start to the last one's end: what the check adds to the
    # call (its reads run 8 chunks at a time, so summing their durations would overstate it).
    suppression_seconds: float = 0.0
    # CPU seconds per accepted recipient during the API call (pipeline held): this process's (API,
    # handler, its botocore calls) and the emulator's. It moves far less with the machine's load
    # than the call's wall time.
    runtime_cpu_per_recipient: float | None = None
    emulator_cpu_per_recipient: float | None = None
    cpu_model: str = ""  # /proc/cpuinfo's model name: the before figure it is held to is this machine's

    @property
    def cpu_per_recipient(self) -> float | None:
        if self.runtime_cpu_per_recipient is None or self.emulator_cpu_per_recipient is None:
            return None
        return self.runtime_cpu_per_recipient + self.emulator_cpu_per_recipient

    @property
    def suppression_ratio(self) -> float:
        """The batch against itself without the suppression check's reads."""
        return ratio(self.api_seconds, self.api_seconds - self.suppression_seconds)


@dataclass(frozen=True)
class Pipeline:
    messages: int
    alone_seconds: float  # accepted while held, then delivered with nothing else running
    alone_per_second: float
    dispatcher_calls_per_message: float
    dispatcher_storage_per_message: float  # seconds (sqs.ReceiveMessage long polls left out)
    dispatcher_seconds_by_call: dict[str, float]  # per message
    burst_accept_per_second: float  # sends while the pipeline delivers
    burst_delivered: int  # delivered without moving the clock
    burst_seconds: float  # first send to the last of those delivered
    burst_per_second: float
    burst_waiting: int  # jobs left waiting out the send queue's visibility timeout (known bug)
    burst_release_seconds: float | None  # after moving the clock past it, until those arrived


@dataclass(frozen=True)
class Results:
    options: Options
    pipeline_held: bool
    single: SingleSends | None
    batches: list[BatchSend]  # small, then large
    pipeline: Pipeline | None
    end_to_end: list[EndToEnd]  # small, then large
    webhooks: list[events.Webhooks]  # one per rate
    events_query: list[events.EventsQuery]  # small, then large
    metrics: list[metrics.MetricsRun]  # small, then large
    export: events.Export | None
    bulk_add: suppressions.BulkAdd | None
    csv_imports: list[suppressions.Import]  # small, then large
    verify: verify.BulkVerify | None
    smtp: SmtpIntake | None
    growth: list[Growth]  # each two-size workload
    cloud: cloud_workloads.CloudModel | None
    imports: list[imports.ModuleImport]  # each function module's import against its dependencies alone
    startup_seconds: float
    total_seconds: float
    section_seconds: dict[str, float]  # how long each part of the run took, setup included
    list_fan_out: list[listsend.ListFanOut] = field(default_factory=list)  # small, then large
    events_shards: events.ShardCost | None = None  # the events query at one shard and at the most
    load: bench_load.Load | None = None  # o


@dataclass
class _Bench:
    runtime: Runtime
    api: ApiClient
    key: str
    emulator: Emulator
    recorder: CallRecorder
    replayer: Replayer
    settings: Settings
    options: Options

    @property
    def sqs(self) -> Any:
        return self.emulator.client("sqs")

    def empty_queues(self) -> None:
        """Nothing accepted so far is delivered: neither the jobs queued nor those the outbox would
        queue for the messages stored (call it while the pipeline is held)."""
        skip_outbox(self.runtime)
        for url in [self.settings.send_queue_url, *self.replayer.clones.queue_urls]:
            queues.empty(self.sqs, url)


def send_body(index: int) -> dict[str, Any]:
    return {
        "from": SENDER,
        "to": [f"reader{index}@example.com"],
        "subject": f"Your receipt #{index}",
        "html": _HTML,
        "text": _TEXT,
        "tags": ["receipt"],
        "headers": {"X-Order": str(index)},
    }


def batch_body(recipients: int) -> dict[str, Any]:
    return {
        "from": SENDER,
        "subject": "Our news this week",
        "html": _HTML,
        "text": _TEXT,
        "tags": ["newsletter"] * _BATCH_TAGS,
        "recipients": [{"to": f"member{i}@example.com", "vars": {"name": f"Member {i}"}} for i in range(recipients)],
    }


def run(options: Options, progress: Callable[[str], None]) -> Results:
    began = time.perf_counter()
    # The emulator child inherits this: queues may be emptied more often than once a minute.
    # And this: the emulator serves the bulk load of events (bench/seed.py).
    settings = {queues.STRICT_PURGE: "false", EXTENSION_ENV: seed.EXTENSION}
    previous = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        return _run(options, progress, began)
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run(options: Options, progress: Callable[[str], None], began: float) -> Results:
    took: dict[str, float] = {}
    sections = set(options.sections)
    single = pipeline = None
    export = None
    queries: list[events.EventsQuery] = []
    metric_runs: list[metrics.MetricsRun] = []
    bulk_add = None
    csv_imports: list[suppressions.Import] = []
    fanned: list[listsend.ListFanOut] = []
    smtp: SmtpIntake | None = None
    shard_cost: events.ShardCost | None = None
    batches: list[BatchSend] = []
    whole: list[EndToEnd] = []
    webhooks: list[events.Webhooks] = []
    modeled: cloud_workloads.CloudModel | None = None
    with CallRecorder() as recorder, tempfile.TemporaryDirectory(prefix="postline-bench-") as state:
        progress("starting the embedded runtime (moto server in a child process)")
        with Runtime(TEMPLATE, Path(state), log_level="ERROR") as runtime:
            startup = time.perf_counter() - began
            key = runtime.dev["keys"]["live"]
            emulator = Emulator(runtime.endpoint_url)
            settings = Settings.of(runtime.env)
            replayer = Replayer(emulator, unique_attributes={settings.events_table: ("sk", "message_id")})
            bench = _Bench(
                runtime, ApiClient(runtime.base_url, key), key, emulator, recorder, replayer, settings, options
            )
            pipeline_held = True
            imported: list[imports.ModuleImport] = []
            if "imports" in sections:
                section = time.perf_counter()
                progress("i. importing each function's module in fresh interpreters, then its dependencies alone")
                imported = imports.measure(TEMPLATE, {**runtime.env, "PATH": os.environ.get("PATH", "")})
                took["i. imports"] = time.perf_counter() - section
            if sections & {"sends", "pipeline"}:
                section = time.perf_counter()
                progress(f"warming up ({options.warmup} sends through the whole pipeline)")
                for index in range(options.warmup):
                    bench.api.send(send_body(index))
                runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                took["warm-up"] = time.perf_counter() - section
            if "pipeline" in sections:
                section = time.perf_counter()
                # The pipeline first, while the tables are small (moto copies every table a transaction
                # touches, its rollback backup: a delivery's record is no transaction since 2026-11-28,
                # but other writers' still are).
                with held(runtime) as pipeline_held:
                    bench.empty_queues()
                    bench.api.clear_mailbox()
                    progress(f"d. accepting {options.burst} sends while the pipeline is held")
                    for index in range(options.burst):
                        bench.api.send(send_body(index))
                pipeline = _pipeline(bench, progress)
                took["d. pipeline"] = time.perf_counter() - section
            if "sends" in sections:
                section = time.perf_counter()
                with held(runtime) as still_held:
                    bench.empty_queues()
                    single = _single_sends(bench, progress)
                    batches = [_batch(bench, progress, size) for size in (options.small_batch, options.batch)]
                    bench.empty_queues()
                pipeline_held = pipeline_held and still_held
                took["a-c. sends"] = time.perf_counter() - section
            if "end-to-end" in sections:
                section = time.perf_counter()
                test_api = ApiClient(runtime.base_url, runtime.dev["keys"]["test"])
                runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                for size in (options.small_batch, options.batch):
                    progress(f"d2. a {size:,}-recipient test-key batch, from the API call to its last delivery")
                    meanwhile = options.small_batch if size > options.small_batch else 0
                    whole.append(
                        end_to_end(
                            runtime, test_api, recorder, size, SENDER, _END_TO_END_TIMEOUT_SECONDS, meanwhile=meanwhile
                        )
                    )
                    runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                took["d2. end-to-end"] = time.perf_counter() - section
            if "webhooks" in sections:
                section = time.perf_counter()
                for rate in options.webhook_rates:
                    progress(
                        f"e. {options.webhook_events} events written at {rate:g}/s,"
                        " each to its first webhook attempt at a receiver on 127.0.0.1"
                    )
                    runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                    webhooks.append(events.webhooks(runtime, bench.api, emulator, options.webhook_events, rate))
                runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                took["e. webhooks"] = time.perf_counter() - section
            if "cloud" in sections:
                section = time.perf_counter()
                runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                recorded = cloud_workloads.record(
                    runtime, bench.api, bench.sqs, recorder, send_body, batch_body, options.batch, progress
                )
                took["h. cloud workloads"] = time.perf_counter() - section
            loaded = 0
            if sections & {"events", "export", "cloud", "metrics"}:
                section = time.perf_counter()
                sized = sections & {"events", "metrics"}  # measured at two sizes
                if sections & {"events", "export", "metrics"}:
                    count = options.events if sized else options.export_rows
                else:
                    count = options.cloud_events
                loaded = count
                # The dev account was created at the start: the clock moves past the 30 days the events
                # span, so the account's whole window holds them.
                runtime.advance((events.SPAN_DAYS + 1) * 86_400)
                runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
                two_sizes = bool(sized) and options.small_events < count
                first = options.small_events if two_sizes else count
                progress(f"f. loading {first:,} events straight into the emulator's events table")
                load_seconds, newest, step = events.load_events(runtime, first)
                took["f/g. loading events"] = time.perf_counter() - section
                with held(runtime):
                    if sized:
                        section = time.perf_counter()

                        def query(size: int, seconds: float, *, pack: bool) -> None:
                            repeats = options.query_repeats
                            if "events" in sections:
                                queries.append(
                                    events.events_query(
                                        runtime, bench.api, emulator, recorder, size, seconds, repeats, progress
                                    )
                                )
                            if "metrics" in sections:
                                metric_runs.append(
                                    metrics.measure(
                                        runtime, bench.api, emulator, recorder, size, repeats, progress, pack=pack
                                    )
                                )

                        query(first, load_seconds, pack=not two_sizes)
                        if two_sizes:
                            progress(f"f. loading {count - first:,} more events (the account then holds {count:,})")
                            more_seconds, newest, _ = events.load_events(runtime, count - first, prefix="r")
                            step = events.SPAN_DAYS * 86_400 / count  # both loads, over the same days
                            query(count, load_seconds + more_seconds, pack=True)
                        if "events" in sections:  # the query's cost at one shard and at the most
                            shard_cost = events.shard_cost(runtime, recorder, options.query_repeats, progress)
                        took["f/n. events query, metrics"] = time.perf_counter() - section
                    if "export" in sections:
                        section = time.perf_counter()
                        rows = min(options.export_rows, count)
                        progress(f"g. exporting {rows:,} events, then the bare Query pages, each twice (timed, traced)")
                        export = events.export(runtime, bench.api, emulator, newest, step, rows)
                        took["g. export"] = time.perf_counter() - section
                    if "cloud" in sections:
                        progress(f"h. recording an events page on the account of {loaded:,} events")
                        page = cloud_workloads.events_page(bench.api, recorder)
                        typed = cloud_workloads.type_pages(bench.api, recorder, runtime.clock.now())
                        modeled = cloud_workloads.build(
                            TEMPLATE,
                            recorded,
                            options.batch,
                            page,
                            loaded,
                            _BATCH_TAGS,
                            options.webhook_rates,
                            typed,
                            today_body=(_HTML, _TEXT),
                        )
            if "suppressions" in sections:
                section = time.perf_counter()
                progress(
                    f"j. bulk-adding {options.suppression_entries:,} suppressions through the API, then the bare"
                    f" BatchWriteItem calls of the same items ({options.suppression_repeats} times)"
                )
                bulk_add = suppressions.bulk_add(
                    runtime, bench.api, emulator, options.suppression_entries, options.suppression_repeats
                )
                for rows in (options.import_rows // 10, options.import_rows):
                    progress(f"j. importing a CSV of {rows:,} rows (presigned PUT, the import worker streams it)")
                    csv_imports.append(suppressions.import_file(runtime, bench.api, recorder, rows, progress))
                took["j. suppressions"] = time.perf_counter() - section
            if "listsend" in sections:
                section = time.perf_counter()
                listsend.allow_overage(runtime)  # 100,000 members pass the monthly quota
                for size in (options.small_list_members, options.list_members):
                    progress(
                        f"k. sending to a list of {size:,} members (the list worker's runs, pipeline held), then a"
                        f" batch of {min(size, listsend.MAX_BATCH):,} recipients"
                    )
                    with held(runtime) as held_for_list:
                        if held_for_list:
                            fanned.append(listsend.fan_out(runtime, bench.api, recorder, SENDER, size))
                        bench.empty_queues()
                took["k. listsend"] = time.perf_counter() - section
            if "smtp" in sections:
                from bench import smtp_intake  # it imports this module (_concurrently)

                section = time.perf_counter()
                smtp = smtp_intake.measure(
                    runtime, options.smtp_clients, (options.small_smtp_messages, options.smtp_messages), progress
                )
                took["m. smtp"] = time.perf_counter() - section
            progress("stopping the runtime")
    checked = None
    if "verify" in sections:
        # A runtime of its own (its DNS server), after the shared one stopped, and outside the call
        # recorder, which keeps every call it sees: its memory is not the worker's.
        section = time.perf_counter()
        progress(
            f"l. verifying {options.verify_addresses:,} addresses across {options.verify_domains:,} domains"
            f" (bulk jobs, the bulk worker, a local DNS server), after {'/'.join(map(str, options.verify_singles))}"
            " single checks against their bare DNS lookups"
        )
        checked = verify.run(
            TEMPLATE,
            options.verify_addresses,
            options.verify_domains,
            options.verify_timeout,
            options.verify_singles,
        )
        took["l. verify"] = time.perf_counter() - section
    loaded_at_twice = None
    if "load" in sections:  # a runtime of its own too, and outside the recorder (60,000 calls and more)
        section = time.perf_counter()
        loaded_at_twice = bench_load.run(options.load, progress)
        took["o. load"] = time.perf_counter() - section
    growth = []
    if len(batches) == 2:
        growth.append(_growth("c. batch accepted", "recipients", *((b.recipients, b.api_seconds) for b in batches)))
    if smtp is not None and len(smtp.sizes) == 2:
        small, large = smtp.sizes
        growth.append(
            _growth(
                "m. SMTP intake", "messages", (small.messages, small.smtp_seconds), (large.messages, large.smtp_seconds)
            )
        )
        growth.append(
            _growth(
                "m. SMTP server (no-op)",
                "messages",
                (small.messages, small.noop_seconds),
                (large.messages, large.noop_seconds),
            )
        )
    if len(whole) == 2:
        growth.append(_growth("d2. batch delivered", "recipients", *((w.recipients, w.seconds) for w in whole)))
    if checked is not None and len(checked.singles) == 2:
        small_checks, large_checks = checked.singles
        growth.append(
            _growth(
                "l. single checks",
                "checks",
                (small_checks.checks, small_checks.api.total),
                (large_checks.checks, large_checks.api.total),
            )
        )
    if len(fanned) == 2:
        growth.append(_growth("k. list fan-out", "members", *((f.members, f.fan_out_seconds) for f in fanned)))
        growth.append(_growth("k. list fan-out, CPU", "members", *((f.members, f.cpu_seconds) for f in fanned)))
    if len(csv_imports) == 2:
        growth.append(_growth("j. CSV imported", "rows", *((i.rows, i.seconds) for i in csv_imports)))
    if len(queries) == 2:
        for small_case, large_case in zip(queries[0].cases, queries[1].cases, strict=True):
            if small_case.timeouts or large_case.timeouts:
                continue  # cut at its time budget: the time says nothing of growth
            name = f"f. {small_case.name} {small_case.limit}"
            sizes = ((q.events, case.api.p50) for q, case in zip(queries, (small_case, large_case), strict=True))
            growth.append(_growth(name, "events", *sizes))
    return Results(
        options,
        pipeline_held,
        single,
        batches,
        pipeline,
        whole,
        webhooks,
        queries,
        metric_runs,
        export,
        bulk_add,
        csv_imports,
        checked,
        smtp,
        growth,
        modeled,
        imported,
        startup,
        time.perf_counter() - began,
        took,
        list_fan_out=fanned,
        load=loaded_at_twice,
        events_shards=shard_cost,
    )


def _probe(bench: _Bench) -> list[Call]:
    """One send's storage calls: the sequence most of a few sends made (a once-a-minute key touch,
    or a cache refresh, is not part of every send)."""
    seen: list[list[Call]] = []
    for index in range(bench.options.probes):
        mark = bench.recorder.mark()
        bench.api.send(send_body(index))
        seen.append(request_calls(bench.recorder.since(mark)))
    common = Counter(tuple(c.name for c in calls) for calls in seen).most_common(1)[0][0]
    return next(calls for calls in reversed(seen) if tuple(c.name for c in calls) == common)


def _single_sends(bench: _Bench, progress: Callable[[str], None]) -> SingleSends:
    options = bench.options
    probe = _probe(bench)
    total = options.sends + options.concurrent_sends
    prepared = [bench.replayer.prepare(probe, f"s{i}") for i in range(options.warmup + total)]
    for calls in prepared[: options.warmup]:
        bench.replayer.run(calls)
    prepared = prepared[options.warmup :]
    bench.empty_queues()

    progress(f"a/b. {options.sends} sequential sends, each followed by its bare storage calls")
    api_seconds: list[float] = []
    bare_seconds: list[float] = []
    in_storage: list[float] = []
    for index in range(options.sends):
        mark = bench.recorder.mark()
        api_seconds.append(bench.api.send(send_body(index)))
        in_storage.append(sum(call.seconds for call in request_calls(bench.recorder.since(mark))))
        bare_seconds.append(bench.replayer.run(prepared[index]))
        if (index + 1) % options.round_size == 0:
            bench.empty_queues()
    bench.empty_queues()

    progress(f"a/b. {options.concurrent_sends} sends from {options.clients} clients, then as many bare replays")
    clients = [ApiClient(bench.runtime.base_url, bench.key) for _ in range(options.clients)]
    api_wall = bare_wall = 0.0
    rounds = range(0, options.concurrent_sends, options.round_size * 2)
    for start in rounds:
        indices = list(range(start, min(start + options.round_size * 2, options.concurrent_sends)))
        api_wall += _concurrently(
            options.clients, indices, lambda worker, i: clients[worker].send(send_body(options.sends + i))
        )
        bare_wall += _concurrently(
            options.clients, indices, lambda worker, i: bench.replayer.run(prepared[options.sends + i])
        )
        bench.empty_queues()

    api, bare = Latencies.of(api_seconds), Latencies.of(bare_seconds)
    concurrent_api = options.concurrent_sends / api_wall
    concurrent_bare = options.concurrent_sends / bare_wall
    return SingleSends(
        calls=call_mix(probe),
        api=api,
        bare=bare,
        api_in_storage_mean=sum(in_storage) / len(in_storage),
        ratio_mean=ratio(api.mean, bare.mean),
        ratio_p50=ratio(api.p50, bare.p50),
        clients=options.clients,
        concurrent_count=options.concurrent_sends,
        concurrent_api_per_second=concurrent_api,
        concurrent_bare_per_second=concurrent_bare,
        concurrent_ratio=ratio(concurrent_bare, concurrent_api),
    )


def _concurrently(workers: int, indices: list[int], work: Callable[[int, int], object]) -> float:
    """Runs work(worker, index) for every index, spread over `workers` threads; the wall seconds."""
    shares = [indices[w::workers] for w in range(workers)]
    start = threading.Barrier(workers + 1)
    errors: list[BaseException] = []

    def worker(number: int) -> None:
        start.wait()
        try:
            for index in shares[number]:
                work(number, index)
        except BaseException as error:  # reported in the calling thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(w,), name=f"bench-client-{w}") for w in range(workers)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return elapsed


def _growth(workload: str, unit: str, small: tuple[int, float], large: tuple[int, float]) -> Growth:
    return Growth(workload, unit, small[0], large[0], small[1], large[1])


def _batch(bench: _Bench, progress: Callable[[str], None], recipients: int) -> BatchSend:
    from bench import report  # it renders this module's results

    progress(f"c. a {recipients:,}-recipient POST /v3/messages.batch, then its bare storage calls")
    body = batch_body(recipients)
    mark = bench.recorder.mark()
    cpu_before = time.process_time(), bench.runtime.emulator_cpu_seconds()
    api_seconds, reply = bench.api.post("/v3/messages.batch", body, expect=202)
    cpu_after = time.process_time(), bench.runtime.emulator_cpu_seconds()
    calls = request_calls(bench.recorder.since(mark))
    accepted = max(int(reply["accepted"]), 1)
    emulator_cpu = None if cpu_before[1] is None or cpu_after[1] is None else (cpu_after[1] - cpu_before[1]) / accepted
    bench.empty_queues()

    prepared = bench.replayer.prepare(calls, f"batch{recipients}")
    here = threading.current_thread().name
    mark = bench.recorder.mark()
    bare_seconds = bench.replayer.run(prepared)
    replayed = [call for call in bench.recorder.since(mark) if call.thread == here]
    bench.empty_queues()
    return BatchSend(
        recipients=recipients,
        accepted=int(reply["accepted"]),
        calls=call_mix(calls),
        api_seconds=api_seconds,
        bare_seconds=bare_seconds,
        api_in_storage=sum(call.seconds for call in calls),
        ratio=ratio(api_seconds, bare_seconds),
        api_seconds_by_call=_seconds_by_call(calls, 1),
        bare_seconds_by_call=_seconds_by_call(replayed, 1),
        suppression_seconds=_span(
            c
            for c in calls
            if c.name == "dynamodb.BatchGetItem" and bench.settings.suppressions_table in c.params["RequestItems"]
        ),
        runtime_cpu_per_recipient=(cpu_after[0] - cpu_before[0]) / accepted,
        emulator_cpu_per_recipient=emulator_cpu,
        cpu_model=report.machine()["cpu"],
    )


def _span(calls: Iterable[Call]) -> float:
    """Wall time from the first call's start to the last one's end (0 for none)."""
    spans = [(call.started, call.started + call.seconds) for call in calls]
    return max(end for _, end in spans) - min(start for start, _ in spans) if spans else 0.0


def _pipeline(bench: _Bench, progress: Callable[[str], None]) -> Pipeline:
    count = bench.options.burst
    progress(f"d. the pipeline alone: delivering the {count} held sends to the local mail sink")
    mark = bench.recorder.mark()
    began = time.perf_counter()
    delivered = _wait_for_mail(bench, count)
    alone = time.perf_counter() - began
    if delivered < count:
        raise RuntimeError(f"only {delivered} of {count} held sends were delivered in {alone:.0f} s")
    dispatcher = [
        call
        for call in bench.recorder.since(mark)
        if call.thread.startswith("pump") and call.name != "sqs.ReceiveMessage" and call.started >= began
    ]

    progress(f"d. a burst of {count} sends while the pipeline delivers")
    bench.api.clear_mailbox()
    began = time.perf_counter()
    for index in range(count):
        bench.api.send(send_body(index))
    accepted = time.perf_counter() - began
    delivered = _wait_for_mail(bench, count, stop_when_idle=True)
    burst = time.perf_counter() - began
    waiting = count - delivered
    release: float | None = None
    if waiting:
        progress(f"d. {waiting} jobs wait out the send queue's visibility timeout: moving the clock past it")
        visibility = bench.sqs.get_queue_attributes(
            QueueUrl=bench.settings.send_queue_url, AttributeNames=["VisibilityTimeout"]
        )["Attributes"]["VisibilityTimeout"]
        released = time.perf_counter()
        bench.runtime.advance(int(visibility) + 1)
        _wait_for_mail(bench, count)
        release = time.perf_counter() - released
    return Pipeline(
        messages=count,
        alone_seconds=alone,
        alone_per_second=count / alone,
        dispatcher_calls_per_message=len(dispatcher) / count,
        dispatcher_storage_per_message=sum(call.seconds for call in dispatcher) / count,
        dispatcher_seconds_by_call=_seconds_by_call(dispatcher, count),
        burst_accept_per_second=count / accepted,
        burst_delivered=delivered,
        burst_seconds=burst,
        burst_per_second=delivered / burst,
        burst_waiting=waiting,
        burst_release_seconds=release,
    )


def _wait_for_mail(bench: _Bench, count: int, *, stop_when_idle: bool = False) -> int:
    """Polls the mail sink until it holds `count` messages (or, with stop_when_idle, until the
    runtime has nothing left to do now); returns how many it holds."""
    deadline = time.monotonic() + _DELIVERY_TIMEOUT_SECONDS
    received = bench.api.mailbox_count()
    while received < count and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
        received = bench.api.mailbox_count()
        if stop_when_idle and not bench.runtime.drain(0) and bench.api.mailbox_count() == received:
            break
    return received


def _seconds_by_call(calls: list[Call], per: int) -> dict[str, float]:
    """Seconds spent in each operation, divided by `per`, most first."""
    totals: dict[str, float] = {}
    for call in calls:
        totals[call.name] = totals.get(call.name, 0.0) + call.seconds
    return {name: seconds / per for name, seconds in sorted(totals.items(), key=lambda item: -item[1])}
