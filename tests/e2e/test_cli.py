"""The operator CLI, run as users run it, against the running embedded runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e


def postline(runtime: Any, *args: str) -> Any:
    env = {"PATH": "/usr/bin:/bin", **runtime.env}
    done = subprocess.run(
        [sys.executable, "-m", "postline.cli", *args], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_create_an_account_and_a_key_then_suspend_it(runtime: Any, runtime_api: Api) -> None:
    account = postline(runtime, "account", "create", "--name", "Acme", "--plan", "professional")
    assert (account["plan"], account["status"]) == ("professional", "active")
    key = postline(runtime, "key", "create", account["id"], "--env", "test", "--scope", "send_only")
    api = runtime_api.with_key(key["key"])
    assert api.get("/v3/whoami").json()["api_key"] == {"id": key["id"], "scope": "send_only", "environment": "test"}

    assert postline(runtime, "account", "suspend", account["id"])["status"] == "suspended"
    assert_error(api.get("/v3/whoami"), 403, "account_suspended")
    postline(runtime, "account", "activate", account["id"])
    assert api.get("/v3/whoami").status_code == 200


def test_pause_and_resume_sending(runtime: Any) -> None:
    account = postline(runtime, "account", "create", "--name", "Paused")
    assert postline(runtime, "sending", "pause", "--account", account["id"])["sending_paused"] is True
    assert postline(runtime, "account", "show", account["id"])["sending_paused"] is True
    postline(runtime, "sending", "resume", "--account", account["id"])
    assert postline(runtime, "account", "show", account["id"])["sending_paused"] is False
    assert postline(runtime, "sending", "pause", "--all") == {"target": "platform", "sending_paused": True}
    postline(runtime, "sending", "resume", "--all")


def test_unknown_account_is_a_clear_error(runtime: Any) -> None:
    env = {"PATH": "/usr/bin:/bin", **runtime.env}
    done = subprocess.run(
        [sys.executable, "-m", "postline.cli", "account", "suspend", "acct_nope"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "not_found" in done.stderr
