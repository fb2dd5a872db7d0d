"""The TypeScript SDK's own suite (sdks/typescript/test, node:test) against the embedded runtime."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from devtools.local.runtime import Runtime
from tests.e2e.support import make_account

pytestmark = pytest.mark.e2e
SDK = Path(__file__).resolve().parents[2] / "sdks" / "typescript"


def test_the_typescript_sdk_suite_passes(runtime: Runtime) -> None:
    npm = shutil.which("npm")
    assert npm, "Node.js and npm run the TypeScript SDK's suite"
    assert (SDK / "node_modules" / "openapi-fetch").is_dir(), "`make test` runs npm ci in sdks/typescript"
    env = {
        **os.environ,
        "POSTLINE_BASE_URL": runtime.base_url,
        "POSTLINE_TEST_KEY": make_account().test_key,
        "POSTLINE_LIMITED_KEY": make_account(rate_limit=3).test_key,
        "POSTLINE_IMPATIENT_KEY": make_account(rate_limit=3).test_key,
    }
    done = subprocess.run([npm, "test", "--silent"], cwd=SDK, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 5" in done.stdout, done.stdout[-2000:]
