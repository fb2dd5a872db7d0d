"""devtools/local/spamd.py: the runtime's spamd on loopback, and that it never outlives the process that
started it (a runtime killed outright must not leave spamd holding its port)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.local.spamd import Spamd
from tests.support import eventually

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not Spamd.installed() and not os.environ.get("CI"), reason="spamd is not installed (apt-get install spamd)"
)
_STARTER = """
import json, sys
from devtools.local.spamd import Spamd
spamd = Spamd()
spamd.start()
print(json.dumps(spamd.address), flush=True)
sys.stdin.read()  # until the test kills this process
"""


def _answers(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1.0) as connection:
            connection.sendall(b"PING SPAMC/1.5\r\n\r\n")
            return b"PONG" in connection.recv(64)
    except OSError:
        return False


def test_spamd_listens_on_loopback_and_stops_with_the_process_even_killed_outright() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _STARTER], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        address = json.loads(child.stdout.readline())
        assert address.startswith("127.0.0.1:") and _answers(address)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()

    def gone() -> bool:
        if _answers(address):
            raise AssertionError(f"spamd still answers on {address}")
        return True

    assert eventually(gone, 15.0, waiting_for="spamd to stop after its runtime was killed")


_BLOCKING_STARTER = """
import json, signal, sys
from devtools.local.spamd import Spamd
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # as `make run` does
spamd = Spamd()
spamd.start()
print(json.dumps(spamd.address), flush=True)
sys.stdin.readline()
spamd.stop()
print("stopped", flush=True)
"""


def test_spamd_stops_when_the_runtime_that_blocks_sigterm_stops_it() -> None:
    """`make run` blocks SIGINT and SIGTERM in every thread and takes them with sigwait; spamd, its child,
    must not inherit that mask, or stop() could not end it and it would outlive the runtime."""
    child = subprocess.Popen(
        [sys.executable, "-c", _BLOCKING_STARTER], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        address = json.loads(child.stdout.readline())
        assert _answers(address)
        child.stdin.write("stop\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "stopped"
        assert not _answers(address)
        assert child.wait(timeout=30) == 0
    finally:
        child.kill()
