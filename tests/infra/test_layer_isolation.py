"""The Lambda layer stands on its own requirements: no development code, no development dependency.

layers/core deploys to every function with only layers/core/requirements.txt installed beside it,
while this virtualenv also holds moto, werkzeug, stripe, localstack-client, pytest... and the
development package devtools (the embedded runtime). So: nothing under layers/core imports
devtools, and every module of postline (and every function module, which Lambda imports with
its CodeUri on sys.path) imports in a process where every module of a distribution outside the
requirements' closure, and devtools, is refused.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from infra.generate import placeholder_environment

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "core"
PROJECT = "postline"  # this repository's own distribution (pip install -e .): postline and devtools
DEVELOPMENT_PACKAGES = frozenset({"devtools", "tests", "bench", "infra"})  # this repository's, beside the layer

# Run in a fresh interpreter: refuse the given top-level modules, then import the given modules.
_IMPORTER = """
import importlib, importlib.abc, json, pkgutil, sys

refused, path, roots = json.loads(sys.argv[1])
refused = frozenset(refused)


class RefuseOutsideTheLayer(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in refused:
            raise ModuleNotFoundError(f"{name} is not the layer's to import (not in its requirements)", name=name)
        return None


def fail(name):
    raise  # walk_packages would skip a package that does not import; this one does not


for name in [name for name in sys.modules if name.partition(".")[0] in refused]:
    del sys.modules[name]  # whatever site (.pth files) imported at start-up
sys.meta_path.insert(0, RefuseOutsideTheLayer())
sys.path[:0] = path
imported = []
for root in roots:
    if root.endswith(".*"):  # a package and every module under it
        package = importlib.import_module(root[:-2])
        found = pkgutil.walk_packages(package.__path__, package.__name__ + ".", onerror=fail)
        names = [package.__name__] + [info.name for info in found]
    else:
        names = [root]
    for name in names:
        importlib.import_module(name)
        imported.append(name)
print(json.dumps(imported))
"""


def _layer_requirements() -> list[Requirement]:
    lines = (LAYER / "requirements.txt").read_text().splitlines()
    return [Requirement(line.split("#", 1)[0]) for line in lines if line.split("#", 1)[0].strip()]


def allowed_distributions() -> set[str]:
    """The installed distributions of the layer's requirements and, transitively, of theirs (extras and
    markers as pip would apply them)."""
    allowed: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    pending = _layer_requirements()
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if (name, frozenset(requirement.extras)) in seen:
            continue
        seen.add((name, frozenset(requirement.extras)))
        try:
            distribution = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency nobody installed
        allowed.add(name)
        for text in distribution.requires or []:
            dependency = Requirement(text)
            extras = {"", *requirement.extras}
            marker = dependency.marker
            if marker is None or any(marker.evaluate({**default_environment(), "extra": e}) for e in extras):
                pending.append(dependency)
    return allowed


def refused_modules() -> set[str]:
    """Top-level modules that only distributions outside the layer's closure provide, and devtools."""
    allowed = allowed_distributions()
    refused = set(DEVELOPMENT_PACKAGES)
    for module, distributions in metadata.packages_distributions().items():
        names = {canonicalize_name(d) for d in distributions}
        if names.isdisjoint(allowed | {PROJECT}):
            refused.add(module)
    return refused


def _import_all(path: list[str], roots: list[str]) -> list[str]:
    arguments = json.dumps([sorted(refused_modules()), path, roots])
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTER, arguments],
        cwd=LAYER,  # not the repository root: nothing beside the layer on sys.path by accident
        # A stack's variables, as the function modules check theirs as they load.
        env={**os.environ, **placeholder_environment()},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    imported: list[str] = json.loads(done.stdout.splitlines()[-1])
    return imported


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)  # importlib.import_module("devtools...") and __import__("devtools...")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_nothing_in_the_layer_imports_development_code() -> None:
    sources = sorted(LAYER.rglob("*.py"))
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sources
        for line, module in _imports(ast.parse(path.read_text(), str(path)))
        if module.partition(".")[0] in DEVELOPMENT_PACKAGES
    ]

    assert len(sources) > 50  # the scan saw the layer
    assert offending == []


def test_the_closure_of_the_layers_requirements_is_what_it_should_be() -> None:
    allowed = allowed_distributions()
    refused = refused_modules()

    assert {"boto3", "botocore", "pydantic", "aws-lambda-powertools", "aws-xray-sdk", "cryptography"} <= allowed
    assert allowed.isdisjoint({"moto", "werkzeug", "stripe", "localstack-client", "dnslib", "requests", "pytest"})
    assert {"moto", "werkzeug", "stripe", "localstack_client", "dnslib", "requests", "pytest", "devtools"} <= refused
    assert refused.isdisjoint({"postline", "boto3", "botocore", "pydantic", "aws_lambda_powertools", "dkim", "nacl"})


def test_every_postline_module_imports_with_only_the_layers_requirements() -> None:
    imported = _import_all([str(LAYER)], ["postline.*"])

    assert {"postline.wiring", "postline.cli", "postline.http.app", "postline.shared.dynamo"} <= set(imported)
    assert not [name for name in imported if name.startswith("postline.local")]


@pytest.mark.parametrize("folder", ["functions/api", "functions/workers"])
def test_every_function_module_imports_with_only_the_layers_requirements(folder: str) -> None:
    modules = sorted(path.stem for path in (ROOT / folder).glob("*.py") if path.stem != "__init__")

    imported = _import_all([str(ROOT / folder), str(LAYER)], modules)

    assert imported == modules and len(modules) > 3


def test_the_check_fails_when_the_layer_imports_a_development_dependency(tmp_path: Path) -> None:
    """The guard guards: a module importing moto (or devtools) beside the layer is refused."""
    (tmp_path / "uses_moto.py").write_text("import moto\n")
    (tmp_path / "uses_devtools.py").write_text("from devtools.local import runtime\n")

    for module, refused in (("uses_moto", "moto"), ("uses_devtools", "devtools")):
        arguments = json.dumps([sorted(refused_modules()), [str(tmp_path), str(LAYER)], [module]])
        done = subprocess.run(
            [sys.executable, "-c", _IMPORTER, arguments], cwd=LAYER, capture_output=True, text=True, check=False
        )
        assert done.returncode != 0
        assert f"ModuleNotFoundError: {refused} is not the layer's to import" in done.stderr
