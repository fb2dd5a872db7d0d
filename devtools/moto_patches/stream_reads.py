"""moto's DynamoDB Streams GetRecords, answered with a plain JSON dump of its records.

Why: moto 5.2 answers GetRecords through its generic response serializer, which walks botocore's
shape model for every value in Python: 1,000 records of a 20-attribute item took 8.3 s, against
0.13 s to dump the same records as JSON. The emulator serves DynamoDB and its streams one request
at a time (emulator.py), and every stream consumer (webhook fan-out, metrics, recipient activity,
event counts) reads every record, so the serializer alone capped the embedded pipeline near 15
messages/s and stalled API calls behind the readers (a 500-recipient batch: 4.8 s idle, 25 s while
2,000 messages were delivering; GetRecords held the emulator's DynamoDB lock 52 s of that run).

How: `DynamoDBStreamsHandler.get_records` still calls moto's backend (same iterator rules, same
records, same errors) and returns the result as a JSON string, which moto's `call_action` sends
as the body unchanged. The records are moto's own stream record dicts, dumped with moto's own
DynamoDB encoder (how moto writes its other DynamoDB responses), except that a datetime is written
by moto's serializer's own rule (epoch seconds truncated to milliseconds), as it was. A read
whose headers name its consumer (a runtime pump) first notes how far that consumer has read
(stream_trims.py).

Guard: `install()` checks that moto's handler still returns the backend's result as an
ActionResult and that `call_action` still sends a string body as it is, and raises otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from moto.core.responses import BaseResponse
from moto.core.serialize import TimestampSerializer
from moto.dynamodb.models.utilities import DynamoJsonEncoder
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

from devtools.moto_patches import stream_trims
from devtools.moto_patches.guarded import GuardedPatch, Replacement

_DEFAULT_LIMIT = 1000  # moto's, and DynamoDB Streams' maximum


class MotoJsonEncoder(DynamoJsonEncoder):
    """moto's DynamoDB encoder (binary as base64, its models' to_json), with datetimes written by
    moto's response serializer's rule; dynamodb_responses.py uses it too."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return TimestampSerializer._timestamp_unixtimestamp(o)
        return super().default(o)


def _get_records(self: DynamoDBStreamsHandler) -> str:
    limit = self._get_param("Limit")
    iterator = self._get_param("ShardIterator")
    if self.headers.get(stream_trims.CONSUMER_HEADER):  # a runtime pump, saying how far it has read
        stream_trims.acknowledged_read(self.backend, iterator, self.headers)
    result = self.backend.get_records(iterator, _DEFAULT_LIMIT if limit is None else limit)
    return json.dumps(result, cls=MotoJsonEncoder)


# What a handler answering its own JSON string relies on (this patch's and dynamodb_responses.py's):
# moto sends a string body as it is, and writes datetimes by the rule MotoJsonEncoder copies.
JSON_ANSWER_RELIES_ON: dict[str, tuple[Callable[[], Any], tuple[str, ...]]] = {
    "BaseResponse.call_action": (
        lambda: BaseResponse.call_action,
        ("elif isinstance(response, str):", "body = response"),
    ),
    "TimestampSerializer._timestamp_unixtimestamp": (
        lambda: TimestampSerializer._timestamp_unixtimestamp,
        ("(value.microsecond // 1000) / 1000.0",),
    ),
}

_PATCH = GuardedPatch(
    "devtools/moto_patches/stream_reads.py",
    [Replacement(DynamoDBStreamsHandler, "get_records", _get_records)],
    {  # what it relies on, as moto 5.2.5 writes it
        "DynamoDBStreamsHandler.get_records": (
            lambda: DynamoDBStreamsHandler.get_records,
            (
                'limit = self._get_param("Limit")',
                "result = self.backend.get_records(arn, limit)",
                "return ActionResult(result)",
            ),
        ),
        **JSON_ANSWER_RELIES_ON,
    },
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
