"""The benchmark's report: a plain-text table for people, the same figures as JSON for tools."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.run import Results

SEND_AIM = 1.5
BATCH_AIM = 1.3


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0
    versions = {name: _version(name) for name in ("moto", "boto3", "botocore")}
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": load(),
        "platform": platform.platform(terse=True),
        "cpu": cpu,
        "cores": str(usable),
        "python": platform.python_version(),
        **versions,
    }


def load() -> str:
    """The 1-minute load average: other work on the machine skews absolute figures (ratios less)."""
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def as_json(results: Results, host: dict[str, str]) -> dict[str, Any]:
    return {"machine": host, **dataclasses.asdict(results)}


def write_json(path: Path, results: Results, host: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(as_json(results, host), indent=2) + "\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def _mix(calls: dict[str, int]) -> str:
    return ", ".join(f"{name} x{count}" if count > 1 else name for name, count in calls.items())


def _aim(value: float, aim: float) -> str:
    return f"{value:.2f}x  (aim <= {aim}x: {'within' if value <= aim else 'ABOVE'})"


def render(results: Results, host: dict[str, str]) -> str:
    single, batch, pipe, options = results.single, results.batch, results.pipeline, results.options
    rule = "-" * 100
    lines = [
        "Postline benchmark",
        f"  {host['date']} | {host['platform']} | {host['cpu']} | {host['cores']} cores | Python {host['python']}",
        f"  1-min load average before the run {host['load_before']} (more than ~0.5: other work competes for"
        f" the cores), after {host.get('load_after', '?')} (the benchmark itself keeps ~2 busy)",
        f"  moto {host['moto']} as a server in a child process; boto3 {host['boto3']}; the runtime, its API",
        "  gateway, handlers and pumps, and the bare calls all run in this one process, against the one emulator.",
        "  Absolute times are mostly moto's (a single Python process standing in for DynamoDB, SQS and KMS):",
        "  compare the RATIOS, API over the same storage calls made directly, measured side by side in this run.",
        "  bare = the storage calls recorded from the real request, replayed with boto3 against copies of the",
        "  tables and queue they write (same emulator, same keys/indexes/streams, reads unchanged).",
        "  Acceptance (a-c) is measured with the delivery pipeline held"
        + ("." if results.pipeline_held else ": NOT POSSIBLE this run, the pipeline ran alongside."),
        rule,
        f"a. single send: POST /v3/messages, live key, {single.api.count} sequential sends"
        f" (alternating with the bare calls)",
        f"   storage calls of one send ({sum(single.calls.values())}): {_mix(single.calls)}",
        f"   {'':28}{'per second':>12}{'mean':>12}{'p50':>12}{'p99':>12}",
        f"   {'API send':28}{single.api.per_second:12.1f}{_ms(single.api.mean)}{_ms(single.api.p50)}"
        f"{_ms(single.api.p99)}",
        f"   {'b. bare storage calls':28}{single.bare.per_second:12.1f}{_ms(single.bare.mean)}{_ms(single.bare.p50)}"
        f"{_ms(single.bare.p99)}",
        f"   inside an API send, its storage calls took {_ms(single.api_in_storage_mean).strip()} on average",
        f"   ratio send / bare: mean {_aim(single.ratio_mean, SEND_AIM)}; p50 {single.ratio_p50:.2f}x",
        f"   {single.clients} concurrent clients, {single.concurrent_count} sends: API"
        f" {single.concurrent_api_per_second:.1f}/s, bare {single.concurrent_bare_per_second:.1f}/s,"
        f" ratio {single.concurrent_ratio:.2f}x",
        rule,
        f"c. batch: POST /v3/messages.batch with {batch.recipients:,} recipients ({batch.accepted:,} accepted)",
        f"   storage calls ({sum(batch.calls.values()):,}): {_mix(batch.calls)}",
        f"   API {batch.api_seconds:.2f} s (of which {batch.api_in_storage:.2f} s inside storage calls);"
        f" bare {batch.bare_seconds:.2f} s",
        f"   ratio batch / bare: {_aim(batch.ratio, BATCH_AIM)}",
        "   where the time goes, API | bare: "
        + ", ".join(
            f"{name} {seconds:.2f} | {batch.bare_seconds_by_call.get(name, 0.0):.2f} s"
            for name, seconds in list(batch.api_seconds_by_call.items())[:3]
        ),
        f"   (on both sides the job queue was emptied every 20 ms, {batch.purges} times, as a dispatcher"
        " would take jobs: moto's SQS slows down with queue depth, real SQS does not)",
        rule,
        f"d. pipeline: {pipe.messages} live sends, dispatcher -> SMTP -> local mail sink (DKIM-signed);"
        " measured first, on small tables:",
        "   moto's TransactWriteItems copies every table it touches, and each delivery records itself in one",
        "   on the messages and events tables, so here a delivery costs more the more is stored",
        f"   alone (accepted first, then delivered): {pipe.alone_seconds:.2f} s,"
        f" {pipe.alone_per_second:.1f} delivered/s;"
        f" per message {pipe.dispatcher_calls_per_message:.1f} storage calls,"
        f" {_ms(pipe.dispatcher_storage_per_message).strip()}"
        f" of {_ms(pipe.alone_seconds / pipe.messages).strip()}",
        "   where the dispatcher's storage time goes, per message: "
        + ", ".join(
            f"{name} {seconds * 1000:.1f} ms" for name, seconds in list(pipe.dispatcher_seconds_by_call.items())[:4]
        ),
        f"   burst (sent while delivering): accepted {pipe.burst_accept_per_second:.1f}/s;"
        f" {pipe.burst_delivered} delivered {pipe.burst_seconds:.2f} s after the first send,"
        f" {pipe.burst_per_second:.1f} delivered/s",
    ]
    if pipe.burst_waiting:
        lines.append(
            f"   {pipe.burst_waiting} jobs were taken before their message was stored and waited out the send"
            f" queue's visibility timeout (known bug); moving the clock past it delivered them in"
            f" {pipe.burst_release_seconds or 0:.2f} s"
        )
    lines += [
        rule,
        f"runtime start {results.startup_seconds:.1f} s; whole run {results.total_seconds:.1f} s."
        f" Options: {dataclasses.asdict(options)}",
    ]
    return "\n".join(lines)
