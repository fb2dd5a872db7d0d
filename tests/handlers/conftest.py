from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from postline import wiring
from postline.accounts.domain import Plan
from postline.domains.domain import DomainStatus, SendingDomain
from postline.http.routes import find_route
from postline.keys.domain import Environment
from tests.aws_stack import ROOT, InProcessStack, in_process_stack

Invoke = Callable[..., dict[str, Any]]


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack


@pytest.fixture(scope="module")
def dev(stack: InProcessStack) -> dict[str, str]:
    operator = wiring.operator_service()
    account = operator.create_account(name="handlers", plan=Plan.PROFESSIONAL)
    live = operator.create_key(account.id, name="live", env=Environment.LIVE)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    wiring.sending_domains().put_domain(
        SendingDomain(
            account_id=account.id,
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
