"""The operator CLI, run as users run it, against the running embedded runtime."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import Api, assert_error, run_cli

pytestmark = pytest.mark.e2e


def test_create_an_account_and_a_key_then_suspend_it(runtime: Any, runtime_api: Api) -> None:
    account = run_cli(runtime, "account", "create", "--name", "Acme", "--plan", "professional")
    assert (account["plan"], account["status"]) == ("professional", "active")
    key = run_cli(runtime, "key", "create", account["id"], "--env", "test", "--scope", "send_only")
    api = runtime_api.with_key(key["key"])
    assert api.get("/v3/whoami").json()["api_key"] == {"id": key["id"], "scope": "send_only", "environment": "test"}

    assert run_cli(runtime, "account", "suspend", account["id"])["status"] == "suspended"
    assert_error(api.get("/v3/whoami"), 403, "account_suspended")
    run_cli(runtime, "account", "activate", account["id"])
    assert api.get("/v3/whoami").status_code == 200


def test_pause_and_resume_sending(runtime: Any) -> None:
    account = run_cli(runtime, "account", "create", "--name", "Paused")
    assert run_cli(runtime, "sending", "pause", "--account", account["id"])["sending_paused"] is True
    assert run_cli(runtime, "account", "show", account["id"])["sending_paused"] is True
    run_cli(runtime, "sending", "resume", "--account", account["id"])
    assert run_cli(runtime, "account", "show", account["id"])["sending_paused"] is False
    assert run_cli(runtime, "sending", "pause", "--all") == {"target": "platform", "sending_paused": True}
    run_cli(runtime, "sending", "resume", "--all")


def test_unknown_account_is_a_clear_error(runtime: Any) -> None:
    done = run_cli(runtime, "account", "suspend", "acct_nope", expect_success=False)
    assert done.returncode == 1 and "not_found" in done.stderr


def test_the_sandbox_commands(runtime: Any) -> None:
    account = run_cli(runtime, "account", "create", "--name", "Boxed", "--owner-email", "boss@boxed.test")
    shown = run_cli(runtime, "sandbox", "list", account["id"])
    assert shown == {
        "id": account["id"],
        "sandbox": False,
        "sandbox_recipients": [],
        "owner_email": "boss@boxed.test",
        "routed_to_sandbox": False,
    }
    run_cli(runtime, "sandbox", "on", account["id"])
    run_cli(runtime, "sandbox", "add", account["id"], "A@Example.com", "b@example.com")
    shown = run_cli(runtime, "sandbox", "list", account["id"])
    assert (shown["sandbox"], shown["sandbox_recipients"]) == (True, ["a@example.com", "b@example.com"])
    refused = run_cli(runtime, "sandbox", "add", account["id"], "not-an-address", expect_success=False)
    assert refused.returncode == 1 and "validation_error" in refused.stderr
    unknown_key = run_cli(runtime, "sandbox", "route", account["id"], "on", "--key", "key_nope", expect_success=False)
    assert unknown_key.returncode == 1 and "not_found" in unknown_key.stderr


def test_event_shards_are_raised_by_count_or_by_rate_from_a_minute_ahead(runtime: Any) -> None:
    account = run_cli(runtime, "account", "create", "--name", "Busy")
    raised = run_cli(runtime, "events", "set-shards", account["id"], "4")
    ((step),) = raised["steps"]
    assert step["shards"] == 4 and step["from"].endswith(":00Z")  # a whole minute
    by_rate = run_cli(runtime, "events", "set-shards", account["id"], "--rate", "10000")
    assert by_rate["steps"][-1]["shards"] == 38  # 3 write units a message over 80% of a partition
    refused = run_cli(runtime, "events", "set-shards", account["id"], "--rate", "1000000", expect_success=False)
    assert refused.returncode != 0 and "at most 64" in refused.stderr
