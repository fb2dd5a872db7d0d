"""Runnable examples in the documentation: fenced blocks whose info string says `runnable`
(```sh runnable), run in order, one shell per file, against a `make run` of its own.

The documents are README.md, then the site's pages in the order of mkdocs.yml's `nav` (then any page
left out of it). Each page runs in a shell of its own, so it sets what it uses (`BASE=`, its keys)
itself: a reader can start on any page with only `make run` running.

Every `curl` in a block goes through a shell function that records the HTTP status of each call
with its line. A script passes when the shell exits 0, no call failed to connect, no answer was a
5xx, and every 4xx is one the step's own words announce (its comments name the status: "403
insufficient_scope", "400 without it").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
STEP = re.compile(r"^# ?\d+\.")  # "# 12. Events, ..." starts a step of a walk-through

# Records each call's status on stderr as "@@curl <line> <status>", the answer untouched on stdout.
CURL_PROBE = r"""
curl() {
  local line=${BASH_LINENO[0]}
  command curl "$@" --write-out "%{stderr}@@curl ${line} %{http_code}\n"
}
"""


@dataclass(frozen=True)
class Example:
    path: Path
    first_line: int  # of the block's body in the file
    body: str


def documents(root: Path) -> list[Path]:
    """README.md, then docs/ in the order of mkdocs.yml's nav, then pages the nav leaves out."""
    config = yaml.safe_load((root / "mkdocs.yml").read_text())
    docs = root / config.get("docs_dir", "docs")
    in_nav = [docs / page for page in nav_pages(config.get("nav", []))]
    rest = sorted(set(docs.rglob("*.md")) - set(in_nav))
    return [root / "README.md", *in_nav, *rest]


def nav_pages(nav: Any) -> Iterator[str]:
    """The page paths of a MkDocs nav, in order (entries are "page.md", {title: page} or {title: [...]})."""
    if isinstance(nav, str):
        if not nav.startswith(("http://", "https://")):
            yield nav
    elif isinstance(nav, list):
        for entry in nav:
            yield from nav_pages(entry)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_pages(value)


def uses_before_setting(examples: list[Example], name: str) -> bool:
    """Whether a document's blocks read $name before any line of theirs sets it (`name=...`)."""
    for example in examples:
        for line in example.body.splitlines():
            if re.match(rf"\s*{name}=", line):
                return False
            if re.search(rf"\${{?{name}\b", line):
                return True
    return False


def runnable_examples(path: Path) -> list[Example]:
    text = path.read_text()
    found = []
    for match in FENCE.finditer(text):
        if "runnable" in match.group("info").split():
            first_line = text.count("\n", 0, match.start("body")) + 1
            found.append(Example(path, first_line, match.group("body")))
    return found


def script(examples: list[Example], base_url: str, smtp_port: int = 2525) -> tuple[str, list[tuple[int, Example]]]:
    """The examples as one bash script, and where each starts in it (for mapping lines back). The
    runtime's addresses replace `make run`'s defaults where a block sets them: `BASE=http://127.0.0.1:3000`
    and `SMTP_PORT=2525`."""
    lines = ["set -eo pipefail", *CURL_PROBE.strip().splitlines()]
    starts = []
    for example in examples:
        starts.append((len(lines) + 1, example))
        body = example.body.replace("BASE=http://127.0.0.1:3000", f"BASE={base_url}")
        lines += re.sub(
            r"^(\s*)SMTP_PORT=2525\b", rf"\g<1>SMTP_PORT={smtp_port}", body, flags=re.MULTILINE
        ).splitlines()
    return "\n".join(lines) + "\n", starts


@dataclass(frozen=True)
class Call:
    example: Example
    line: int  # in the example's file
    status: int
    step: str  # the step's words: its comment lines and the command's own


def calls(stderr: str, starts: list[tuple[int, Example]]) -> list[Call]:
    found = []
    for match in re.finditer(r"^@@curl (\d+) (\d{3})$", stderr, re.MULTILINE):
        script_line, status = int(match.group(1)), int(match.group(2))
        start, example = max((s for s in starts if s[0] <= script_line), key=lambda s: s[0])
        offset = script_line - start
        body = example.body.splitlines()
        found.append(Call(example, example.first_line + offset, status, _step(body, offset)))
    return found


def _step(body: list[str], offset: int) -> str:
    """The text of the step a line belongs to: back to its `# N.` heading (or the block's start),
    and on to the line's own command and the comments that follow it."""
    begin = offset
    while begin > 0 and not STEP.match(body[begin]):
        begin -= 1
    end = offset + 1
    while end < len(body) and (body[end].startswith(("#", "  ", "\t")) or body[end].rstrip().endswith("\\")):
        if STEP.match(body[end]):
            break
        end += 1
    return "\n".join(body[begin:end])


def unannounced(call: Call) -> bool:
    """A 5xx, a failed connection (000), or a 4xx the step does not name."""
    if call.status >= 500 or call.status == 0:
        return True
    return call.status >= 400 and not re.search(rf"\b{call.status}\b", call.step)
