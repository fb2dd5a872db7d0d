"""One CSV writer: every file the service writes as CSV (event and suppression exports, bulk
verification results) goes through shared/csv_files.py's writer, which neutralises formulas, so no
module writes CSV with the csv module on its own."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "postline"
THE_WRITER = PACKAGE / "shared" / "csv_files.py"


def _csv_writers(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in ("writer", "DictWriter"):
            if isinstance(node.value, ast.Name) and node.value.id == "csv":
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "csv":
            lines.extend(node.lineno for alias in node.names if alias.name in ("writer", "DictWriter"))
    return lines


def test_only_the_one_writer_writes_csv() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != THE_WRITER and (lines := _csv_writers(path))
    }
    assert found == {}
    assert _csv_writers(THE_WRITER)
