"""python -m bench.soak [--minutes 60] [--sample-seconds 5] [--sends-per-second 0.5] [--batch 20]
                      [--clock-days-per-minute 0] [--census] [--trace-frames 0]
                      [--aim-mb-per-hour 50] [--json .local/soak.json] [--log .local/soak.log]

`make run` left running under a steady mixed load: is the memory of both its processes flat?

`python -m devtools.local` runs in a child process as `make run` starts it (free ports, a state dir
of its own, snapshots every 30 s as usual; spamd off). This process offers it, for `--minutes`, a
steady load from one client: single sends (`--sends-per-second`), a `--batch`-recipient batch every
10 s, events queries (GET /v3/events, first pages and a filtered one) every 2 s, and an event
export every minute, polled until it completes; every event goes as a webhook to a live receiver
here, which answers 200. The development mail sink keeps every message it receives in memory
(`GET /_local/mailbox`, by design): the soak empties it every minute, as someone looking at it
would, so that its growth is not counted as the runtime's.

Every `--sample-seconds` it reads the resident memory (VmRSS in /proc/<pid>/status) of the runtime
(the child) and of the emulator (the child's `devtools.local.emulator` child). The report gives
each series' start, end and peak, and its slope over the second half of the run (least squares,
MB per hour): the first half is warm-up (caches, moto's first tables and items, the allocator's
arenas). The aim: each slope at most `--aim-mb-per-hour`. The load stores data (messages, events,
counters, export files) as it would in AWS, a few MB an hour at the default rates; a leak of a
record, an iterator or a message per call grows faster than that. Exits 1 when an aim is missed;
calls that failed are counted in the report (on a shared machine the odd one times out).

Data kept legitimately grows until its retention ends (idempotency keys 24 hours, messages and
events their plan's days), so in real time an hour's soak only measures how fast the load stores.
`--clock-days-per-minute D` moves the runtime's clock (`POST /_local/clock/advance`) D days each
minute of the run: retention windows pass, the schedules they fire run (retention, roll-ups), and
the emulator's TTL sweep (devtools/moto_patches/ttl_sweep.py) deletes what is past its TTL, so a
flat line is what a leak-free runtime shows. `--census` adds the emulator extension
bench/soak_census.py and writes what its memory holds, per service, table, bucket and queue, every
minute to `<json>.census.jsonl` (`--trace-frames N` also runs tracemalloc there and records the
source lines that grew most each minute: slower, a diagnostic).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests

from bench.events import Receiver
from bench.report import machine
from devtools.local.emulator import EXTENSION_ENV, EXTENSION_PATH

SENDER = "Postline Bench <news@postline.test>"  # the runtime's verified development domain
_BODY = "<p>Thank you for your order. It ships tomorrow.</p>" * 10
_START_TIMEOUT_SECONDS = 180.0
_STOP_TIMEOUT_SECONDS = 120.0
_BATCH_EVERY_SECONDS = 10.0
_QUERY_EVERY_SECONDS = 2.0
_EXPORT_EVERY_SECONDS = 60.0
_MAILBOX_EVERY_SECONDS = 60.0
_EXPORT_TIMEOUT_SECONDS = 300.0
_CLOCK_EVERY_SECONDS = 60.0  # --clock-days-per-minute moves the runtime's clock this often,
_CLOCK_FIRST_SECONDS = 30.0  # half-way between two exports: an export has 30 s to complete before a move
_EXPORT_POLL_SECONDS = 5.0  # how often a running export is polled while the clock moves (its job expires)


@dataclass
class Sample:
    seconds: float  # since the load began
    runtime_mb: float
    emulator_mb: float
    snapshot_mb: float  # the emulator's last snapshot (every 30 s): what it keeps, pickled


@dataclass
class Series:
    name: str
    start_mb: float
    end_mb: float
    peak_mb: float
    slope_mb_per_hour: float  # over the second half
    aim_mb_per_hour: float

    @property
    def met(self) -> bool:
        return self.slope_mb_per_hour <= self.aim_mb_per_hour


@dataclass
class SoakReport:
    machine: dict[str, str]
    minutes: float
    sample_seconds: float
    operations: dict[str, int]
    errors: dict[str, int]
    webhooks_received: int
    exports_completed: int
    series: list[Series]
    snapshot: Series  # not an aim: how fast what the emulator keeps grows (the data the load stores)
    samples: list[Sample] = field(default_factory=list)
    clock_days_per_minute: float = 0.0  # how fast the runtime's clock was moved (0: not moved)


def rss_mb(pid: int) -> float | None:
    """The process's resident memory (VmRSS), in MB; None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        return None
    return None


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry.name))
    return children


def emulator_pid(runtime_pid: int) -> int:
    for pid in child_pids(runtime_pid):
        try:
            command = (Path(f"/proc/{pid}/cmdline").read_bytes()).split(b"\0")
        except OSError:
            continue
        if b"devtools.local.emulator" in command:
            return pid
    raise RuntimeError(f"no devtools.local.emulator child of {runtime_pid}")


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of (seconds, MB), in MB per hour (0 with fewer than two points)."""
    if len(points) < 2:
        return 0.0
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread * 3600


def series(name: str, points: list[tuple[float, float]], aim: float) -> Series:
    half = points[0][0] + (points[-1][0] - points[0][0]) / 2 if points else 0.0
    values = [value for _, value in points]
    return Series(
        name=name,
        start_mb=values[0] if values else 0.0,
        end_mb=values[-1] if values else 0.0,
        peak_mb=max(values, default=0.0),
        slope_mb_per_hour=slope_per_hour([p for p in points if p[0] >= half]),
        aim_mb_per_hour=aim,
    )


@dataclass(frozen=True)
class Started:
    process: subprocess.Popen[str]
    api: str
    key: str
    emulator_pid: int
    aws: str


def start_runtime(state_dir: Path, log: Path, census: bool = False, trace_frames: int = 0) -> Started:
    """`python -m devtools.local` as `make run` starts it, on free ports; its banner read for the
    API's URL, the emulator's and the live key. `census`: with the bench.soak_census extension."""
    command = [
        sys.executable,
        "-m",
        "devtools.local",
        *("--api-port", "0", "--aws-port", "0", "--mail-port", "0", "--smtp-port", "0"),
        *("--state-dir", str(state_dir), "--no-spamd", "--log-level", "ERROR"),
    ]
    environment = dict(os.environ)
    if census:
        environment[EXTENSION_ENV] = "bench.soak_census"
        if trace_frames:
            environment["POSTLINE_SOAK_TRACEMALLOC"] = str(trace_frames)
    with log.open("a") as errors:
        process = subprocess.Popen(  # noqa: S603 - this interpreter, this package
            command, stdout=subprocess.PIPE, stderr=errors, text=True, start_new_session=True, env=environment
        )
    assert process.stdout is not None
    found: dict[str, str] = {}
    deadline = time.monotonic() + _START_TIMEOUT_SECONDS
    for line in process.stdout:
        label, _, value = line.strip().partition("  ")
        if label in ("API", "Live key", "AWS"):
            found[label] = value.strip().split()[0]
        if line.startswith("Ctrl-C to stop.") or time.monotonic() > deadline:
            break
    if set(found) != {"API", "Live key", "AWS"}:
        process.kill()
        raise RuntimeError(f"devtools.local did not start (see {log})")
    threading.Thread(target=process.stdout.read, name="soak-runtime-output", daemon=True).start()
    return Started(process, found["API"], found["Live key"], emulator_pid(process.pid), found["AWS"])


def stop_runtime(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)  # as Ctrl-C: it stops its pumps, snapshots, stops the emulator
    try:
        process.wait(_STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Load:
    """The steady mixed load, from one client thread, until `stop` is set."""

    def __init__(
        self, api: str, key: str, sends_per_second: float, batch: int, clock_days_per_minute: float = 0.0
    ) -> None:
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {key}"
        self.api = api
        self.sends_per_second = sends_per_second
        self.batch = batch
        self.clock_days_per_minute = clock_days_per_minute
        self._ahead = timedelta(0)  # how far the runtime's clock is ahead of this one
        self.operations: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.exports_completed = 0
        self._export: tuple[str, float] | None = None  # (id, when asked)

    def _call(self, name: str, method: str, path: str, expect: int, **kwargs: Any) -> Any:
        try:
            response = self.session.request(method, self.api + path, timeout=120, **kwargs)
        except requests.RequestException as error:
            self.errors[f"{name}: {type(error).__name__}"] += 1
            return None
        self.operations[name] += 1
        if response.status_code != expect:
            self.errors[f"{name}: {response.status_code}"] += 1
            return None
        return response.json() if response.content else {}

    def send(self, index: int) -> None:
        body = {
            "from": SENDER,
            "to": [f"reader{index % 500}@example.com"],
            "subject": f"Your receipt #{index}",
            "html": _BODY,
            "tags": ["soak"],
        }
        self._call("send", "POST", "/v3/messages", 202, json=body)

    def send_batch(self, index: int) -> None:
        body = {
            "from": SENDER,
            "subject": f"Our news #{index}",
            "html": _BODY,
            "tags": ["soak-batch"],
            "recipients": [{"to": f"member{n}@example.com", "vars": {"n": str(n)}} for n in range(self.batch)],
        }
        self._call("batch", "POST", "/v3/messages.batch", 202, json=body)

    def query(self, index: int) -> None:
        params = {"limit": "50"} if index % 2 else {"limit": "25", "event": "delivered", "tag": "soak"}
        self._call("events query", "GET", "/v3/events", 200, params=params)

    def poll_export(self) -> None:
        """With the clock moving, a running export is polled every few seconds, not each minute: a
        move of days passes its job's and its file's retention."""
        if self.clock_days_per_minute > 0 and self._export is not None:
            self.export(poll_only=True)

    def export(self, poll_only: bool = False) -> None:
        if self._export is not None:
            export_id, asked = self._export
            job = self._call("export poll", "GET", f"/v3/events/export/{export_id}", 200)
            status = (job or {}).get("status")
            if status == "completed":
                self.exports_completed += 1
            elif status in ("failed", None) or time.monotonic() - asked > _EXPORT_TIMEOUT_SECONDS:
                self.errors[f"export: {status or 'unanswered'}"] += 1
            else:
                return  # still running: asked again at the next minute
            self._export = None
        if poll_only:
            return
        until = datetime.now(UTC) + self._ahead  # the runtime's clock: events are stamped on it
        window = {"since": (until - timedelta(minutes=10)).isoformat(), "until": until.isoformat()}
        accepted = self._call("export", "POST", "/v3/events/export", 202, json=window)
        if accepted:
            self._export = (str(accepted["export_id"]), time.monotonic())

    def empty_mailbox(self) -> None:
        self._call("mailbox emptied", "DELETE", "/_local/mailbox", 204)

    def advance_clock(self) -> None:
        if self.clock_days_per_minute > 0:
            seconds = self.clock_days_per_minute * 86400
            moved = self._call("clock advanced", "POST", "/_local/clock/advance", 200, json={"seconds": seconds})
            if moved:
                self._ahead = datetime.fromisoformat(moved["now"]) - datetime.now(UTC)

    def run(self, stop: threading.Event) -> None:
        began = time.monotonic()
        due = {
            "send": 0.0,
            "batch": 0.0,
            "query": 0.0,
            "export": 0.0,
            "mailbox": _MAILBOX_EVERY_SECONDS,
            "clock": _CLOCK_FIRST_SECONDS,
            "export poll": _EXPORT_POLL_SECONDS,
        }
        every = {
            "send": 1 / self.sends_per_second,
            "batch": _BATCH_EVERY_SECONDS,
            "query": _QUERY_EVERY_SECONDS,
            "export": _EXPORT_EVERY_SECONDS,
            "mailbox": _MAILBOX_EVERY_SECONDS,
            "clock": _CLOCK_EVERY_SECONDS,
            "export poll": _EXPORT_POLL_SECONDS,
        }
        counts: Counter[str] = Counter()
        work = {
            "send": lambda: self.send(counts["send"]),
            "batch": lambda: self.send_batch(counts["batch"]),
            "query": lambda: self.query(counts["query"]),
            "export": self.export,
            "mailbox": self.empty_mailbox,
            "clock": self.advance_clock,
            "export poll": self.poll_export,
        }
        while not stop.is_set():
            name = min(due, key=due.__getitem__)
            wait = began + due[name] - time.monotonic()
            if wait > 0 and stop.wait(wait):
                return
            work[name]()
            counts[name] += 1
            due[name] += every[name]  # a fixed schedule: a slow call is followed by the ones it delayed


def soak(
    minutes: float,
    sample_seconds: float,
    sends_per_second: float,
    batch: int,
    aim: float,
    log: Path,
    clock_days_per_minute: float = 0.0,
    census: Path | None = None,
    trace_frames: int = 0,
) -> SoakReport:
    host = machine()
    with tempfile.TemporaryDirectory(prefix="postline-soak-") as state, Receiver(keep=False) as receiver:
        started = start_runtime(Path(state), log, census=census is not None, trace_frames=trace_frames)
        load = Load(started.api, started.key, sends_per_second, batch, clock_days_per_minute)
        stop = threading.Event()
        try:
            load._call("webhook", "POST", "/v3/webhooks", 201, json={"url": receiver.url})
            samples = _sampled(
                started, load, receiver, stop, minutes, sample_seconds, log, Path(state), census, trace_frames
            )
        finally:
            stop.set()
            stop_runtime(started.process)
        return SoakReport(
            machine=host,
            minutes=minutes,
            sample_seconds=sample_seconds,
            clock_days_per_minute=clock_days_per_minute,
            operations=dict(load.operations),
            errors=dict(load.errors),
            webhooks_received=receiver.received,
            exports_completed=load.exports_completed,
            series=[
                series("runtime", [(s.seconds, s.runtime_mb) for s in samples], aim),
                series("emulator", [(s.seconds, s.emulator_mb) for s in samples], aim),
            ],
            snapshot=series("snapshot", [(s.seconds, s.snapshot_mb) for s in samples], float("inf")),
            samples=samples,
        )


def _sampled(
    started: Started,
    load: Load,
    receiver: Receiver,
    stop: threading.Event,
    minutes: float,
    sample_seconds: float,
    log: Path,
    state_dir: Path,
    census: Path | None = None,
    trace_frames: int = 0,
) -> list[Sample]:
    """Runs the load for `minutes`, sampling both processes' RSS meanwhile."""
    samples: list[Sample] = []
    worker = threading.Thread(target=load.run, args=(stop,), name="soak-load", daemon=True)
    began = time.monotonic()
    worker.start()
    end = began + minutes * 60
    next_report = began + 60
    while (now := time.monotonic()) < end:
        runtime, emulator = rss_mb(started.process.pid), rss_mb(started.emulator_pid)
        if runtime is None or emulator is None:
            raise RuntimeError(f"a process of the runtime ended during the soak (see {log})")
        try:
            snapshot = (state_dir / "emulator.pickle").stat().st_size / 1_000_000
        except OSError:
            snapshot = 0.0
        samples.append(Sample(now - began, runtime, emulator, snapshot))
        if now >= next_report:
            print(
                f"[{(now - began) / 60:5.1f} min] runtime {runtime:7.1f} MB, emulator {emulator:7.1f} MB;"
                f" {sum(load.operations.values())} calls, {sum(load.errors.values())} errors,"
                f" {receiver.received} webhooks",
                flush=True,
            )
            next_report += 60
            if census is not None:
                _census(started.aws, now - began, census, trace_frames)
        time.sleep(max(0.0, min(sample_seconds, end - time.monotonic())))
    stop.set()
    worker.join(120)
    return samples


def _census(aws: str, seconds: float, path: Path, trace_frames: int) -> None:
    """Appends what the emulator's memory holds (bench/soak_census.py) to `path`, one JSON line."""
    line: dict[str, Any] = {"seconds": round(seconds)}
    try:
        line["census"] = requests.get(f"{aws}{EXTENSION_PATH}census", timeout=120).json()
        if trace_frames:
            line["trace"] = requests.get(f"{aws}{EXTENSION_PATH}trace", timeout=300).json()
    except (requests.RequestException, ValueError) as error:
        line["error"] = repr(error)
    with path.open("a") as out:
        out.write(json.dumps(line) + "\n")


def render(report: SoakReport) -> str:
    host = report.machine
    lines = [
        f"Soak: `make run` under a steady mixed load for {report.minutes:g} min, RSS sampled every "
        f"{report.sample_seconds:g} s"
        + (
            f"; the runtime's clock moved {report.clock_days_per_minute:g} days a minute"
            if report.clock_days_per_minute
            else ""
        ),
        f"  machine: {host['cpu']}, {host['cores']} cores usable, load {host['load_before']} before, {host['date']}",
        "  calls: " + ", ".join(f"{name} {count}" for name, count in sorted(report.operations.items())),
        f"  webhooks received: {report.webhooks_received}; exports completed: {report.exports_completed}",
        "  errors: " + (", ".join(f"{name} {count}" for name, count in sorted(report.errors.items())) or "none"),
    ]
    for item in report.series:
        verdict = "met" if item.met else "ABOVE"
        lines.append(
            f"  {item.name:8} RSS {item.start_mb:7.1f} -> {item.end_mb:7.1f} MB (peak {item.peak_mb:.1f});"
            f" slope over the second half {item.slope_mb_per_hour:+8.1f} MB/hour"
            f" (aim <= {item.aim_mb_per_hour:g}): {verdict}"
        )
    kept = report.snapshot
    lines.append(
        f"  what the emulator keeps (its snapshot file): {kept.start_mb:.1f} -> {kept.end_mb:.1f} MB;"
        f" {kept.slope_mb_per_hour:+.1f} MB/hour over the second half"
    )
    return "\n".join(lines)


def missed(report: SoakReport) -> bool:
    """An aim missed: a process's memory grew faster than the aim. Failed calls are reported (a
    shared machine times out the odd call) but are not what the soak measures."""
    return not all(item.met for item in report.series)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[1])
    parser.add_argument("--minutes", type=float, default=60.0, help="how long the load runs (%(default)s)")
    parser.add_argument("--sample-seconds", type=float, default=5.0, help="RSS sampling interval (%(default)s)")
    parser.add_argument("--sends-per-second", type=float, default=0.5, help="single sends (%(default)s)")
    parser.add_argument("--batch", type=int, default=20, help="recipients of the batch sent every 10 s (%(default)s)")
    parser.add_argument(
        "--aim-mb-per-hour", type=float, default=50.0, help="the most each process may grow (%(default)s)"
    )
    parser.add_argument(
        "--clock-days-per-minute",
        type=float,
        default=0.0,
        help="move the runtime's clock this many days each minute, so retention windows pass (%(default)s)",
    )
    parser.add_argument(
        "--census", action="store_true", help="record what the emulator's memory holds each minute (a diagnostic)"
    )
    parser.add_argument("--trace-frames", type=int, default=0, help="with --census: tracemalloc frames (0: off)")
    parser.add_argument("--json", default=str(Path(".local") / "soak.json"), help="report file; empty: none")
    parser.add_argument("--log", default=str(Path(".local") / "soak.log"), help="the runtime's stderr (%(default)s)")
    args = parser.parse_args(argv)
    if args.clock_days_per_minute < 0:
        parser.error("--clock-days-per-minute must not be negative")
    if args.minutes <= 0 or args.sample_seconds <= 0 or args.sends_per_second <= 0 or not 1 <= args.batch <= 5_000:
        parser.error("--minutes, --sample-seconds and --sends-per-second must be positive, --batch 1 to 5,000")
    log = Path(args.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    # A `kill` ends the run as Ctrl-C does: through soak()'s cleanup, which stops the runtime child
    # (left running otherwise, its emulator still growing).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    census = None
    if args.census:
        census = Path(args.json or str(Path(".local") / "soak.json")).with_suffix(".census.jsonl")
        census.parent.mkdir(parents=True, exist_ok=True)
        census.unlink(missing_ok=True)
    report = soak(
        args.minutes,
        args.sample_seconds,
        args.sends_per_second,
        args.batch,
        args.aim_mb_per_hour,
        log,
        clock_days_per_minute=args.clock_days_per_minute,
        census=census,
        trace_frames=args.trace_frames,
    )
    print(render(report), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(asdict(report), indent=2))
    return 1 if missed(report) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
