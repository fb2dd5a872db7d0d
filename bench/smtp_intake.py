"""m. SMTP intake: submission against the API send path, in one embedded runtime, from parallel
clients sending the same message (smtplib, one authenticated connection per client; requests, one
session per client); then the submission server's own ceiling with the service replaced by a no-op
(aiosmtpd, the hooks, the thread hand-off). Each client has an account of its own (Professional:
100 submissions/s each), so the per-account rate limit is not what is measured.

`make bench` runs it as section "smtp" (`measure`) at two sizes, for growth; `python -m
bench.smtp_intake [--messages N] [--clients N] [--rounds N]` runs it alone. The figure is SMTP's cost
per message as a ratio of the API's (the issue's goal: at most 1.3).
"""

from __future__ import annotations

import argparse
import smtplib
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, cast

import requests

from bench.run import _concurrently
from devtools.local.runtime import Runtime
from postline.accounts.domain import Plan
from postline.keys.access import Environment
from postline.smtp.server import SubmissionServer
from postline.smtp.service import Login
from postline.wiring import operator as operator_root

TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"
SENDER, RECIPIENT = "hello@example.com", "delivered@simulator.postline.dev"
TEXT = "Thanks for your order.\n" * 20
Work = Callable[[Any, int], Any]  # work(None, worker) sets a client up; work(client, index) sends one


def api_body() -> dict[str, Any]:
    return {"from": SENDER, "to": [RECIPIENT], "subject": "Receipt", "text": TEXT, "tags": ["receipt"]}


def mime() -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = SENDER, RECIPIENT, "Receipt"
    message["X-Svc-Tag"] = "receipt"
    message.set_content(TEXT)
    return message.as_bytes(policy=policy.SMTP)


def timed(count: int, clients: int, work: Work) -> float:
    """Seconds for `count` sends spread over `clients` threads, each with its own client (set up
    before the clock starts, closed after it stops)."""
    connected = [work(None, worker) for worker in range(clients)]
    seconds = _concurrently(clients, list(range(count)), lambda worker, index: work(connected[worker], index))
    for client in connected:
        if isinstance(client, smtplib.SMTP):
            client.quit()
    return seconds


def parallel(count: int, clients: int, work: Work) -> float:
    """Messages per second of `timed`."""
    return count / timed(count, clients, work)


def smtp_work(port: int, keys: Sequence[str]) -> Work:
    """Client `worker` logs in with keys[worker] (one account each)."""
    raw = mime()

    def work(client: smtplib.SMTP | None, index: int) -> Any:
        if client is None:
            client = smtplib.SMTP("127.0.0.1", port, timeout=60)
            client.login("api", keys[index % len(keys)])
            return client
        client.mail(SENDER)
        client.rcpt(RECIPIENT)
        code, text = client.data(raw)
        assert code == 250, text
        return None

    return work


def api_work(base_url: str, keys: Sequence[str]) -> Work:
    def work(client: requests.Session | None, index: int) -> Any:
        if client is None:
            session = requests.Session()
            session.headers["Authorization"] = f"Bearer {keys[index % len(keys)]}"
            return session
        response = client.post(f"{base_url}/v3/messages", json=api_body(), timeout=30)
        assert response.status_code == 202, response.text
        return None

    return work


class _NoOp:
    """The submission service's calls, answering at once: what is left is the server itself."""

    def login(self, password: str, source_ip: str | None) -> Login:
        return Login(cast(Any, object()), "235 2.7.0 Authentication successful")  # anyone

    def submit(self, password: str, source_ip: str | None, recipients: list[str], raw: bytes) -> str:
        return "250 2.0.0 Ok: queued as msg_noop"

    def __getattr__(self, name: str) -> Callable[..., None]:  # open, close, renew, start_message
        return lambda *args: None


@dataclass(frozen=True)
class IntakeSize:
    messages: int
    api_seconds: float  # POST /v3/messages, `clients` sessions
    smtp_seconds: float  # the same message over SMTP, `clients` connections
    noop_seconds: float  # over SMTP to a server whose service answers at once
    api_per_second: float
    smtp_per_second: float
    noop_per_second: float
    ratio: float  # SMTP's time per message / the API's (goal <= 1.3)


@dataclass(frozen=True)
class SmtpIntake:
    clients: int
    sizes: list[IntakeSize]  # in the order asked (small, then large)


def accounts(clients: int) -> list[str]:
    """One Professional account and test key per client (test keys: the simulator delivers)."""
    operator = operator_root.operator_service()
    keys = []
    for number in range(clients):
        account = operator.create_account(name=f"smtp-bench-{number}", plan=Plan.PROFESSIONAL)
        keys.append(operator.create_key(account.id, name="bench", env=Environment.TEST).key)
    return keys


def measure(
    runtime: Runtime, clients: int, sizes: Sequence[int], progress: Callable[[str], None] = print
) -> SmtpIntake:
    keys = accounts(clients)
    port = int(runtime.smtp.rsplit(":", 1)[1])
    smtp, api = smtp_work(port, keys), api_work(runtime.base_url, keys)
    timed(clients * 2, clients, api)  # warm both paths (first calls build clients and caches)
    timed(clients * 2, clients, smtp)
    runtime.drain(120)
    server = SubmissionServer(lambda: _NoOp(), port=0, trust_loopback=True)  # type: ignore[arg-type,return-value]
    server.start()
    measured = []
    try:
        noop = smtp_work(server.port, ["unused"])
        timed(clients * 2, clients, noop)
        for size in sizes:
            progress(f"m. {size:,} messages from {clients} clients: the API, then SMTP, then the no-op server")
            api_seconds = timed(size, clients, api)
            runtime.drain(300)
            smtp_seconds = timed(size, clients, smtp)
            runtime.drain(300)
            noop_seconds = timed(size, clients, noop)
            measured.append(
                IntakeSize(
                    messages=size,
                    api_seconds=api_seconds,
                    smtp_seconds=smtp_seconds,
                    noop_seconds=noop_seconds,
                    api_per_second=size / api_seconds,
                    smtp_per_second=size / smtp_seconds,
                    noop_per_second=size / noop_seconds,
                    ratio=smtp_seconds / api_seconds,
                )
            )
    finally:
        server.stop()
    return SmtpIntake(clients, measured)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.smtp_intake")
    parser.add_argument("--messages", type=int, default=200, help="per side and round (%(default)s)")
    parser.add_argument("--clients", type=int, default=10, help="parallel clients (%(default)s)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; the first warms up (%(default)s)")
    args = parser.parse_args()
    with Runtime(TEMPLATE, Path(tempfile.mkdtemp(prefix="postline-smtp-bench-")), log_level="ERROR") as runtime:
        started = time.perf_counter()
        result = measure(runtime, args.clients, [args.messages] * args.rounds)
        for round_, size in enumerate(result.sizes):
            print(
                f"round {round_ + 1}: API {size.api_per_second:.1f}/s, SMTP {size.smtp_per_second:.1f}/s; SMTP cost"
                f" per message {size.ratio:.2f}x API; the server alone (no-op service) {size.noop_per_second:.0f}/s"
            )
        print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
