"""infra/openapi.json documents every status each operation answers, its success first of all.

Powertools documents a route's `responses=` instead of its default success response, so a route
that lists a 409 and not its 200 is documented as never succeeding. The statuses a route answers are
read from its code (functions/api/*.py): the `status_code` of each Response it or a helper of its
module builds, else 200, Powertools' default.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "functions" / "api"
METHODS = {"get", "post", "put", "patch", "delete", "head"}


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((ROOT / "infra" / "openapi.json").read_text())
    return document


def _constants(node: ast.expr) -> set[int]:
    """The statuses an expression can be: a constant, or each branch of a conditional."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _constants(node.body) | _constants(node.orelse)
    raise AssertionError(f"a status_code the test cannot read: {ast.unparse(node)}")


def _statuses(function: ast.FunctionDef, helpers: dict[str, ast.FunctionDef], seen: set[str]) -> set[int]:
    """The status_code of every Response the function builds, directly or through its module's helpers."""
    found: set[int] = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "Response":
            found |= {s for keyword in node.keywords if keyword.arg == "status_code" for s in _constants(keyword.value)}
        elif node.func.id in helpers and node.func.id not in seen:
            found |= _statuses(helpers[node.func.id], helpers, seen | {node.func.id})
    return found


def _answered() -> list[tuple[str, str, set[int]]]:
    """(method, OpenAPI path, the statuses its code answers on success) of every route in functions/api."""
    routes = []
    for module in sorted(API.glob("*.py")):
        tree = ast.parse(module.read_text())
        helpers = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        for function in helpers.values():
            for decorator in function.decorator_list:
                if not (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and isinstance(decorator.func.value, ast.Name)
                    and decorator.func.value.id == "router"
                    and decorator.func.attr in METHODS
                ):
                    continue
                first = decorator.args[0]
                assert isinstance(first, ast.Constant) and isinstance(first.value, str)
                path = first.value.replace("<", "{").replace(">", "}")
                routes.append((decorator.func.attr, path, _statuses(function, helpers, set()) or {200}))
    return routes


ANSWERED = _answered()


def test_the_routes_are_all_read() -> None:
    documented = {(method, path) for path, operations in _document()["paths"].items() for method in operations}
    assert {(method, path) for method, path, _ in ANSWERED} == documented


@pytest.mark.parametrize(
    "operation", [f"{method.upper()} {path}" for path, ops in _document()["paths"].items() for method in ops]
)
def test_every_operation_documents_a_success(operation: str) -> None:
    method, path = operation.split(" ")
    responses = _document()["paths"][path][method.lower()]["responses"]
    assert any(status.startswith(("2", "3")) for status in responses), f"{operation}: only {sorted(responses)}"


@pytest.mark.parametrize(("method", "path", "statuses"), ANSWERED, ids=[f"{m.upper()} {p}" for m, p, _ in ANSWERED])
def test_every_status_a_route_answers_is_documented_with_its_schema(method: str, path: str, statuses: set[int]) -> None:
    responses = _document()["paths"][path][method]["responses"]
    for status in sorted(statuses):
        assert str(status) in responses, f"{method.upper()} {path} answers {status}; documented: {sorted(responses)}"
        if status != 302:  # a redirect has no body
            content = responses[str(status)].get("content", {})
            assert any(media.get("schema") is not None for media in content.values()) or content == {"image/gif": {}}, (
                f"{method.upper()} {path} {status} has no schema"
            )
