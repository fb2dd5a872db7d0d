"""MkDocs hooks for the documentation site (mkdocs.yml `hooks:`; development only, like the rest of
devtools).

A runnable example is fenced ```` ```sh runnable ```` (tests/docs/runnable.py runs every one in
`make test`). GitHub reads the first word as the language and ignores the rest, but Python-Markdown's
superfences takes a bare second word for a malformed option and leaves the block unfenced, so its
`# 1. ...` comments would become headings. The site shows such a block as a `sh` block titled as
what it is.
"""

from __future__ import annotations

import re
from typing import Any

RUNNABLE_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<lang>[\w+-]+) runnable[ \t]*$", re.MULTILINE)
TITLE = 'title="Runs as written in make test"'


def on_page_markdown(markdown: str, **_: Any) -> str:
    return RUNNABLE_FENCE.sub(lambda m: f"{m['indent']}{m['fence']}{m['lang']} {TITLE}", markdown)
