"""The documentation's runnable examples, run as written against a `make run` of their own (the
same command, on a fresh state and free ports), so the docs cannot rot (tests/docs/runnable.py).

One runtime serves every document (a start costs more than most pages' examples): README.md first,
then the site's pages in the nav's order, each in a shell of its own that sets what it uses
(test_runnable.py checks that), so no page leans on another's variables. Pages do share the runtime's
data, so each names what it creates (its own addresses, domains, lists) apart from the others'."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.runnable import calls, documents, runnable_examples, script, unannounced

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = documents(ROOT)  # README.md, then the site's pages in its nav's order
START_TIMEOUT = 180  # seconds: a cold start on a loaded 2-core machine


def clean_environment() -> dict[str, str]:
    """What a new terminal has: not this process's AWS endpoint and settings, which an earlier test's
    runtime set and the CLI in the examples would otherwise follow."""
    kept = ("PATH", "HOME", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR")
    return {name: os.environ[name] for name in kept if name in os.environ}


@dataclass(frozen=True)
class MakeRun:
    base_url: str  # the API's
    smtp_port: int  # the submission server's
    work: Path  # the working dir: what the examples read from the repository root, .local and .venv


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MakeRun]:
    """`make run`'s command with a fresh state dir and free ports."""
    work = tmp_path_factory.mktemp("docs")
    (work / ".venv").symlink_to(ROOT / ".venv")
    ports = [f"--{name}-port=0" for name in ("api", "aws", "mail", "smtp")]
    # Its own environment, as a new terminal has: not this test process's AWS endpoint or settings
    # (an earlier test's runtime set them), which the CLI in the examples would otherwise follow.
    env = clean_environment()
    command = [sys.executable, "-m", "devtools.local", "--no-persist", "--state-dir", str(work / ".local"), *ports,
               "--template", str(ROOT / "template.yaml")]  # fmt: skip
    log = (work / "runtime.log").open("w")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        base_url, smtp_port = None, None
        while (base_url is None or smtp_port is None) and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            if found := re.match(r"\s+API\s+(http://127\.0\.0\.1:\d+)", line):
                base_url = found.group(1)
            if found := re.match(r"\s+SMTP\s+smtp://127\.0\.0\.1:(\d+)", line):
                smtp_port = int(found.group(1))
        assert base_url and smtp_port, f"make run did not start: {(work / 'runtime.log').read_text()[-3000:]}"
        # The runtime goes on printing (its functions' metrics): read it, or a full pipe stops it.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield MakeRun(base_url, smtp_port, work)
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()


@pytest.mark.parametrize(
    "document", [d for d in DOCUMENTS if runnable_examples(d)], ids=lambda d: str(d.relative_to(ROOT))
)
def test_the_runnable_examples_run_as_written(make_run: MakeRun, document: Path) -> None:
    work = make_run.work
    text, starts = script(runnable_examples(document), make_run.base_url, make_run.smtp_port)
    env = {**clean_environment(), "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    made = calls(done.stderr, starts)
    shown = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("@@curl"))[-3000:]
    assert done.returncode == 0, f"the examples stopped (exit {done.returncode}):\n{shown}"
    assert made, "the examples made no HTTP call"
    wrong = [f"{c.example.path.name}:{c.line}: {c.status}" for c in made if unannounced(c)]
    assert wrong == [], "answers the docs do not announce:\n" + "\n".join(wrong) + f"\n{shown}"
