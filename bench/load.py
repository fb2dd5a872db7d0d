"""o. Load at twice each plan's rate (issue 31, part 3), on an embedded runtime of its own.

The API: each plan's limit (`PLAN_LIMITS`: 600/min Free, 6,000/min Professional; the rate limiter's
fixed one-minute windows per account, postline/auth/ratelimit.py) offered at twice the rate for
`seconds`, open loop (call i is due at start + i / rate), from several client processes with a few
keep-alive connections each (so the clients take nothing from the runtime's interpreter); then the
same calls at half the limit, whose admitted calls' latencies are the baseline of the overload's.
A fresh account and test key per run (test keys: the simulator delivers, within the plan's monthly
test allowance). One call in `SEND_EVERY` is a send (POST /v3/messages), the others read the
client's last accepted message back (GET /v3/messages/{id}): both count in the window.

Checked, per window as the server reports it (the window's end is the clock at the answer plus its
X-RateLimit-Reset, rounded down to the minute, so each answer is placed in its window exactly):
- offered above the limit in a window: exactly `limit` admitted and the rest 429 rate_limited;
  offered at most the limit: no 429 (no more 429s than the window allows, and no fewer);
- every 429 carries Retry-After, every answer the X-RateLimit-* headers, and no two admitted calls
  of a window report the same X-RateLimit-Remaining (each counted once);
- no 5xx, no call without an answer;
- every accepted send reaches a final status once the runtime has drained (read from the store);
- the overload was offered at all: at least one whole window above the limit (a machine too slow
  to offer it is reported, not passed).

SMTP, one account per plan: `smtp_connections` authenticated connections, then one more, which
must get 421 4.7.0 at AUTH; then MAIL FROM at twice `smtp_submissions_per_second` over those
connections for `smtp_seconds`. Each MAIL is placed in its second by the clock read before and
after it (both in one second: known; else it may be either). Per second: accepted (known) at most
the limit; where a MAIL was refused (or more were offered than the limit), at least the limit
accepted counting the MAILs that may be in that second; every refusal 452 4.7.0. One accepted MAIL
in `SEND_EVERY` goes on to DATA (the others RSET), and those messages must reach a final status.

`python -m bench.load [--seconds N] [--plans free professional]` runs it alone; `make bench`
runs it as section "load" (each failed check is a missed aim: the run exits 1).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import smtplib
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from bench import load_clients
from bench.load_clients import RECIPIENT, SEND_EVERY, SENDER
from bench.stats import Latencies, ratio
from devtools.local.runtime import Runtime
from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.auth.ratelimit import WINDOW_SECONDS
from postline.keys.access import Environment
from postline.sending.domain import MessageStatus

TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"
STDOUT_LOG = Path(".local") / "bench-load.out"  # the runtime's stdout meanwhile (its metric lines)
FINAL = {
    MessageStatus.DELIVERED,
    MessageStatus.BOUNCED,
    MessageStatus.COMPLAINED,
    MessageStatus.REJECTED,
    MessageStatus.FAILED,
}
_DRAIN_SECONDS = 900.0
_WARM_UP = 20  # sends and reads before the first run
_SETTLE_SECONDS = 1.0  # between the clients' start signal and their first call


# -- the clients (bench/load_clients.py, a process each) -------------------------------------


class Answer(NamedTuple):
    started: float  # wall clock, seconds
    seconds: float
    kind: str  # "send" or "get"
    status: int  # 0: no answer (the error is in `error`)
    window_end: int | None  # epoch second the answering window ends (from X-RateLimit-Reset)
    code: str | None  # the error code of a 4xx/5xx
    retry_after: bool
    rate_headers: bool  # all three X-RateLimit-* headers
    remaining: int | None
    message_id: str | None  # of a 202
    error: str | None
    limit: int | None  # X-RateLimit-Limit

    @classmethod
    def of(cls, found: dict[str, Any]) -> Answer:
        return cls(
            started=found["started"],
            seconds=found["seconds"],
            kind=found["kind"],
            status=found["status"],
            window_end=found.get("window_end"),
            code=found.get("code"),
            retry_after=found.get("retry_after", False),
            rate_headers=found.get("rate_headers", False),
            remaining=found.get("remaining"),
            message_id=found.get("message_id"),
            error=found.get("error"),
            limit=found.get("limit"),
        )

    @property
    def rate_limited(self) -> bool:
        return self.status == 429 and self.code == "rate_limited"


class Mail(NamedTuple):
    before: float  # the runtime's clock before MAIL FROM
    after: float
    reply: str  # MAIL FROM's reply, code and text
    data_reply: str | None  # DATA's, when this one went on to DATA
    message_id: str | None

    @classmethod
    def of(cls, found: dict[str, Any]) -> Mail:
        return cls(found["before"], found["after"], found["reply"], found.get("data_reply"), found.get("message_id"))


def _in_processes(
    settings: dict[str, Any], processes: int, workers: int, between: Callable[[], None] = lambda: None
) -> tuple[list[dict[str, Any]], float]:
    """Runs `workers` client workers spread over `processes` processes of bench/load_clients.py;
    once every one is ready, `between()`, then the start. Every worker's results, and the wall time
    the start was set to."""
    children = []
    try:
        for process in range(processes):
            child = subprocess.Popen(
                [sys.executable, "-m", "bench.load_clients"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=Path(__file__).resolve().parents[1],
            )
            children.append(child)
            assert child.stdin is not None
            numbers = list(range(process, workers, processes))
            child.stdin.write(json.dumps({**settings, "numbers": numbers, "every": workers}) + "\n")
            child.stdin.flush()
        for child in children:
            assert child.stdout is not None
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a load client did not start (exit {child.wait()}; its error is above)")
        between()
        start = time.time() + _SETTLE_SECONDS
        for child in children:
            assert child.stdin is not None
            child.stdin.write(f"start {start!r}\n")
            child.stdin.flush()
        results: list[dict[str, Any]] = []
        for child in children:
            assert child.stdout is not None
            line = child.stdout.readline()
            if child.wait() != 0 or not line:
                raise RuntimeError(f"a load client failed (exit {child.returncode}; its error is above)")
            results.extend(json.loads(line))
        return results, start
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


# -- what the runs found ------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    end: int  # epoch second
    offered: int  # answers placed in this window
    admitted: int  # every answer but 429 rate_limited
    limited: int
    repeated_remaining: int  # admitted answers whose X-RateLimit-Remaining another one also reported
    whole: bool  # the run covered the whole window (not its first or last)

    def exact(self, limit: int) -> bool:
        if self.offered > limit:
            return self.admitted == limit and self.limited == self.offered - limit
        return self.limited == 0


@dataclass(frozen=True)
class LoadRun:
    plan: str
    limit: int  # per minute
    multiple: float
    seconds: float
    clients: str  # "P processes x T connections"
    offered: int
    offered_per_minute: float  # what the clients managed (a slow machine may not reach the aim)
    statuses: dict[int, int]
    windows: list[Window]
    missing_retry_after: int
    missing_rate_headers: int
    wrong_limit: int  # answers whose X-RateLimit-Limit is not the plan's
    server_errors: int
    no_answer: int
    accepted_sends: int
    final: dict[str, int]  # statuses of the accepted sends after the drain
    drain_seconds: float
    admitted: Latencies | None  # the admitted calls, sends and reads together
    admitted_sends: Latencies | None
    admitted_gets: Latencies | None
    limited: Latencies | None  # the 429s
    load_average: float  # the 1-minute load at the end of the run
    # CPU seconds a call during the run, both processes (the runtime with its pipeline, the emulator;
    # not the clients): the machine's ceiling, cores / this, is what the offer could not pass
    cpu_per_call: float | None = None

    @property
    def cores_needed(self) -> float | None:
        """Cores' worth of CPU to offer the aim (the limit times the multiple) at this cost a call."""
        return None if self.cpu_per_call is None else self.cpu_per_call * self.limit * self.multiple / 60

    @property
    def lost(self) -> int:
        return self.accepted_sends - sum(count for status, count in self.final.items() if status in FINAL)

    @property
    def name(self) -> str:
        return f"{self.plan} at {self.multiple:g}x {self.limit:,}/min"

    def failures(self) -> list[str]:
        found = [
            f"{self.name}: the window ending {time.strftime('%H:%M:%S', time.gmtime(w.end))} had {w.offered} calls,"
            f" {w.admitted} admitted and {w.limited} 429s (the window allows {self.limit})"
            for w in self.windows
            if not w.exact(self.limit)
        ]
        if self.multiple > 1 and not any(w.whole for w in self.windows):
            found.append(f"{self.name}: not shown, the run held no whole window ({self.seconds:.0f} s; 120 s or more)")
        elif self.multiple > 1 and not any(w.whole and w.offered > self.limit for w in self.windows):
            found.append(
                f"{self.name}: not shown, the clients offered {self.offered_per_minute:,.0f}/min and no whole"
                " window went over the limit (this machine cannot offer the plan's overload)"
            )
        if repeated := sum(w.repeated_remaining for w in self.windows):
            found.append(f"{self.name}: {repeated} admitted calls reported an X-RateLimit-Remaining already reported")
        if self.missing_retry_after:
            found.append(f"{self.name}: {self.missing_retry_after} 429s without Retry-After")
        if self.missing_rate_headers:
            found.append(f"{self.name}: {self.missing_rate_headers} answers without the X-RateLimit-* headers")
        if self.wrong_limit:
            found.append(f"{self.name}: {self.wrong_limit} answers with an X-RateLimit-Limit other than {self.limit}")
        if self.server_errors:
            found.append(f"{self.name}: {self.server_errors} 5xx answers")
        if self.no_answer:
            found.append(f"{self.name}: {self.no_answer} calls without an answer")
        if self.lost:
            found.append(f"{self.name}: {self.lost} of {self.accepted_sends} accepted sends without a final status")
        return found


@dataclass(frozen=True)
class SmtpSecond:
    second: int
    accepted: int  # known to be in this second
    refused: int
    maybe_accepted: int  # accepted, may be in this second or its neighbour


@dataclass(frozen=True)
class SmtpLoad:
    plan: str
    connections: int  # the plan's cap
    refused_connection: str  # the reply to AUTH on the connection past the cap
    per_second: int  # the plan's submission rate
    seconds: float
    offered: int
    offered_per_second: float  # what the clients managed
    accepted: int
    refusals: dict[str, int]  # MAIL FROM reply -> count
    seconds_checked: list[SmtpSecond]
    data_refusals: dict[str, int]  # DATA replies other than 250
    sent: int  # messages that went on to DATA and were queued
    final: dict[str, int]
    load_average: float

    @property
    def lost(self) -> int:
        return self.sent - sum(count for status, count in self.final.items() if status in FINAL)

    def failures(self) -> list[str]:
        name = f"SMTP {self.plan} at 2x {self.per_second}/s"
        found = []
        if not self.refused_connection.startswith("421 4.7.0"):
            found.append(f"SMTP {self.plan}: connection {self.connections + 1} got {self.refused_connection!r}")
        for s in self.seconds_checked:
            at = time.strftime("%H:%M:%S", time.gmtime(s.second))
            if s.accepted > self.per_second:
                found.append(f"{name}: {s.accepted} accepted in the second {at}")
            elif s.refused and s.accepted + s.maybe_accepted < self.per_second:
                most = s.accepted + s.maybe_accepted
                found.append(f"{name}: {s.refused} refused in the second {at} with at most {most} accepted")
        if odd := [reply for reply in self.refusals if not reply.startswith("452 4.7.0")]:
            found.append(f"{name}: refusals other than 452 4.7.0: {odd}")
        if not self.refusals:
            found.append(
                f"{name}: not shown, the clients offered {self.offered_per_second:.1f}/s and no MAIL was refused"
            )
        if self.data_refusals:
            found.append(f"{name}: DATA refused: {self.data_refusals}")
        if self.lost:
            found.append(f"{name}: {self.lost} of {self.sent} messages without a final status")
        return found


@dataclass(frozen=True)
class Load:
    runs: list[LoadRun] = field(default_factory=list)  # per plan: 2x, then 0.5x
    smtp: list[SmtpLoad] = field(default_factory=list)
    machine: dict[str, str] = field(default_factory=dict)

    def failures(self) -> list[str]:
        return [line for run in self.runs for line in run.failures()] + [
            line for check in self.smtp for line in check.failures()
        ]


# -- the runs -----------------------------------------------------------------------------------


def account_key(plan: Plan, name: str) -> str:
    """A fresh account on `plan` and a test key of it (its own rate window)."""
    from postline.wiring import operator as operator_root

    operator = operator_root.operator_service()
    account = operator.create_account(name=name, plan=plan)
    return operator.create_key(account.id, name="load", env=Environment.TEST).key


def final_statuses(runtime: Runtime, message_ids: list[str]) -> tuple[dict[str, int], float]:
    """After the runtime drains: the stored status of each message (`missing` if none), and how long
    the drain took."""
    from postline.wiring import sending as sending_root

    began = time.perf_counter()
    runtime.drain(_DRAIN_SECONDS)
    drained = time.perf_counter() - began
    store = sending_root.message_store()
    stored = {}
    for chunk in range(0, len(message_ids), 1_000):
        stored.update(store.get_many(message_ids[chunk : chunk + 1_000]))
    counts = Counter(str(stored[i].status) if i in stored else "missing" for i in message_ids)
    return dict(counts), drained


def _offset(runtime: Runtime) -> float:
    return runtime.clock.now().timestamp() - time.time()


def _latencies(seconds: list[float]) -> Latencies | None:
    return Latencies.of(seconds) if seconds else None


def measure_api(
    runtime: Runtime,
    plan: Plan,
    multiple: float,
    seconds: float,
    processes: int,
    connections: int,
    progress: Callable[[str], None],
) -> LoadRun:
    limit = PLAN_LIMITS[plan].rate_limit_per_minute
    key = account_key(plan, f"load-{plan.value}-{multiple:g}x")
    per_minute = limit * multiple
    total = int(seconds * per_minute / 60)
    progress(
        f"o. {plan.value}: {multiple:g}x its {limit:,}/min ({total:,} calls in {seconds:.0f} s) from"
        f" {processes} processes x {connections} connections"
    )
    settings = {
        "kind": "api",
        "base_url": runtime.base_url,
        "key": key,
        "total": total,
        "interval": 60.0 / per_minute,
        "offset": _offset(runtime),
    }
    cpu_before = time.process_time(), runtime.emulator_cpu_seconds()
    found, start = _in_processes(settings, processes, processes * connections)
    cpu_after = time.process_time(), runtime.emulator_cpu_seconds()
    answers = [Answer.of(answer) for answer in found]
    ended = max((a.started + a.seconds for a in answers), default=start + seconds)
    load_average = os.getloadavg()[0]
    first_end = math.floor((start + _offset(runtime)) / WINDOW_SECONDS + 1) * WINDOW_SECONDS
    last_end = math.floor((ended + _offset(runtime)) / WINDOW_SECONDS + 1) * WINDOW_SECONDS
    by_window: dict[int, list[Answer]] = {}
    for answer in answers:
        if answer.window_end is not None:
            by_window.setdefault(answer.window_end, []).append(answer)
    windows = []
    for end, group in sorted(by_window.items()):
        limited = [a for a in group if a.rate_limited]
        admitted = [a for a in group if not a.rate_limited]
        remaining = Counter(a.remaining for a in admitted)
        repeated = sum(count - 1 for count in remaining.values() if count > 1)
        windows.append(Window(end, len(group), len(admitted), len(limited), repeated, first_end < end < last_end))
    sent = [a.message_id for a in answers if a.message_id]
    progress(f"o. {plan.value} {multiple:g}x: draining the pipeline ({len(sent):,} accepted sends)")
    final, drained = final_statuses(runtime, sent)
    admitted_answers = [a for a in answers if a.status and not a.rate_limited]
    return LoadRun(
        plan=plan.value,
        limit=limit,
        multiple=multiple,
        seconds=seconds,
        clients=f"{processes} processes x {connections} connections",
        offered=len(answers),
        offered_per_minute=len(answers) / max(ended - start, 1e-9) * 60,
        statuses=dict(sorted(Counter(a.status for a in answers).items())),
        windows=windows,
        missing_retry_after=sum(1 for a in answers if a.status == 429 and not a.retry_after),
        missing_rate_headers=sum(1 for a in answers if a.status and not a.rate_headers),
        wrong_limit=sum(1 for a in answers if a.rate_headers and a.limit != limit),
        server_errors=sum(1 for a in answers if a.status >= 500),
        no_answer=sum(1 for a in answers if a.status == 0),
        accepted_sends=len(sent),
        final=final,
        drain_seconds=drained,
        admitted=_latencies([a.seconds for a in admitted_answers]),
        admitted_sends=_latencies([a.seconds for a in admitted_answers if a.kind == "send"]),
        admitted_gets=_latencies([a.seconds for a in admitted_answers if a.kind == "get"]),
        limited=_latencies([a.seconds for a in answers if a.status == 429]),
        load_average=load_average,
        cpu_per_call=_cpu_per_call(cpu_before, cpu_after, len(answers)),
    )


def _cpu_per_call(before: tuple[float, float | None], after: tuple[float, float | None], calls: int) -> float | None:
    if before[1] is None or after[1] is None or not calls:
        return None
    return (after[0] - before[0] + after[1] - before[1]) / calls


def _auth_reply(host: str, port: int, key: str) -> str:
    """AUTH PLAIN on a new connection: the reply, as the server gave it."""
    client = smtplib.SMTP(host, port, timeout=60)
    try:
        client.ehlo()
        token = base64.b64encode(f"\0api\0{key}".encode()).decode()
        code, text = client.docmd("AUTH", f"PLAIN {token}")
        return f"{code} {text.decode(errors='replace')}"
    except smtplib.SMTPServerDisconnected as error:
        return f"disconnected: {error}"
    finally:
        client.close()


def seconds_of(mails: list[Mail]) -> list[SmtpSecond]:
    """Each second's accepted and refused MAILs: known when the clock read before and after the MAIL
    is in one second; an accepted MAIL across a second's boundary may be in either."""
    accepted: Counter[int] = Counter()
    refused: Counter[int] = Counter()
    maybe: Counter[int] = Counter()
    for mail in mails:
        first, last = int(mail.before), int(mail.after)
        ok = mail.reply.startswith("250")
        if first == last:
            (accepted if ok else refused)[first] += 1
        elif ok:
            for second in range(first, last + 1):
                maybe[second] += 1
    return [
        SmtpSecond(second, accepted[second], refused[second], maybe[second])
        for second in sorted(set(accepted) | set(refused) | set(maybe))
    ]


def measure_smtp(
    runtime: Runtime, plan: Plan, seconds: float, processes: int, progress: Callable[[str], None]
) -> SmtpLoad:
    limits = PLAN_LIMITS[plan]
    key = account_key(plan, f"load-smtp-{plan.value}")
    host, port = runtime.smtp.rsplit(":", 1)
    per_second = limits.smtp_submissions_per_second * 2
    total = int(seconds * per_second)
    connections = limits.smtp_connections
    progress(
        f"o. SMTP {plan.value}: {connections} connections and one more, then {total:,} MAIL FROM at 2x"
        f" {limits.smtp_submissions_per_second}/s for {seconds:.0f} s"
    )
    refused: list[str] = []
    settings = {
        "kind": "smtp",
        "host": host,
        "port": int(port),
        "key": key,
        "total": total,
        "interval": 1.0 / per_second,
        "offset": _offset(runtime),
    }
    found, start = _in_processes(
        settings,
        min(processes, connections),
        connections,
        between=lambda: refused.append(_auth_reply(host, int(port), key)),
    )
    mails = [Mail.of(mail) for mail in found]
    ended = max((m.after - _offset(runtime) for m in mails), default=start + seconds)
    load_average = os.getloadavg()[0]
    sent = [m.message_id for m in mails if m.message_id]
    progress(f"o. SMTP {plan.value}: draining the pipeline ({len(sent):,} messages)")
    final, _ = final_statuses(runtime, sent)
    return SmtpLoad(
        plan=plan.value,
        connections=connections,
        refused_connection=refused[0],
        per_second=limits.smtp_submissions_per_second,
        seconds=seconds,
        offered=len(mails),
        offered_per_second=len(mails) / max(ended - start, 1e-9),
        accepted=sum(1 for m in mails if m.reply.startswith("250")),
        refusals=dict(Counter(m.reply for m in mails if not m.reply.startswith("250"))),
        seconds_checked=seconds_of(mails),
        data_refusals=dict(Counter(m.data_reply for m in mails if m.data_reply and not m.data_reply.startswith("250"))),
        sent=len(sent),
        final=final,
        load_average=load_average,
    )


@contextmanager
def stdout_to(path: Path) -> Iterator[None]:
    """Points file descriptor 1 at `path` while the block runs: the functions' metric lines (what
    Lambda's stdout sends to CloudWatch), one or more a call, would bury the report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    saved = os.dup(1)
    with path.open("w") as out:
        os.dup2(out.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def warm_up(runtime: Runtime) -> None:
    """The first calls of each function build its clients and caches (a cold start): made before any
    run, on an account of their own, and delivered."""
    import requests

    key = account_key(Plan.PROFESSIONAL, "load-warm-up")
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {key}"
    body = {"from": SENDER, "to": [RECIPIENT], "subject": "Warm-up", "text": "Warm-up."}
    with session:
        for _ in range(_WARM_UP):
            response = session.post(f"{runtime.base_url}/v3/messages", json=body, timeout=60)
            response.raise_for_status()
            session.get(f"{runtime.base_url}/v3/messages/{response.json()['id']}", timeout=60).raise_for_status()
    host, port = runtime.smtp.rsplit(":", 1)
    with smtplib.SMTP(host, int(port), timeout=60) as client:
        client.login("api", key)
        for _ in range(_WARM_UP // 4):
            client.sendmail(SENDER, [RECIPIENT], f"From: {SENDER}\r\nSubject: Warm-up\r\n\r\nWarm-up.\r\n")
    runtime.drain(_DRAIN_SECONDS)


@dataclass(frozen=True)
class Settings:
    seconds: float = 300.0  # each plan's overload (2x)
    half_seconds: float = 120.0  # the same calls at half the limit: the latency baseline
    smtp_seconds: float = 120.0  # SMTP at twice the submission rate
    processes: int = 4  # client processes
    connections: int = 4  # keep-alive connections (threads) per process
    plans: tuple[Plan, ...] = (Plan.FREE, Plan.PROFESSIONAL)


def run(settings: Settings, progress: Callable[[str], None] = print) -> Load:
    """The section on an embedded runtime of its own."""
    if load_clients.WINDOW_SECONDS != WINDOW_SECONDS:
        raise RuntimeError("bench/load_clients.py's WINDOW_SECONDS differs from the rate limiter's")
    from bench import report

    load = Load(machine=report.machine())
    with (
        stdout_to(STDOUT_LOG),
        tempfile.TemporaryDirectory(prefix="postline-load-bench-") as state,
        Runtime(TEMPLATE, Path(state), log_level="ERROR") as runtime,
    ):
        progress(f"o. warming up: {_WARM_UP} sends and reads, and SMTP messages, on an account of their own")
        warm_up(runtime)
        for plan in settings.plans:
            for multiple, seconds in ((2.0, settings.seconds), (0.5, settings.half_seconds)):
                load.runs.append(
                    measure_api(runtime, plan, multiple, seconds, settings.processes, settings.connections, progress)
                )
        for plan in settings.plans:
            load.smtp.append(measure_smtp(runtime, plan, settings.smtp_seconds, settings.processes, progress))
    load.machine["load_after"] = report.load()
    return load


def _ms(latencies: Latencies | None, which: str) -> str:
    return f"{getattr(latencies, which) * 1000:.0f} ms" if latencies is not None else "-"


def lines(load: Load) -> list[str]:
    out = [
        "o. Load at twice each plan's rate, then at half (fixed one-minute windows per account; one call in"
        f" {SEND_EVERY} a send, the rest GET /v3/messages/{{id}}; a fresh test-key account per run)"
    ]
    half = {run.plan: run for run in load.runs if run.multiple < 1}
    for run in load.runs:
        exact = sum(1 for w in run.windows if w.exact(run.limit))
        per_window = ", ".join(f"{w.admitted}/{w.offered}" for w in run.windows)
        out.append(
            f"   {run.name}, {run.seconds:.0f} s from {run.clients} (load {run.load_average:.1f}):"
            f" {run.offered:,} calls ({run.offered_per_minute:,.0f}/min offered, the aim"
            f" {run.limit * run.multiple:,.0f}/min), statuses {run.statuses}"
        )
        out.append(f"      windows admitted/offered: {per_window} ({exact} of {len(run.windows)} exact)")
        out.append(
            f"      429 without Retry-After {run.missing_retry_after}, without rate headers"
            f" {run.missing_rate_headers}, another limit {run.wrong_limit}; 5xx {run.server_errors};"
            f" no answer {run.no_answer};"
            f" {run.accepted_sends:,} sends accepted, final {run.final} after a {run.drain_seconds:.0f} s drain"
        )
        base = half.get(run.plan)
        versus = ""
        if run.multiple > 1 and base is not None and base.admitted is not None and run.admitted is not None:
            versus = f" ({ratio(run.admitted.p99, base.admitted.p99):.2f}x the p99 at {base.multiple:g}x)"
        out.append(
            f"      admitted p50 {_ms(run.admitted, 'p50')}, p99 {_ms(run.admitted, 'p99')}{versus};"
            f" sends p99 {_ms(run.admitted_sends, 'p99')}, reads p99 {_ms(run.admitted_gets, 'p99')};"
            f" 429s p50 {_ms(run.limited, 'p50')}, p99 {_ms(run.limited, 'p99')}"
        )
        if run.cpu_per_call is not None and run.cores_needed is not None:
            out.append(
                f"      CPU during the run {run.cpu_per_call * 1000:.1f} ms a call (the runtime with its pipeline, the"
                f" emulator; idle work included): the aim needs"
                f" {run.cores_needed:.1f} cores' worth, this machine has {load.machine.get('cores', '?')}"
            )
    for check in load.smtp:
        accepted = [s.accepted for s in check.seconds_checked]
        out.append(
            f"   SMTP {check.plan}: connection {check.connections + 1} -> {check.refused_connection!r};"
            f" {check.offered:,} MAIL FROM in {check.seconds:.0f} s ({check.offered_per_second:.1f}/s, 2x"
            f" {check.per_second}/s is the aim; load {check.load_average:.1f}): {check.accepted:,} accepted,"
            f" refusals {check.refusals}"
        )
        out.append(
            f"      accepted a second (known): max {max(accepted, default=0)}, median"
            f" {sorted(accepted)[len(accepted) // 2] if accepted else 0}; {check.sent:,} went on to DATA,"
            f" final {check.final}; DATA refused {check.data_refusals or 0}"
        )
    out += [f"   FAILURE {line}" for line in load.failures()]
    return out


def main(argv: list[str] | None = None) -> int:
    defaults = Settings()
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=defaults.seconds, help="2x, per plan (%(default)s)")
    parser.add_argument(
        "--half-seconds", type=float, default=defaults.half_seconds, help="0.5x, per plan (%(default)s)"
    )
    parser.add_argument("--smtp-seconds", type=float, default=defaults.smtp_seconds, help="per plan (%(default)s)")
    parser.add_argument("--processes", type=int, default=defaults.processes, help="client processes (%(default)s)")
    parser.add_argument(
        "--connections", type=int, default=defaults.connections, help="connections per process (%(default)s)"
    )
    parser.add_argument(
        "--plans", nargs="+", default=[p.value for p in defaults.plans], choices=[p.value for p in Plan]
    )
    args = parser.parse_args(argv)
    if min(args.seconds, args.half_seconds, args.smtp_seconds) <= 0 or min(args.processes, args.connections) < 1:
        parser.error("durations must be positive, --processes and --connections at least 1")
    settings = Settings(
        args.seconds,
        args.half_seconds,
        args.smtp_seconds,
        args.processes,
        args.connections,
        tuple(map(Plan, args.plans)),
    )
    began = time.perf_counter()

    def progress(step: str) -> None:
        print(f"[{time.perf_counter() - began:6.1f} s] {step}", file=sys.stderr, flush=True)

    load = run(settings, progress)
    print(
        f"{load.machine['cpu']}, {load.machine['cores']} cores; 1-min load before {load.machine['load_before']},"
        f" after {load.machine['load_after']}"
    )
    for line in lines(load):
        print(line, flush=True)
    return 1 if load.failures() else 0


if __name__ == "__main__":
    raise SystemExit(main())
