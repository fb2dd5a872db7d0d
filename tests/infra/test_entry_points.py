"""Every Lambda's entry goes through one factory: routes through `postline.http.app.lambda_handler`,
workers through `postline.workers` (Logger context, the Tracer's handler segment, metrics, partial
batch failures). A function module that stacks Powertools' decorators by hand would drift from them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
HAND_STACKED = {"inject_lambda_context", "log_metrics", "capture_lambda_handler", "process_partial_response"}


def _powertools_entry_calls(path: Path) -> set[str]:
    """Names of Powertools' entry decorators and batch helpers the module uses itself."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in HAND_STACKED:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in HAND_STACKED:
            found.add(node.id)
    return found


@pytest.mark.parametrize("path", sorted(FUNCTIONS.glob("*/*.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_function_stacks_powertools_by_hand(path: Path) -> None:
    assert _powertools_entry_calls(path) == set()


def test_every_worker_takes_the_worker_factory() -> None:
    workers = sorted((FUNCTIONS / "workers").glob("*.py"))
    assert workers
    for path in workers:
        assert "postline.workers" in path.read_text(), path.name


def test_the_check_sees_a_hand_stacked_handler(tmp_path: Path) -> None:
    module = tmp_path / "worker.py"
    module.write_text("@logger.inject_lambda_context\n@metrics.log_metrics\ndef handler(event, context): ...\n")
    assert _powertools_entry_calls(module) == {"inject_lambda_context", "log_metrics"}
