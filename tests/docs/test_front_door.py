"""README.md is the front door to the documentation site: short, and every link in it leads somewhere.
(The site's own links are checked by `mkdocs build --strict` in `make test`; README is outside it.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def test_the_readme_stays_a_front_door() -> None:
    lines = ROOT.joinpath("README.md").read_text().splitlines()
    assert len(lines) < 400, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_every_relative_link_in_the_readme_resolves() -> None:
    text = ROOT.joinpath("README.md").read_text()
    targets = [m["target"] for m in LINK.finditer(text) if not m["target"].startswith(("http://", "https://", "#"))]
    assert any(t.startswith("docs/") for t in targets)
    missing = [t for t in targets if not ROOT.joinpath(t.split("#", 1)[0]).exists()]
    assert missing == [], f"README.md links to what is not there: {missing}"
