from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from postline import wiring
from postline.accounts.domain import Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.keys.access import Environment
from postline.routes import find_route
from postline.wiring import domains
from postline.wiring import operator as operator_root
from tests.aws_stack import ROOT, InProcessStack, in_process_stack
from tests.network_guard import NetworkGuard

Invoke = Callable[..., dict[str, Any]]

PUBLIC_ADDRESS = "93.184.215.14"
# What the system resolver answers here, for the names the sample events and fixtures use (None:
# no such name, as for any .invalid); asking for another name is a network attempt.
ZONE: dict[str, str | None] = {"hooks.example.com": PUBLIC_ADDRESS, "hooks.invalid": None}


@pytest.fixture(autouse=True)
def network_guard() -> Iterator[NetworkGuard]:
    """The handlers run on moto in-process, which needs no sockets: an attempt fails the test
    (tests/network_guard.py)."""
    with NetworkGuard.installed() as guard:
        yield guard


@pytest.fixture(autouse=True)
def resolver(network_guard: NetworkGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    """The system resolver answers from ZONE, as DNS would on the internet, without the network."""
    guarded = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ZONE:
            return guarded(host, port, *args, **kwargs)
        address = ZONE[host]
        if address is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack


@pytest.fixture(scope="module")
def dev(stack: InProcessStack) -> dict[str, str]:
    operator = operator_root.operator_service()
    account = operator.create_account(name="handlers", plan=Plan.PROFESSIONAL)
    live = operator.create_key(account.id, name="live", env=Environment.LIVE)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    domains.sending_domains().put_domain(
        SendingDomain(
            account_id=account.id,
            id="dom_fixture",
            created_at=datetime.now(UTC),
            domain="postline.test",
            status=DomainStatus.VERIFIED,
            dkim_selector="s1",
            dkim_private_key=pem.decode(),
        )
    )
    return {"account_id": account.id, "live_key": live.key, "live_key_id": live.id}


@pytest.fixture
def invoke(stack: InProcessStack, dev: dict[str, str]) -> Invoke:
    """Replay events/<name>.json through the function template.yaml wires to its route."""

    def run(name: str, **placeholders: str) -> dict[str, Any]:
        raw = (ROOT / "events" / f"{name}.json").read_text()
        # The process's clock, not the wall's: an e2e runtime earlier in this process may have moved it.
        send_at = (wiring.clock().now() + timedelta(hours=1)).isoformat()
        for key, value in {"live_key": dev["live_key"], "send_at": send_at, **placeholders}.items():
            raw = raw.replace("{{" + key + "}}", value)
        event = json.loads(raw)
        route = find_route(event["httpMethod"], event["resource"])
        assert route is not None, f"{name}: no route for {event['httpMethod']} {event['resource']}"
        response: dict[str, Any] = stack.functions[route.function_id].invoke(event)
        return response

    return run


def body(response: dict[str, Any]) -> Any:
    return json.loads(response["body"])


def header(response: dict[str, Any], name: str) -> str:
    multi = response.get("multiValueHeaders") or {}
    if name in multi:
        return str(multi[name][0])
    return str((response.get("headers") or {})[name])
