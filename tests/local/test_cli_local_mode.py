"""`postline` on a development machine (devtools/cli.py): without a stack in the environment it finds
the embedded runtime through dev.json, checks through localstack-client that its emulator answers,
and says clearly what to do when there is nothing to find."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from devtools.local.runtime import Runtime
from tests.e2e.support import run_cli

pytestmark = pytest.mark.e2e


def _local_cli(state_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`postline --state-dir DIR ARGS` with no AWS or stack variables at all, as in a fresh shell."""
    code = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    return subprocess.run(
        [sys.executable, "-m", "devtools.cli", "--state-dir", str(state_dir), *args],
        env={"PATH": "/usr/bin:/bin", **code},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _write_dev_json(state_dir: Path, dev: dict[str, Any]) -> None:
    (state_dir / "dev.json").write_text(json.dumps(dev))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_the_postline_script_is_the_development_cli() -> None:
    (script,) = entry_points(group="console_scripts", name="postline")
    assert script.value == "devtools.cli:main"


def test_without_a_stack_the_cli_uses_the_runtime_of_dev_json(runtime: Runtime, tmp_path: Path) -> None:
    _write_dev_json(tmp_path, runtime.dev)

    done = _local_cli(tmp_path, "account", "create", "--name", "Found locally")

    assert done.returncode == 0, done.stderr
    created = json.loads(done.stdout)
    assert run_cli(runtime, "account", "show", created["id"])["name"] == "Found locally"


def test_without_a_stack_or_dev_json_the_cli_says_what_to_do(tmp_path: Path) -> None:
    done = _local_cli(tmp_path, "account", "show", "acct_x")

    assert done.returncode == 1
    assert "No environment configured: set RESOURCES_TABLE" in done.stderr
    assert f"start `make run` so that {tmp_path / 'dev.json'} exists" in done.stderr


def test_a_runtime_that_stopped_is_reported_before_the_command_runs(runtime: Runtime, tmp_path: Path) -> None:
    gone = f"http://127.0.0.1:{_closed_port()}"
    _write_dev_json(tmp_path, {**runtime.dev, "aws": {**runtime.dev["aws"], "endpoint_url": gone}})

    done = _local_cli(tmp_path, "account", "create", "--name", "Nowhere")

    assert done.returncode == 1
    assert f"names the embedded runtime's AWS emulator at {gone}, but it does not answer" in done.stderr
    assert "Start `make run`" in done.stderr


def test_an_emulator_without_the_runtimes_tables_is_not_taken_for_it(runtime: Runtime, tmp_path: Path) -> None:
    aws = runtime.dev["aws"]
    _write_dev_json(tmp_path, {**runtime.dev, "aws": {**aws, "env": {**aws["env"], "RESOURCES_TABLE": "elsewhere"}}})

    done = _local_cli(tmp_path, "account", "create", "--name", "Elsewhere")

    assert done.returncode == 1
    assert "holds no table elsewhere" in done.stderr


def test_help_needs_no_environment(tmp_path: Path) -> None:
    done = _local_cli(tmp_path, "--help")

    assert done.returncode == 0
    assert "usage: postline" in done.stdout
