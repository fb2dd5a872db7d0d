"""The layer's layout holds its direction: pure modules stay pure, services stay off AWS.

Each area is `postline/<area>/` with domain.py (rules), models.py (API shapes), ports.py,
store.py (adapters) and service.py; see the README's "How it is built".
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "postline"
# Libraries that do I/O or talk to AWS: never in a pure module, and only AWS-free ones in a service.
IO_LIBRARIES = {"boto3", "botocore", "urllib3", "requests", "socket", "smtplib", "ssl", "dns", "subprocess"}
AWS_LIBRARIES = {"boto3", "botocore"}
# Pure modules of the shared package (the others there are adapters: dynamo, clock, ids, resources_table, jobs).
SHARED_PURE = {"errors", "times", "pagination", "signed_cursor", "ports"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "postline":  # from postline import wiring
                names.update(f"postline.{alias.name}" for alias in node.names)
    return names


def _modules(role: str) -> list[Path]:
    found = sorted(PACKAGE.glob(f"*/{role}.py"))
    assert found, f"no {role}.py modules under {PACKAGE}"
    return found


def _violations(path: Path, libraries: set[str], forbidden_roles: set[str]) -> list[str]:
    bad = []
    for name in _imports(path):
        parts = name.split(".")
        ours = parts[0] == "postline" and (
            # observability: Powertools' logger, tracer and metrics; services count through the Meter port
            parts[1:2] in (["wiring"], ["http"], ["config"], ["observability"])
            or (len(parts) > 2 and parts[2] in forbidden_roles)
        )
        if parts[0] in libraries or ours:
            bad.append(name)
    return sorted(bad)


PURE = [*_modules("domain"), *_modules("models"), *(PACKAGE / "shared" / f"{name}.py" for name in sorted(SHARED_PURE))]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_domain_and_models_do_no_io(path: Path) -> None:
    assert _violations(path, IO_LIBRARIES, {"store", "service", "files", "queue", "vault", "hasher"}) == []


@pytest.mark.parametrize("path", _modules("service"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_services_reach_aws_only_through_ports(path: Path) -> None:
    assert _violations(path, AWS_LIBRARIES, {"store"}) == []


def test_the_guard_sees_a_violation(tmp_path: Path) -> None:
    module = tmp_path / "domain.py"
    module.write_text("import boto3\nfrom postline.keys.store import DynamoKeyStore\nfrom postline import wiring\n")
    assert _violations(module, IO_LIBRARIES, {"store"}) == ["boto3", "postline.keys.store", "postline.wiring"]


def test_the_cli_and_wiring_leave_observability_unimported() -> None:
    """The CLI and the embedded runtime import wiring, and through it the adapters, before they set
    up logging. Importing observability builds the service's Powertools Logger, which filters only
    the root handlers that exist by then: every postline.* log line would print twice after."""
    code = "import sys, postline.cli, postline.wiring; print('postline.observability' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# postline/egress (the static egress address, the outbound address policy) sits low on the import
# ladder: every outbound path imports it, so it imports only postline.shared, the standard library,
# dnspython (resolution) and pydantic (its model).
EGRESS_LIBRARIES = {"dns", "pydantic"}


@pytest.mark.parametrize("path", sorted((PACKAGE / "egress").glob("*.py")), ids=lambda p: p.name)
def test_the_egress_package_stands_on_shared_alone(path: Path) -> None:
    bad = [
        name
        for name in _imports(path)
        if not (
            name.split(".")[0] in sys.stdlib_module_names
            or name.split(".")[0] in EGRESS_LIBRARIES
            or name == "__future__"
            or name.startswith(("postline.shared.", "postline.egress."))
        )
    ]
    assert bad == []
