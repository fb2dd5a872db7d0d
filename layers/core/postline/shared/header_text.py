"""The one rule for text that ends up in an email header (subject, custom header values, display
names and addresses): the API validates with it and the MIME builder applies it again.

Refused: every character str.splitlines treats as a line break (the email package splits and folds
headers with it, so U+2028, NEL or a form feed break a header as CR and LF do), NUL, and the other
C0 controls and DEL. TAB stays: it is folding whitespace, legal in a header.
"""

from __future__ import annotations

import re

# str.splitlines' line boundaries (Python's documentation lists exactly these), plus NUL, the other
# C0 controls and DEL; tests/unit/test_header_text.py checks the set against splitlines itself.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")


def header_text_problem(value: str) -> str | None:
    """What makes `value` unfit for a header (the first such character), or None when it is fit."""
    found = _UNSAFE.search(value)
    if found is None:
        return None
    return f"U+{ord(found.group()):04X} at position {found.start()}: a header is one line without control characters"


def check_header_text(value: str, field: str) -> str:
    """`value` unchanged when fit for a header; ValueError naming `field` otherwise."""
    problem = header_text_problem(value)
    if problem is not None:
        raise ValueError(f"{field} holds {problem}")
    return value


def without_controls(text: str) -> str:
    """`text` with each character the rule refuses replaced by a space: for what is stored and shown
    (event data such as an SMTP reply or a user agent) rather than refused."""
    return _UNSAFE.sub(" ", text)
