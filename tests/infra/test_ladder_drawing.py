"""The architecture page's drawing of the ladder (docs/architecture.md, "The ladder") names the rungs of the
import-linter contract, in its order."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def drawn_rungs() -> list[str]:
    section = ROOT.joinpath("docs", "architecture.md").read_text().split("\n## The ladder\n", 1)[1]
    drawing = section.split("```", 2)[1]
    # A rung starts at the line's first column; its words follow after two spaces or more.
    return [re.split(r"\s{2,}", line)[0].strip() for line in drawing.splitlines() if line and not line[0].isspace()]


def test_the_architecture_page_draws_the_contracts_ladder() -> None:
    contract = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contract if c["id"] == "ladder"]
    assert drawn_rungs() == layers
