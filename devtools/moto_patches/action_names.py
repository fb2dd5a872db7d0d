"""moto's check that a request's action is a method of its handler, without listing the class.

Why: `BaseResponse.call_action` asks `action in method_names_from_class(self.__class__)` on every
request, and `method_names_from_class` is `inspect.getmembers(clazz, inspect.isfunction)`: a
getattr and a test of each of the handler class's ~300 attributes, then a sort, to answer one
membership question. It was 4-5% of the emulator's CPU both while a batch was accepted and while
webhook events streamed at 200 a second.

How: the name `method_names_from_class` in moto.core.responses (used there only by that check) is
bound to a function that returns a view of the class whose `in` answers what the list's `in`
answers: `getmembers` keeps a name that `dir(clazz)` lists when `getattr(clazz, name)` (or, when
that raises AttributeError, the first value of the name in the class's MRO dicts) is a plain
function. The view tests just the name asked for, and looks for it in the dicts of the class's MRO
(what `dir` of a class lists) only when its value is a function. A class changed at run time
(another patch installed or removed) is seen as it is then: nothing is kept.

Guard: `install()` checks that moto still uses the name only in `call_action`, only for that `in`,
and that `method_names_from_class` is still `getmembers` with `isfunction`; it raises otherwise.
"""

from __future__ import annotations

import inspect
from typing import Any

from moto.core import responses, utils

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_NAME = "method_names_from_class"


class FunctionNames:
    """The names `method_names_from_class(clazz)` lists, for `in` only."""

    __slots__ = ("_clazz",)

    def __init__(self, clazz: Any) -> None:
        self._clazz = clazz

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            value = getattr(self._clazz, name)
        except AttributeError:  # getmembers then looks in the MRO's dicts
            value = next((vars(base)[name] for base in inspect.getmro(self._clazz) if name in vars(base)), None)
        # dir() of a class lists the names in the dicts of its MRO (not its metaclass's): asked directly.
        return inspect.isfunction(value) and any(name in vars(base) for base in inspect.getmro(self._clazz))


def _names(clazz: Any) -> FunctionNames:
    return FunctionNames(clazz)


def _uses() -> bool:
    module = inspect.getsource(responses)
    call_action = inspect.getsource(responses.BaseResponse.call_action)
    return module.count(f"{_NAME}(") == 1 and call_action.count("method_names") == 3


_PATCH = GuardedPatch(
    "devtools/moto_patches/action_names.py",
    [Replacement(responses, _NAME, _names)],
    {  # what it relies on, as moto 5.2.5 writes it
        "BaseResponse.call_action": (
            lambda: responses.BaseResponse.call_action,
            ("method_names = method_names_from_class(self.__class__)", "if action in method_names:"),
        ),
        "method_names_from_class": (
            lambda: utils.method_names_from_class,
            ("predicate = inspect.isfunction", "return [x[0] for x in inspect.getmembers(clazz, predicate=predicate)]"),
        ),
    },
    holds={"method_names_from_class's uses": _uses},
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
