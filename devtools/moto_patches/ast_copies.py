"""moto's copy of an update expression's tree, made by a walk of its nodes instead of `copy.deepcopy`.

Why: moto's validator deep-copies the expression's tree before every validation (an UpdateItem, or
each Update of a transaction; twice for an item that does not exist yet), and `copy.deepcopy`
dispatches on each object through `__reduce_ex__`, copies each node's attribute dict as a dict and
keeps every object alive in its memo: with webhook events at 200 a second, the roll-up's
transactions (an `ADD ...` per counter item) spent 10% of the emulator's CPU in that copy.

How: the name `deepcopy` in moto.dynamodb.parsing.validators is bound to a function that copies the
tree's nodes itself, as `deepcopy` copies an instance of a plain class: a new object of the same
class (`object.__new__`, registered in the memo before its attributes are copied, so a parent link
leads to the copy), its attribute dict copied value by value; lists are copied item by item;
strings, numbers, booleans, bytes and None are kept (deepcopy keeps them too). Anything else,
and a node class with a copy protocol of its own (`__deepcopy__`, `__reduce__`, `__reduce_ex__`,
`__getstate__`, `__setstate__`, `__slots__`), goes to `copy.deepcopy` with the same memo. So the
validator's other use (list_append's DynamoType, which has its own `__deepcopy__`) is unchanged.

Guard: `install()` checks that moto's validators still import `deepcopy` by that name from `copy`
and use it in those two places, and raises otherwise.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

from moto.dynamodb.parsing import validators
from moto.dynamodb.parsing.ast_nodes import Node  # type: ignore[attr-defined]

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_KEPT = frozenset({str, int, float, bool, bytes, type(None)})
_OBJECT_PROTOCOL = ("__reduce_ex__", "__reduce__", "__getstate__")  # as object has them: a plain class
_plain: dict[type, bool] = {}  # node class -> copied here (no copy protocol of its own)


def _is_plain(cls: type) -> bool:
    plain = _plain.get(cls)
    if plain is None:
        plain = _plain[cls] = (
            issubclass(cls, Node)
            and not hasattr(cls, "__deepcopy__")
            and all(getattr(cls, name) is getattr(object, name) for name in _OBJECT_PROTOCOL)
            and not hasattr(cls, "__setstate__")
            and all("__slots__" not in vars(base) for base in cls.__mro__[:-1])
        )
    return plain


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    cls = type(value)
    if cls in _KEPT:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    if cls is list:
        copied: list[Any] = []
        memo[id(value)] = copied
        copied.extend(_copy(item, memo) for item in value)
        return copied
    if _is_plain(cls):
        node = object.__new__(cls)
        memo[id(value)] = node
        node.__dict__.update({name: _copy(item, memo) for name, item in value.__dict__.items()})
        return node
    return copy.deepcopy(value, memo)


def tree_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """What `copy.deepcopy(value, memo)` returns, for moto's expression trees."""
    return _copy(value, {} if memo is None else memo)


def _uses() -> bool:
    source = inspect.getsource(validators)
    return (
        "from copy import deepcopy\n" in source
        and source.count("deepcopy(") == 2
        and "self.node_to_validate = deepcopy(expression)" in source
        and "first_arg = deepcopy(\n                self.get_list_from_ddb_typed_value(" in source
    )


_PATCH = GuardedPatch(
    "devtools/moto_patches/ast_copies.py",
    [Replacement(validators, "deepcopy", tree_copy)],
    {},
    holds={
        "moto.dynamodb.parsing.validators' deepcopy": _uses,
        "Node.__init__": lambda: "self.children = children" in inspect.getsource(Node.__init__),
    },
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
    _plain.clear()
