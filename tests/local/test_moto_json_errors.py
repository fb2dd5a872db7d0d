"""The emulator's moto patch (devtools/moto_patches/json_errors.py): every JSON error of the services
the project uses is built as moto builds it (attributes, headers, body, status), without its XML;
and the guard."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from moto.core.exceptions import JsonRESTError

from devtools.moto_patches import json_errors

_MODULES = ["moto.dynamodb.exceptions", "moto.sqs.exceptions", "moto.kms.exceptions", "moto.stepfunctions.exceptions",
            "moto.events.exceptions", "moto.core.exceptions", "moto.dynamodbstreams.models"]  # fmt: skip


def _classes() -> list[type[JsonRESTError]]:
    for name in _MODULES:
        importlib.import_module(name)
    found, stack = [], [JsonRESTError]
    while stack:
        for child in stack.pop().__subclasses__():
            found.append(child)
            stack.append(child)
    return [JsonRESTError, *found]


def _arguments(cls: type[Any]) -> list[Any]:
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [
        f"value {p.name}"
        for p in parameters
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def _built(cls: type[Any]) -> Any:
    try:
        error = cls(*_arguments(cls))
    except Exception as failure:  # a class this generic call cannot build: the same either way
        return type(failure).__name__
    return vars(error), error.get_headers(), error.get_body(), error.code, str(error)


def test_errors_are_built_as_moto_builds_them() -> None:
    json_errors.uninstall()
    classes = _classes()
    theirs = [_built(cls) for cls in classes]
    with json_errors.installed():
        ours = [_built(cls) for cls in classes]
    assert ours == theirs
    built = [answer for answer in ours if not isinstance(answer, str)]
    assert len(classes) > 50 and len(built) > 40
    assert all(answer[1][-1] == ("Content-Type", "application/json") for answer in built)


def test_guard() -> None:
    json_errors.uninstall()
    json_errors.check_internals()
