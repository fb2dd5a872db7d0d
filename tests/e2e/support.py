"""Factories and a thin HTTP client for end-to-end tests against the embedded runtime."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import requests

from postline.accounts.domain import Account, AccountStatus, Plan
from postline.keys.access import Environment, Scope
from postline.keys.domain import AllowlistEntry
from postline.wiring import operator as operator_root


class Api:
    """HTTP to the runtime's API Gateway, with the key as a bearer."""

    def __init__(self, base_url: str, key: str | None = None) -> None:
        self.base_url = base_url
        self.key = key
        self.session = requests.Session()

    def with_key(self, key: str | None) -> Api:
        return Api(self.base_url, key)

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        all_headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        all_headers.update(headers or {})
        kwargs.setdefault("timeout", 30)
        return self.session.request(method, self.base_url + path, headers=all_headers, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> Any:
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Any:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)


@dataclass
class TestAccount:
    __test__ = False

    account: Account
    live_key: str
    test_key: str

    @property
    def id(self) -> str:
        return self.account.id


def make_account(
    *,
    plan: Plan = Plan.FREE,
    status: AccountStatus = AccountStatus.ACTIVE,
    rate_limit: int | None = None,
    owner_email: str | None = None,
) -> TestAccount:
    """A fresh account with a live and a test full_access key, made through the operator service."""
    operator = operator_root.operator_service()
    account = operator.create_account(name="e2e", plan=plan, owner_email=owner_email)
    if rate_limit is not None:
        account = operator.set_rate_limit(account.id, rate_limit)
    live = operator.create_key(account.id, name="live", env=Environment.LIVE)
    test = operator.create_key(account.id, name="test", env=Environment.TEST)
    if status is not AccountStatus.ACTIVE:
        account = operator.set_status(account.id, status)
    return TestAccount(account, live.key, test.key)


def make_key(
    account_id: str,
    *,
    env: Environment = Environment.LIVE,
    scope: Scope = Scope.FULL_ACCESS,
    allowlist: list[str] | None = None,
) -> str:
    entries = [AllowlistEntry(cidr=cidr) for cidr in allowlist or []]
    return (
        operator_root.operator_service()
        .create_key(account_id, name="e2e", env=env, scope=scope, ip_allowlist=entries)
        .key
    )


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The spec's error body, with the request id echoed in the header."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"error", "request_id"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    assert body["request_id"] == response.headers["X-Request-Id"]
    return body


def run_cli(runtime: Any, *args: str, expect_success: bool = True) -> Any:
    """`postline ARGS` in a subprocess against the runtime, as an operator runs it.

    Returns the parsed JSON output, or the CompletedProcess when expect_success is False.
    """
    # The same code as this process (a worktree's PYTHONPATH wins over the editable install).
    code = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    done = subprocess.run(
        [sys.executable, "-m", "postline.cli", *args],
        env={"PATH": "/usr/bin:/bin", **code, **runtime.env},
        capture_output=True,
        text=True,
        check=False,
    )
    if not expect_success:
        return done
    assert done.returncode == 0, f"postline {' '.join(args)} failed:\n{done.stderr}"
    return json.loads(done.stdout)
