"""The emulator's moto patch (devtools/moto_patches/ast_copies.py): an expression tree's copy is the
graph `copy.deepcopy` makes (same classes, attributes, values, shared links and parent links, nothing
mutable shared with the original), updates answer as moto's own do; and the guard."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.parsing.expressions import UpdateExpressionParser

from devtools.moto_patches import ast_copies, update_expressions
from tests.local import test_moto_update_checks

_EXPRESSIONS = [
    "ADD a :v0, b :v1 SET expires_at = :e",
    "SET #s = :v0, c = if_not_exists(c, :v1) REMOVE d",
    "ADD a :v0 SET m.x[3].y = :v1 DELETE s :set",
    "SET l = list_append(if_not_exists(l, :empty), :v0), n = n + :one - :two",
    "REMOVE a.b[1], #c",
]


def _graph(root: Any) -> tuple[list[Any], dict[int, int]]:
    """The objects reachable from `root`, numbered in discovery order, described by class and by
    attributes (a reachable object by its number, an atom by its value)."""
    numbers: dict[int, int] = {}
    described: list[Any] = []
    stack = [root]
    while stack:
        value = stack.pop()
        if id(value) in numbers:
            continue
        numbers[id(value)] = len(numbers)
        described.append(None)
        index = numbers[id(value)]
        if isinstance(value, list):
            described[index] = ("list", [_ref(v, numbers, stack) for v in value])
        elif hasattr(value, "__dict__"):
            described[index] = (type(value), {k: _ref(v, numbers, stack) for k, v in vars(value).items()})
        else:
            described[index] = ("atom", value)
    return described, numbers


def _ref(value: Any, numbers: dict[int, int], stack: list[Any]) -> Any:
    if isinstance(value, str | int | float | bool | bytes | type(None)):
        return ("=", value)
    stack.append(value)
    return ("#", id(value))


def _normalized(root: Any) -> list[Any]:
    described, numbers = _graph(root)
    out = []
    for kind, body in described:
        if isinstance(body, dict):
            body = {k: (v if v[0] == "=" else ("#", numbers[v[1]])) for k, v in body.items()}
        elif isinstance(body, list):
            body = [v if v[0] == "=" else ("#", numbers[v[1]]) for v in body]
        out.append((kind, body))
    return out


@pytest.mark.parametrize("expression", _EXPRESSIONS)
def test_a_copy_is_deepcopys_graph(expression: str) -> None:
    tree = UpdateExpressionParser.make(expression)
    theirs, ours = copy.deepcopy(tree), ast_copies.tree_copy(tree)
    assert _normalized(ours) == _normalized(theirs) == _normalized(tree)
    _, original_ids = _graph(tree)
    _, copied_ids = _graph(ours)
    assert len(copied_ids) > 5 and not set(copied_ids) & set(original_ids)  # no node or list shared
    memo: dict[int, Any] = {}
    assert ast_copies.tree_copy(tree, memo) is memo[id(tree)]


def test_other_values_go_to_deepcopy() -> None:
    value = DynamoType({"L": [{"N": "1"}, {"M": {"a": {"S": "x"}}}]})
    assert ast_copies.tree_copy(value) == copy.deepcopy(value)
    assert ast_copies.tree_copy(value) is not value
    nested = {"k": [1, {"x": (2, [3])}]}
    assert ast_copies.tree_copy(nested) == nested and ast_copies.tree_copy(nested)["k"][1] is not nested["k"][1]


def test_updates_answer_as_moto_answers_them() -> None:
    ast_copies.uninstall()
    theirs = test_moto_update_checks._run(9)
    with update_expressions.installed(), ast_copies.installed():
        ours = test_moto_update_checks._run(9)
    assert ours == theirs


def test_guard() -> None:
    ast_copies.uninstall()
    ast_copies.check_internals()
