"""moto's parse of an UpdateExpression, kept per expression text.

Why: moto tokenizes and parses an UpdateItem's (or a transaction's Update's) expression into a
tree twice per action (the handler checks the names and values it uses, the backend validates and
runs it), in Python, every time. The metrics roll-up writes one transaction a stream batch with an
`ADD ...` action per roll-up item, and the dispatcher an UpdateItem per message: with webhook events
at 200 a second, the roll-up's transactions were 47% of the emulator's DynamoDB time, the parse a
third of that. The same expressions come back again and again.

How: `UpdateExpressionParser.make` answers from a cache keyed by the expression's text (an
expression that does not parse raises each time, as before). The tree is shared, so nothing may
change it: moto's handler only reads it (`find_clauses`) and its validator works on a deep copy
(`Validator.__init__`: `deepcopy(expression)`); the guard checks both.

Guard: `install()` checks that moto still parses through `make` as 5.2.5 does, that its validator
still copies the tree, and that `find_clauses` only reads, and raises otherwise.
"""

from __future__ import annotations

import functools
from typing import Any

from moto.dynamodb.parsing.ast_nodes import Node  # type: ignore[attr-defined]
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]
from moto.dynamodb.parsing.validators import Validator

from devtools.moto_patches.guarded import GuardedPatch, Replacement

CACHED = 4096  # distinct expression texts kept


@functools.lru_cache(maxsize=CACHED)
def _parsed(expression: str) -> Any:
    return _PATCH.original(_MAKE).__func__(UpdateExpressionParser, expression)


def _make(cls: type, expression_str: str) -> Any:
    if cls is not UpdateExpressionParser:  # a subclass: moto's own parse
        return _PATCH.original(_MAKE).__func__(cls, expression_str)
    return _parsed(expression_str)


_MAKE = Replacement(UpdateExpressionParser, "make", classmethod(_make))
_PATCH = GuardedPatch(
    "devtools/moto_patches/update_expressions.py",
    [_MAKE],
    {  # what it relies on, as moto 5.2.5 writes it
        "UpdateExpressionParser.make": (
            lambda: UpdateExpressionParser.make,
            ("token_list = ExpressionTokenizer.make_list(expression_str)", "return cls(token_list).parse()"),
        ),
        "Validator.__init__": (lambda: Validator.__init__, ("self.node_to_validate = deepcopy(expression)",)),
        "Node.find_clauses": (
            lambda: Node.find_clauses,
            ("clauses = []", "clauses.append(child)", "clauses.extend(child.find_clauses(clause_types))"),
        ),
    },
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
    _parsed.cache_clear()
