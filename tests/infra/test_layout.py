"""The layer's layout holds its direction: pure modules stay pure, services stay off AWS, and what
a service needs from outside is a Protocol in its area's ports.py.

Each area is `postline/<area>/` with domain.py (rules), models.py (API shapes), ports.py,
store.py (adapters; others named `*_store.py`) and `*service.py`; see the README's "How it is built".
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


def _modules(pattern: str) -> list[Path]:
    found = sorted(PACKAGE.glob(f"*/{pattern}.py"))
    assert found, f"no {pattern}.py modules under {PACKAGE}"
    return found


def _plays(module: str, roles: set[str]) -> bool:
    """A module plays a role by its name: an adapter of a store is store.py or <what>_store.py
    (bulk_store, export_store); the other roles are a module's whole name (shared/csv_files.py holds
    pure row types beside its S3 adapter)."""
    return module in roles or ("store" in roles and module.endswith("_store"))


def _violations(path: Path, libraries: set[str], forbidden_roles: set[str]) -> list[str]:
    bad = []
    for name in _imports(path):
        parts = name.split(".")
        ours = parts[0] == "postline" and (
            # observability: Powertools' logger, tracer and metrics; services count through the Meter port
            parts[1:2] in (["wiring"], ["http"], ["config"], ["observability"])
            or (len(parts) > 2 and _plays(parts[2], forbidden_roles))
        )
        if parts[0] in libraries or ours:
            bad.append(name)
    return sorted(bad)


PURE = [*_modules("domain"), *_modules("models"), *(PACKAGE / "shared" / f"{name}.py" for name in sorted(SHARED_PURE))]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_domain_and_models_do_no_io(path: Path) -> None:
    assert _violations(path, IO_LIBRARIES, {"store", "service", "files", "queue", "vault", "hasher"}) == []


SERVICES = _modules("*service")  # service.py, and every <what>_service.py (bulk_service, export_service...)


@pytest.mark.parametrize("path", SERVICES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_services_reach_aws_only_through_ports(path: Path) -> None:
    assert _violations(path, AWS_LIBRARIES, {"store"}) == []


def test_the_guard_sees_a_violation(tmp_path: Path) -> None:
    module = tmp_path / "domain.py"
    module.write_text(
        "import boto3\nfrom postline.keys.store import DynamoKeyStore\nfrom postline import wiring\n"
        "from postline.verification.bulk_store import DynamoBulkJobs\n"
    )
    assert _violations(module, IO_LIBRARIES, {"store"}) == [
        "boto3",
        "postline.keys.store",
        "postline.verification.bulk_store",
        "postline.wiring",
    ]


def test_every_kind_of_service_is_checked() -> None:
    names = {str(path.relative_to(PACKAGE)) for path in SERVICES}
    assert {"keys/service.py", "verification/bulk_service.py", "exports/file_service.py"} <= names


# -- Protocols live in ports.py ---------------------------------------------------------------------

# Protocols that are not ports, each kept beside the code that reads it (its comment says why).
NOT_PORTS = {
    "events/domain.py": {"MessageFields"},  # the pure domain's view of sending's Message (above on the ladder)
}


def _protocols(path: Path) -> list[str]:
    """The classes in the module that derive from typing.Protocol (Protocol, Protocol[T], typing.Protocol)."""

    def is_protocol(base: ast.expr) -> bool:
        base = base.value if isinstance(base, ast.Subscript) else base
        return (isinstance(base, ast.Name) and base.id == "Protocol") or (
            isinstance(base, ast.Attribute) and base.attr == "Protocol"
        )

    tree = ast.parse(path.read_text())
    return sorted(
        node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and any(map(is_protocol, node.bases))
    )


def test_protocols_live_in_ports() -> None:
    found = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "ports.py" and (names := set(_protocols(path)))
    }
    assert found == NOT_PORTS


def test_the_protocol_scan_sees_every_spelling(tmp_path: Path) -> None:
    module = tmp_path / "service.py"
    module.write_text(
        "import typing\nfrom typing import Generic, Protocol, TypeVar\nT = TypeVar('T')\n"
        "class A(Protocol): ...\nclass B(Protocol[T]): ...\nclass C(typing.Protocol): ...\n"
        "class D(A, Protocol): ...\nclass E(Generic[T]): ...\n"
    )
    assert _protocols(module) == ["A", "B", "C", "D"]


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
