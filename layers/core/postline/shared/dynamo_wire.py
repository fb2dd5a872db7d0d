"""DynamoDB batch requests sent as built: on a bulk client (wiring/registry.py `bulk_client`), the
body of a BatchWriteItem or BatchGetItem (and of SQS's SendMessageBatch, the send queue's jobs) is
its parameters dumped to JSON as they are.

Why: botocore's JSON serializer walks the API model over every attribute of every item to produce
exactly that JSON (DynamoDB's shapes rename no member and its wire format is the AttributeValue
maps the code already builds). For a 5,000-recipient batch that walk was a fifth of the send
handler's CPU (~15,000 items written and 25,000 keys read); in Lambda it is billed time too.

What stays botocore's: the request's method, headers and URL (serialized for the operation with
no parameters), signing, retries and the response's parsing. The body is byte for byte what
botocore sends (tests/unit/test_dynamo_wire.py compares them, so a botocore upgrade that changes
its output fails there). Binary attributes ("B", "BS") must be bytes, as this code builds them:
they are base64-encoded as botocore does.
"""

from __future__ import annotations

import base64
import json
from typing import Any

# Per service (both JSON protocols), the operations whose bodies are sent as built.
AS_BUILT = {"dynamodb": frozenset({"BatchWriteItem", "BatchGetItem"}), "sqs": frozenset({"SendMessageBatch"})}


def _blob(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("utf-8")
    raise TypeError(f"{type(value).__name__} is not a DynamoDB wire value")


class AsBuiltSerializer:
    """botocore's serializer for every operation, except AS_BUILT's bodies (see the module's doc)."""

    def __init__(self, inner: Any, operations: frozenset[str]) -> None:
        self._inner = inner
        self._operations = operations

    def serialize_to_request(self, parameters: dict[str, Any], operation_model: Any) -> dict[str, Any]:
        if operation_model.name not in self._operations:
            return dict(self._inner.serialize_to_request(parameters, operation_model))
        serialized = dict(self._inner.serialize_to_request({}, operation_model))
        serialized["body"] = json.dumps(parameters, default=_blob).encode("utf-8")
        return serialized


def send_as_built(client: Any) -> Any:
    """`client` (a client without parameter validation) with AS_BUILT's bodies dumped as given; a
    client of another service is returned unchanged."""
    inner = getattr(client, "_serializer", None)
    operations = AS_BUILT.get(client.meta.service_model.service_name)
    if inner is not None and operations and not isinstance(inner, AsBuiltSerializer):
        client._serializer = AsBuiltSerializer(inner, operations)  # botocore keeps one serializer per client
    return client
