"""moto's checks of an update expression that depend only on its text, its names and the table's
keys, made once per (expression, names, key attributes) instead of on every action.

Why: moto validates an UpdateItem's (or a transaction Update's) expression with ten walks of a
deep copy of its tree, twice for an item that does not exist yet. The first three walks only check
and raise (`ActionCountValidator`: one ADD/SET/REMOVE clause of each kind; `OverlappingPathsValidator`:
no path updated twice; `UpdateHashRangeKeyValidator`: no key attribute updated), and what they
check is fixed by the tree, ExpressionAttributeNames and the table's key attributes. The metrics
roll-up writes one transaction a stream batch with an `ADD ...` per counter item, and the
dispatcher an UpdateItem per message: the same expressions come back again and again.

How: with update_expressions.py installed moto's parse of one text is one shared tree, so
`UpdateExpressionValidator` notes the tree it was given (`__init__`), and `validate` skips the three
checks when that tree, with the same names (as sorted JSON) and key attributes, passed them before.
A first pass runs them as moto does and is kept only when they returned the copy they were given
unchanged (the same nodes, children and parents); an expression that fails a check raises each
time, as before. The other seven walks (values, names and the item's paths resolved, functions,
operations, types) run as before. At most CACHED trees are kept, the oldest dropped first.

Guard: `install()` checks that the validator still builds its processors with those three first,
that they only return the node they check, and that `validate` still walks the processors in order;
it raises otherwise.
"""

from __future__ import annotations

import inspect
import json
import threading
from typing import Any

from moto.dynamodb.parsing import validators
from moto.dynamodb.parsing.ast_nodes import Node  # type: ignore[attr-defined]
from moto.dynamodb.parsing.validators import (
    ActionCountValidator,
    OverlappingPathsValidator,
    UpdateExpressionValidator,
    UpdateHashRangeKeyValidator,
    Validator,
)

from devtools.moto_patches.guarded import GuardedPatch, Replacement

CACHED = 4096  # trees kept
_CHECKS = (ActionCountValidator, OverlappingPathsValidator, UpdateHashRangeKeyValidator)
_SOURCE = "_postline_source"
_passed: dict[int, tuple[Any, set[tuple[str, tuple[str, ...]]]]] = {}  # id(tree) -> (tree, passed keys)
_lock = threading.Lock()


def _init(self: UpdateExpressionValidator, expression: Any, *args: Any, **kwargs: Any) -> None:
    Validator.__init__(self, expression, *args, **kwargs)
    setattr(self, _SOURCE, expression)


def _shape(node: Any) -> list[tuple[int, int, tuple[int, ...]]]:
    """Every node reachable from `node` by its children: itself, its parent, its children (by id)."""
    found: list[tuple[int, int, tuple[int, ...]]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Node):
            children = tuple(current.children or ())
            found.append((id(current), id(current.parent), tuple(id(child) for child in children)))
            stack.extend(children)
    return found


def _validate(self: UpdateExpressionValidator) -> Node:
    source = getattr(self, _SOURCE, None)
    processors = self.processors
    if source is None or tuple(type(p) for p in processors[: len(_CHECKS)]) != _CHECKS:
        return _PATCH.original(_VALIDATE)(self)
    try:
        key = (
            json.dumps(self.expression_attribute_names, sort_keys=True),
            tuple(self.table.table_key_attrs),
        )
    except (TypeError, ValueError):
        return _PATCH.original(_VALIDATE)(self)
    node = self.node_to_validate
    entry = _passed.get(id(source))
    if entry is None or entry[0] is not source or key not in entry[1]:
        before = _shape(node)
        for processor in processors[: len(_CHECKS)]:
            node = processor.traverse(node)
        if node is self.node_to_validate and _shape(node) == before:
            with _lock:
                entry = _passed.get(id(source))
                if entry is None or entry[0] is not source:
                    while len(_passed) >= CACHED:
                        _passed.pop(next(iter(_passed)))
                    entry = _passed[id(source)] = (source, set())
                entry[1].add(key)
    for processor in processors[len(_CHECKS) :]:
        node = processor.traverse(node)
    return node


def _own_methods_absent() -> bool:
    own = vars(UpdateExpressionValidator)
    return own.get("__init__", _init) is _init and own.get("validate", _validate) is _validate


def _checks_only_read() -> bool:
    for check in _CHECKS:
        for name, member in vars(check).items():
            if name.startswith("check_") or name.startswith("verify_"):
                source = inspect.getsource(member)
                if (
                    "return node" not in source
                    or source.count("return ") != 1
                    or "node." in source.replace("node.children", "").replace("node.find_clauses", "")
                ):
                    return False
    return True


_INIT = Replacement(UpdateExpressionValidator, "__init__", _init)  # added: the class had none of its own
_VALIDATE = Replacement(UpdateExpressionValidator, "validate", _validate)
_PATCH = GuardedPatch(
    "devtools/moto_patches/update_checks.py",
    [_INIT, _VALIDATE],
    {  # what it relies on, as moto 5.2.5 writes it
        "UpdateExpressionValidator.get_ast_processors": (
            lambda: UpdateExpressionValidator.get_ast_processors,
            (
                "ActionCountValidator(),\n            OverlappingPathsValidator(self.expression_attribute_names),\n"
                "            UpdateHashRangeKeyValidator(\n                self.table.table_key_attrs, "
                "self.expression_attribute_names or {}\n            ),\n            ExpressionAttributeValueProcessor(",
            ),
        ),
        "Validator.validate": (
            lambda: Validator.validate,
            ("for processor in self.processors:", "n = processor.traverse(n)", "return n"),
        ),
        "Validator.__init__": (
            lambda: Validator.__init__,
            ("self.processors = self.get_ast_processors()", "self.node_to_validate = deepcopy(expression)"),
        ),
    },
    holds={
        "UpdateExpressionValidator has no __init__ or validate of its own": _own_methods_absent,
        "the three checks only check": _checks_only_read,
        "validators imports": lambda: validators.UpdateExpressionValidator is UpdateExpressionValidator,
    },
    on_uninstall=_passed.clear,
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
