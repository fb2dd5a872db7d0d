"""The console in a real browser: console/e2e/run.mjs (playwright-core driving Debian's chromium)
against `python -m devtools.local` started as `make run` starts it, signing in with the link it prints.

Needs the console built and its packages installed (`make console`; `make test` runs it first) and
chromium at /usr/bin/chromium (.ci/run installs it). Screenshots go to console/test-results/.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, Spawn

pytestmark = pytest.mark.e2e

CONSOLE = REPO / "console"
SCRIPT = CONSOLE / "e2e" / "run.mjs"
RESULTS = CONSOLE / "test-results"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LINK = re.compile(r"^\s*Console\s+(http://\S+/console/#signin=\S+)", re.MULTILINE)
BROWSER_TIMEOUT = 240.0


def test_the_console_signs_in_shows_activity_and_keeps_test_and_live_apart(spawn: Spawn, tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "node is not installed (Node 20 or later)"
    assert (CONSOLE / "dist" / "index.html").is_file(), "the console is not built: run `make console`"
    assert (CONSOLE / "node_modules" / "playwright-core").is_dir(), "run `make console` (npm ci)"
    assert Path(CHROMIUM).is_file(), f"no browser at {CHROMIUM} (apt-get install chromium)"
    with spawn(tmp_path / "state", "--no-persist") as child:
        printed = LINK.search("".join(child.output))
        assert printed, f"the runtime printed no console link:\n{''.join(child.output)}"
        env = {
            **os.environ,
            "CONSOLE_LINK": printed.group(1),
            "API_BASE": child.dev["base_url"],
            "TEST_KEY": child.dev["keys"]["test"],
            "SENDER": f"console@{child.dev['sending_domain']['domain']}",
            "RESULTS": str(RESULTS),
            "CHROMIUM": CHROMIUM,
        }
        run = subprocess.run(
            [node, str(SCRIPT)], cwd=CONSOLE, env=env, capture_output=True, text=True, timeout=BROWSER_TIMEOUT
        )
        assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
        assert "all console scenarios passed" in run.stdout
        assert child.stop() == 0
    pages = ("overview", "activity", "message", "activity-live", "domains", "suppressions", "webhooks", "templates")
    for page in (*pages, "suppressions-import", "lists", "verification", "keys", "audit", "activity-phone"):
        assert (RESULTS / f"{page}.png").is_file(), f"no screenshot of {page}"
