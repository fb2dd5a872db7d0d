"""The SDKs' generated halves, from infra/openapi.json, by maintained generators.

Python: openapi-python-client into sdks/python/src/postline_sdk/generated/, formatted by ruff with
fixed settings so the output does not depend on the repository's own. TypeScript: openapi-typescript
(from sdks/typescript's lockfile: `make` runs npm ci there first) into src/generated/schema.ts, the
paths and schemas openapi-fetch is typed by. `python -m infra.generate` writes them with the
template and the document; `--check` fails when they drift.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON_SDK = ROOT / "sdks" / "python"
PYTHON_GENERATED = PYTHON_SDK / "src" / "postline_sdk" / "generated"
TYPESCRIPT_SDK = ROOT / "sdks" / "typescript"
TYPESCRIPT_SCHEMA = TYPESCRIPT_SDK / "src" / "generated" / "schema.ts"
_BIN = Path(sys.executable).parent


def _run(*command: str | Path) -> None:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{Path(command[0]).name} failed:\n{done.stdout}{done.stderr}")


def render_python_sdk(openapi: str) -> dict[Path, str]:
    """Every file of the generated Python client, by its path in the repository."""
    with tempfile.TemporaryDirectory() as scratch:
        document = Path(scratch) / "openapi.json"
        document.write_text(openapi)
        out = Path(scratch) / "generated"
        _run(
            _BIN / "openapi-python-client",
            "generate",
            "--path",
            document,
            "--meta",
            "none",
            "--config",
            PYTHON_SDK / "openapi-python-client.yaml",
            "--output-path",
            out,
        )
        _run(_BIN / "ruff", "format", "--isolated", "--line-length", "120", "--quiet", out)
        files = sorted(path for path in out.rglob("*") if path.is_file())
        return {PYTHON_GENERATED / path.relative_to(out): path.read_text() for path in files}


def render_typescript_sdk(openapi: str) -> dict[Path, str]:
    """The TypeScript SDK's generated types. Fields with a default stay optional in requests
    (`--default-non-nullable false`): the document, not the generator, says what is required."""
    generator = TYPESCRIPT_SDK / "node_modules" / ".bin" / "openapi-typescript"
    if not generator.exists():
        raise SystemExit(f"{generator.relative_to(ROOT)} is missing: `make generate` runs npm ci in sdks/typescript")
    with tempfile.TemporaryDirectory() as scratch:
        document = Path(scratch) / "openapi.json"
        document.write_text(openapi)
        out = Path(scratch) / "schema.ts"
        _run(generator, document, "--default-non-nullable", "false", "--output", out)
        return {TYPESCRIPT_SCHEMA: out.read_text()}


def generated_dirs() -> list[Path]:
    """Folders whose every file is generated: a file there that the generator no longer writes is stale."""
    return [PYTHON_GENERATED, TYPESCRIPT_SCHEMA.parent]
