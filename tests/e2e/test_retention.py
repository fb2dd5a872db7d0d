"""Retention on the embedded runtime: the development account (Professional) downgrades to Free,
its daily retention schedule fires from the movable clock, and 31 days after the downgrade a
message 31 days old is gone (the message and its events) while one 29 days old is kept. (The
grace itself, data older than 30 days kept for 30 days after a downgrade, needs older data than a
fresh runtime has: tests/adapters/test_retention.py seeds it.) The runtime is a child of its own: moving its clock
by a month must not age any other test's data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, RuntimeProcess, Spawn

pytestmark = pytest.mark.e2e
DAY = 86_400


class Child:
    def __init__(self, process: RuntimeProcess) -> None:
        self.process = process
        self.control = process.api()
        self.test = process.api(process.dev["keys"]["test"])
        self.account_id: str = process.dev["account_id"]
        self.sender = f"hello@{process.dev['sending_domain']['domain']}"

    def advance(self, seconds: float) -> None:
        response = self.control.post("/_local/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text

    def drain(self) -> None:
        response = self.control.post("/_local/drain", json={"timeout": 25.0})
        assert response.status_code == 200, response.text

    def cli(self, *args: str) -> Any:
        # Only what finds this code: the CLI then reads the child's dev.json. (This process's environment
        # may hold another stack's settings, left by earlier tests, which the CLI would use instead.)
        env = {name: os.environ[name] for name in ("PATH", "PYTHONPATH") if name in os.environ}
        done = subprocess.run(
            [sys.executable, "-m", "devtools.cli", "--state-dir", str(self.process.state_dir), *args],
            cwd=REPO, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def send(self) -> str:
        body = {"from": self.sender, "to": ["delivered@simulator.postline.dev"], "subject": "Hi", "text": "Hello."}
        response = self.test.post("/v3/messages", json=body)
        assert response.status_code == 202, response.text
        message_id: str = response.json()["id"]
        self.drain()
        return message_id

    def history(self, message_id: str) -> tuple[int, int]:
        """(the message's GET status, how many events GET /v3/events lists for it)."""
        events = self.test.get("/v3/events", params={"message_id": message_id, "limit": 300})
        assert events.status_code == 200, events.text
        return self.test.get(f"/v3/messages/{message_id}").status_code, len(events.json()["items"])


@pytest.fixture(scope="module")
def child(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    state_dir: Path = tmp_path_factory.mktemp("retention-state")
    with spawn(state_dir) as process:
        yield Child(process)


def test_after_a_downgrade_day_29_is_kept_and_day_31_is_gone(child: Child) -> None:
    first = child.send()
    status, events = child.history(first)
    assert status == 200 and events >= 3  # queued, sent, delivered
    assert child.cli("account", "set-plan", child.account_id, "free")["plan"] == "free"

    child.advance(2 * DAY)
    second = child.send()  # 29 days old when the grace ends

    child.advance(29 * DAY)  # 31 days after the downgrade: the grace is over, Free's 30 days hold
    child.drain()
    assert child.history(first) == (404, 0)
    assert child.history(second) == (200, events)
