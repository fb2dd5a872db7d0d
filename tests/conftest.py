"""Fixtures for end-to-end tests against the embedded runtime, over real HTTP and SMTP.

`runtime` is one in-process Runtime per test worker on the real template.yaml, with free ports
and its own state dir, so `pytest -n N` workers never share anything. While it runs, this
worker's os.environ points boto3 at its emulator (the Runtime restores it on stop); console
JWTs are verified against a key set made for the session (`console_token` signs with it), and
webhook receivers' certificates issued by the session's `webhook_ca` are trusted (WebhookCaBundle).

`spawn` starts `python -m devtools.local` as a child process instead: for restarts and Ctrl-C,
and for another template (a process holds one Runtime at a time): `fixture_stack` runs
tests/fixtures/pump-template.yaml that way, once per worker.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import boto3
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from devtools.local.runtime import Runtime
from postline import wiring
from postline.shared.clock import SystemClock
from tests.certs import TestCa
from tests.e2e.support import Api

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "template.yaml"
FIXTURE_TEMPLATE = REPO / "tests" / "fixtures" / "pump-template.yaml"
READY_LINE = "Ctrl-C to stop."  # the last line of the runtime's start-up banner
START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
_CONSOLE_KEY = Ed25519PrivateKey.generate()
_CONSOLE_KID = "e2e-console"


@pytest.fixture(autouse=True)
def _clock_given_back() -> Iterator[None]:
    """A test that installs a clock of its own puts back the one it found: the worker's embedded
    runtime (started by an earlier test) goes on running on it, and every later test of the worker
    would see its services' clock and the runtime's disagree. Only the runtime's own start may
    replace the process's initial system clock."""
    before = wiring.clock()
    yield
    after = wiring.clock()
    assert after is before or isinstance(before, SystemClock), f"the test left {after!r} as the services' clock"


@pytest.fixture(scope="session")
def webhook_ca() -> TestCa:
    """The CA the runtime trusts for webhook receivers: TLS receivers get their certificates from it."""
    return TestCa.create()


# Every test's request without a key comes from 127.0.0.1, so the source address's window would be
# shared by the whole session (a contract run alone sends hundreds a minute): the session's runtime
# gets a window no test reaches by accident; tests/e2e/test_rate_limit.py lowers it to test it.
SOURCE_RATE_LIMIT = 1_000_000


@pytest.fixture(scope="session")
def runtime(tmp_path_factory: pytest.TempPathFactory, webhook_ca: TestCa) -> Iterator[Runtime]:
    public = json.loads(jwt.algorithms.OKPAlgorithm.to_jwk(_CONSOLE_KEY.public_key()))
    jwks = json.dumps({"keys": [{**public, "kid": _CONSOLE_KID, "alg": "EdDSA", "use": "sig"}]})
    bundle = tmp_path_factory.mktemp("webhook-ca") / "ca.pem"
    bundle.write_text(webhook_ca.pem)
    state_dir = tmp_path_factory.mktemp("state")
    parameters = {
        "ConsoleJwks": jwks,
        "WebhookCaBundle": str(bundle),
        "IpRateLimitPerMinute": str(SOURCE_RATE_LIMIT),
    }
    # spamd (when installed; .ci/run installs it) for the content check: started once with the runtime.
    with Runtime(TEMPLATE, state_dir, parameters=parameters, spamd=True) as running:
        yield running


@pytest.fixture
def runtime_api(runtime: Runtime) -> Api:
    """No key: set one with `.with_key(...)`."""
    return Api(runtime.base_url)


@pytest.fixture
def api(runtime: Runtime) -> Api:
    """The development account's live key, as `make run` prints it."""
    return Api(runtime.base_url, runtime.dev["keys"]["live"])


@pytest.fixture
def console_token(runtime: Runtime) -> Callable[..., str]:
    """console_token(account_id=..., **claims): a dashboard JWT the runtime accepts; claims override."""

    def sign(**claims: Any) -> str:
        now = int(time.time())  # PyJWT checks exp against the real clock
        payload = {
            "sub": f"user_{uuid.uuid4().hex[:8]}",
            "aud": runtime.env["CONSOLE_JWT_AUDIENCE"],
            "iat": now,
            "exp": now + 300,
            **claims,
        }
        return jwt.encode(payload, _CONSOLE_KEY, algorithm="EdDSA", headers={"kid": _CONSOLE_KID})

    return sign


class RuntimeProcess:
    """`python -m devtools.local` in a child process, its output collected line by line."""

    def __init__(self, template: Path, state_dir: Path, args: Sequence[str], *, module: str = "devtools.local") -> None:
        # module: another entry point that runs devtools.local's main (tests/faults/child.py)
        command = [sys.executable, "-m", module, "--template", str(template)]
        command += ["--state-dir", str(state_dir)]
        command += [arg for server in ("api", "aws", "mail", "smtp") for arg in (f"--{server}-port", "0")]
        command += ["--no-spamd"]  # the session's runtime has the content check's spamd; these children need none
        # The child must not inherit this worker's in-process runtime's AWS settings.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POSTLINE_"))}
        self.state_dir = state_dir
        self.output: list[str] = []
        self.dev: dict[str, Any] = {}
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._process = subprocess.Popen(
            [*command, *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def api(self, key: str | None = None) -> Api:
        return Api(self.dev["base_url"], key)

    def wait_until_ready(self) -> None:
        # Not a poll (so not eventually()): it blocks on each line the reader thread hands over,
        # and fails at once when the child exits, with its output.
        deadline = time.monotonic() + START_TIMEOUT
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                pytest.fail(f"the runtime exited with {self._process.wait()}:\n{''.join(self.output)}")
            if line.strip() == READY_LINE:
                self.dev = json.loads((self.state_dir / "dev.json").read_text())
                return
        pytest.fail(f"the runtime did not start within {START_TIMEOUT} s:\n{''.join(self.output)}")

    def stop(self) -> int:
        """Ctrl-C, as a user would; returns the exit status once all output is read."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
        status = self._process.wait(STOP_TIMEOUT)
        self._reader.join(STOP_TIMEOUT)
        return status

    def kill(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def _read(self) -> None:
        """Keeps reading the child's output (a full pipe would block it)."""
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.output.append(line)
            self._lines.put(line)
        self._lines.put(None)


Spawn = Callable[..., AbstractContextManager[RuntimeProcess]]


@contextmanager
def spawned_runtime(
    state_dir: Path, *args: str, template: Path = TEMPLATE, module: str = "devtools.local"
) -> Iterator[RuntimeProcess]:
    child = RuntimeProcess(template, state_dir, args, module=module)
    try:
        child.wait_until_ready()
        yield child
    finally:
        child.kill()


@pytest.fixture(scope="session")
def spawn() -> Spawn:
    """spawn(state_dir, *flags, template=..., module=...): `python -m devtools.local` on free ports, until exit."""
    return spawned_runtime


class FixtureStack:
    """tests/fixtures/pump-template.yaml running in a child runtime; its workers record to files."""

    def __init__(self, child: RuntimeProcess, records: Path) -> None:
        self.child = child
        self.records = records
        self.api = child.api()
        self.env: dict[str, str] = child.dev["aws"]["env"]

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=self.child.dev["aws"]["endpoint_url"],
            region_name=self.child.dev["aws"]["region"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def events(self, worker: str) -> list[dict[str, Any]]:
        """What a worker received so far (workers: jobs, plain, items, ticks), oldest first."""
        path = self.records / f"{worker}.jsonl"
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line) for line in lines]

    def advance(self, seconds: float) -> datetime:
        response = self.api.post("/_local/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def drain(self) -> None:
        response = self.api.post("/_local/drain")
        assert response.status_code == 200, response.text


@pytest.fixture(scope="session")
def fixture_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FixtureStack]:
    records = tmp_path_factory.mktemp("records")
    state_dir = tmp_path_factory.mktemp("fixture-state")
    flags = ("--no-dev-account", "--parameter", f"RecordDir={records}")
    with spawned_runtime(state_dir, *flags, template=FIXTURE_TEMPLATE) as child:
        yield FixtureStack(child, records)
        assert child.stop() == 0
