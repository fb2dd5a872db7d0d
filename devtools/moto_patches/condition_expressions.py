"""moto's parse of a condition (and filter) expression, kept per expression, names and values.

Why: moto lexes and parses a ConditionExpression into a tree of operators in Python every time it
meets one, twice per request (the handler checks the names and values it uses, the backend parses
again to evaluate): a PutItem's `attribute_not_exists(pk)`, a delivery's `attempt_count = :before`,
every condition of a transaction. With webhook events at 200 a second that parse was 9% of the
emulator's CPU. The same expressions come back with the same names and values again and again.

How: `ConditionExpressionParser.parse` answers from a cache keyed by the expression's text, its
ExpressionAttributeNames and those of its ExpressionAttributeValues whose names occur in the text
(as sorted JSON: the parse looks up only the values it lexes from the text, and a transaction's
Update hands its condition every value of the action, counters included), with the operator tree
moto built the first time (from a private copy of the values) and the names and values that parse
found (appended to the parser's `expr_attr_names_found` / `expr_attr_values_found` as moto's parse
appends them). The tree binds
the names and values, which are in the key; moto's operators only read it (`expr` and `get_type`
evaluate against the item and return fresh values, numbers as new Decimals, lists, maps and sets
built anew), so it is shared. An expression that does not parse raises each time, as before; values
that are not plain JSON (binary) and subclasses of the parser go to moto's parse unchanged. At most
CACHED entries are kept, the oldest dropped first.

Guard: `install()` checks that moto's parse still fills the two lists and returns the tree it
built, that the operators' and operands' methods assign nothing outside `__init__`, and raises
otherwise.
"""

from __future__ import annotations

import inspect
import json
import re
import threading
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb.comparisons import ConditionExpressionParser

from devtools.moto_patches.guarded import GuardedPatch, Replacement

CACHED = 4096  # distinct (expression, names, values) kept
_Parsed = tuple[Any, tuple[str, ...], tuple[str, ...]]
_cache: dict[tuple[str, str, str], _Parsed] = {}
_lock = threading.Lock()


def _frozen(mapping: dict[str, Any] | None) -> str:
    return json.dumps(mapping, sort_keys=True, separators=(",", ":"))  # TypeError: not plain JSON


def _parse(self: ConditionExpressionParser) -> Any:
    original = _PATCH.original(_PARSE)
    if type(self) is not ConditionExpressionParser or not isinstance(self.condition_expression, str):
        return original(self)
    text, used = self.condition_expression, self.expression_attribute_values
    if isinstance(used, dict):  # only those the text can name: the parse looks up what it lexes
        used = {name: value for name, value in used.items() if not isinstance(name, str) or name in text}
    try:
        key = (text, _frozen(self.expression_attribute_names), _frozen(used))
    except (TypeError, ValueError):
        return original(self)
    parsed = _cache.get(key)
    if parsed is None:
        names, values = len(self.expr_attr_names_found), len(self.expr_attr_values_found)
        given = self.expression_attribute_values
        # The tree keeps references into the values: built from a private copy, so a caller that
        # changes its request afterwards cannot change what a later hit evaluates.
        self.expression_attribute_values = json.loads(key[2])
        try:
            op = original(self)  # raises for an expression moto refuses: nothing kept
        finally:
            self.expression_attribute_values = given
        parsed = (op, tuple(self.expr_attr_names_found[names:]), tuple(self.expr_attr_values_found[values:]))
        with _lock:
            while len(_cache) >= CACHED:
                _cache.pop(next(iter(_cache)))
            _cache[key] = parsed
        return op
    self.expr_attr_names_found.extend(parsed[1])
    self.expr_attr_values_found.extend(parsed[2])
    return parsed[0]


def _reads_only() -> bool:
    """Every operator, function and operand class assigns to `self` only in `__init__`."""
    classes = [
        c
        for c in vars(comparisons).values()
        if inspect.isclass(c) and issubclass(c, (comparisons.Op, comparisons.Func, comparisons.Operand))
    ]
    for cls in classes:
        for name, member in vars(cls).items():
            if name != "__init__" and inspect.isfunction(member):
                if re.search(r"self\.\w+(\[[^\]]*\])?\s*(=|\+=|-=)[^=]", inspect.getsource(member)):
                    return False
                if re.search(r"self\.\w+\.(append|extend|update|pop|add|remove|clear)\(", inspect.getsource(member)):
                    return False
    return len(classes) > 20


_PARSE = Replacement(ConditionExpressionParser, "parse", _parse)
_PATCH = GuardedPatch(
    "devtools/moto_patches/condition_expressions.py",
    [_PARSE],
    {  # what it relies on, as moto 5.2.5 writes it
        "ConditionExpressionParser.parse": (
            lambda: ConditionExpressionParser.parse,
            (
                "self.expr_attr_names_found.extend(self._find_literals(node))",
                "self.expr_attr_values_found.extend(self._find_expr_attr_values(node))",
                "op = self._make_op_condition(node)",
                "return op",
            ),
        ),
        "ConditionExpressionParser.__init__": (
            lambda: ConditionExpressionParser.__init__,
            (
                "self.condition_expression = condition_expression",
                "self.expression_attribute_names = expression_attribute_names",
                "self.expression_attribute_values = expression_attribute_values",
            ),
        ),
    },
    holds={"the operators only read their tree": _reads_only},
    on_uninstall=_cache.clear,
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
