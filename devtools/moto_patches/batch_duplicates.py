"""moto's BatchWriteItem duplicate check, comparing JSON dumps only of requests that are equal.

Why: `DynamoHandler.batch_write_item` refuses a batch with two identical requests by dumping every
put item (and delete key) to JSON with moto's encoder and comparing the strings, one by one. For a
batch of 25 message items that dump was about 5% of the emulator's time while a 5,000-recipient
batch was accepted; the answer is almost always "no duplicates".

How: the name `dynamo_json_dump` in moto.dynamodb.responses (used there only by that check) is
bound to a function that returns the value wrapped, not dumped. Two wrapped values are equal when
the values are equal and then their dumps are: dumps can only be equal if the values are (the
values are a parsed request's: strings, numbers, booleans, bytes, lists and maps, each attribute's
type fixed by its key), so the answer is moto's, and a dump is made only for equal pairs.

Guard: `install()` checks that moto still uses the name only for that check, through
`_contains_duplicates`' `in`, and raises otherwise.
"""

from __future__ import annotations

import inspect
from typing import Any

from moto.dynamodb import responses
from moto.dynamodb.models.utilities import dynamo_json_dump

_NAME = "dynamo_json_dump"
_USES = 2  # the put items' check and the delete keys' check


class _Dumpable:
    """A value standing for its JSON dump in an equality test."""

    __slots__ = ("value",)
    __hash__ = None  # type: ignore[assignment]  # compared with ==, never hashed (moto keeps a list)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Dumpable):
            return NotImplemented
        return bool(self.value == other.value) and dynamo_json_dump(self.value) == dynamo_json_dump(other.value)


def _wrapped(value: Any) -> _Dumpable:
    return _Dumpable(value)


def check_internals() -> None:
    source = inspect.getsource(responses)
    check = inspect.getsource(responses.DynamoHandler._contains_duplicates)
    bound = vars(responses).get(_NAME)
    if (
        source.count(f"{_NAME}(") != _USES
        or "self._contains_duplicates(\n            [dynamo_json_dump(k[1]) for k in delete_requests]" not in source
        or "if k in unique_keys:" not in check
        or bound not in (dynamo_json_dump, _wrapped)
    ):
        raise RuntimeError(
            "moto changed how BatchWriteItem finds duplicates, which devtools/moto_patches/batch_duplicates.py"
            " relies on; review the patch"
        )


def install() -> None:
    check_internals()
    vars(responses)[_NAME] = _wrapped


def uninstall() -> None:
    vars(responses)[_NAME] = dynamo_json_dump
