"""python -m bench.smtp_intake [--messages N] [--clients N] [--rounds N]: SMTP submission against the
API send path, in one embedded runtime, from parallel clients sending the same message (smtplib, one
authenticated connection per client; requests, one session per client); then the submission
server's own ceiling with the service replaced by a no-op (aiosmtpd, the hooks, the thread hand-off).

Not a `make bench` section yet: it prints messages per second and the ratio of SMTP's cost per
message to the API's (the issue's goal: at most 1.3). Rounds after the first are warm.
"""

from __future__ import annotations

import argparse
import smtplib
import tempfile
from collections.abc import Callable
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, cast

import requests

from bench.run import _concurrently
from devtools.local.runtime import Runtime
from postline import wiring
from postline.accounts.domain import Plan
from postline.keys.domain import Environment
from postline.smtp.server import SubmissionServer
from postline.smtp.service import Login

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


def parallel(count: int, clients: int, work: Work) -> float:
    """Messages per second: `count` sends spread over `clients` threads, each with its own client
    (set up before the clock starts)."""
    connected = [work(None, worker) for worker in range(clients)]
    seconds = _concurrently(clients, list(range(count)), lambda worker, index: work(connected[worker], index))
    return count / seconds


def smtp_work(port: int, key: str) -> Work:
    raw = mime()

    def work(client: smtplib.SMTP | None, index: int) -> Any:
        if client is None:
            client = smtplib.SMTP("127.0.0.1", port, timeout=60)
            client.login("api", key)
            return client
        client.mail(SENDER)
        client.rcpt(RECIPIENT)
        code, text = client.data(raw)
        assert code == 250, text
        return None

    return work


def api_work(base_url: str, key: str) -> Work:
    def work(client: requests.Session | None, index: int) -> Any:
        if client is None:
            session = requests.Session()
            session.headers["Authorization"] = f"Bearer {key}"
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


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.smtp_intake")
    parser.add_argument("--messages", type=int, default=200, help="per side and round (%(default)s)")
    parser.add_argument("--clients", type=int, default=10, help="parallel clients (%(default)s)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; the first warms up (%(default)s)")
    args = parser.parse_args()
    with Runtime(TEMPLATE, Path(tempfile.mkdtemp(prefix="postline-smtp-bench-")), log_level="ERROR") as runtime:
        operator = wiring.operator_service()
        account = operator.create_account(name="bench", plan=Plan.PROFESSIONAL)  # 100/s, 20 connections
        key = operator.create_key(account.id, name="bench", env=Environment.TEST).key
        port = int(runtime.smtp.rsplit(":", 1)[1])
        for round_ in range(args.rounds):
            api = parallel(args.messages, args.clients, api_work(runtime.base_url, key))
            runtime.drain(120)
            smtp = parallel(args.messages, args.clients, smtp_work(port, key))
            runtime.drain(120)
            print(
                f"round {round_ + 1}: API {api:.1f}/s, SMTP {smtp:.1f}/s; SMTP cost per message {api / smtp:.2f}x API"
            )
    server = SubmissionServer(lambda: _NoOp(), port=0, trust_loopback=True)  # type: ignore[arg-type,return-value]
    server.start()
    try:
        ceiling = parallel(args.messages * 10, args.clients, smtp_work(server.port, "unused"))
        print(f"the server alone (no-op service): {ceiling:.0f} messages/s from {args.clients} clients")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
