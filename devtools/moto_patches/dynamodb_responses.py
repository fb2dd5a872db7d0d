"""moto's DynamoDB item operations, answered with a plain JSON dump of their results.

Why: moto 5.2 writes every DynamoDB answer through its generic response serializer, which walks
botocore's shape model for every attribute value in Python. The emulator serves DynamoDB one
request at a time (emulator.py), so that walk is paid by every caller: a profile of the emulator
while the embedded pipeline delivered a batch put 23% of the time its DynamoDB thread held the
interpreter in the serializer, most of it in the answers of UpdateItem, TransactWriteItems,
BatchGetItem and Query. `json.dumps` writes the same answers in a fraction of that.

How: the item operations still run moto's own handler methods (same checks, same results, same
errors); when one returns its result, the result is dumped as JSON, which moto's `call_action`
sends as the body unchanged (and `amz_crc32` checksums, as before). Values are written as moto's
serializer writes them: binary values base64, datetimes as epoch seconds truncated to
milliseconds, doubles (capacity units, size estimates) as floats, members whose value is None
left out. Refusals (exceptions), and every other operation, are answered by moto as before.

Guard: `install()` checks that moto's `call_action` still sends a string body as it is, that
`DynamoResult` still turns moto's items into plain values, and that the serializer's timestamp
rule is the one copied here; it raises otherwise.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from moto.core.responses import ActionResult
from moto.dynamodb.responses import DynamoHandler, DynamoResult

from devtools.moto_patches.guarded import GuardedPatch, Replacement
from devtools.moto_patches.stream_reads import JSON_ANSWER_RELIES_ON, MotoJsonEncoder

# The data plane: what the service's code calls per request. Table management keeps moto's path.
OPERATIONS = (
    "get_item",
    "put_item",
    "update_item",
    "delete_item",
    "query",
    "scan",
    "batch_get_item",
    "batch_write_item",
    "transact_get_items",
    "transact_write_items",
)


_DOUBLES = {"SizeEstimateRangeGB"}  # the other doubles of these answers are all named *CapacityUnits


def _as_written(value: Any, double: bool = False) -> Any:
    """`value` as moto's serializer writes it: members that are None left out, and the members
    botocore's model calls doubles (capacity units, size estimates) written as floats."""
    if isinstance(value, dict):
        return {
            key: _as_written(member, double or key in _DOUBLES or key.endswith("CapacityUnits"))
            for key, member in value.items()
            if member is not None
        }
    if isinstance(value, list):
        return [_as_written(member, double) for member in value]
    if double and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _dumped(original: Callable[[DynamoHandler], Any]) -> Callable[[DynamoHandler], Any]:
    def answer(self: DynamoHandler) -> Any:
        result = original(self)
        if type(result) in (ActionResult, DynamoResult) and isinstance(result.result, dict):
            return json.dumps(_as_written(result.result), cls=MotoJsonEncoder)
        return result

    # __wrapped__ too: other patches' guards read moto's source through it (inspect.getsource unwraps).
    return functools.update_wrapper(answer, original)


_PATCH = GuardedPatch(
    "devtools/moto_patches/dynamodb_responses.py",
    [Replacement(DynamoHandler, name, _dumped(getattr(DynamoHandler, name))) for name in OPERATIONS],
    {  # what it relies on, as moto 5.2.5 writes it
        **JSON_ANSWER_RELIES_ON,
        "DynamoResult": (lambda: DynamoResult, ("transformed_result = dynamo_to_dict(result)",)),
    },
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
