"""Small helpers over the low-level DynamoDB client.

The low-level client (not boto3.resource) is used because it is thread-safe, which the
embedded runtime needs when it serves requests concurrently from one process.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError
from botocore.retries.standard import RetryContext, ThrottledRetryableChecker, TransientRetryableChecker

from postline.shared.pagination import page_window
from postline.shared.parallel import run_each

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()

Item = dict[str, Any]


def _plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal; models want int or float. Binary comes back as bytes."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Binary):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | set):
        return [_plain(v) for v in value]
    return value


def to_attrs(data: dict[str, Any]) -> dict[str, Any]:
    """The attributes of `data` as it reads back from JSON (so floats become Decimal, which the
    serializer takes, and other values their `str`; bytes stay bytes, a Binary), None values left out."""
    if any(type(k) is not str for k in data):
        data = json.loads(json.dumps(data, default=str))  # JSON's keys are strings
    return {k: to_value(v) for k, v in data.items() if v is not None}


def to_value(value: Any) -> Any:
    """The attribute of `value` as it reads back from JSON: built directly when it holds only JSON's
    own types (what `model_dump(mode="json")` makes: the send path's items), else through JSON."""
    try:
        return _json_attribute(value)
    except _NotJson:
        return _attribute(json.loads(json.dumps(value, default=str), parse_float=Decimal))


class _NotJson(Exception):
    """A value JSON would change (a float, a date, a tuple, a str subclass, a non-str key, ...)."""


def _json_attribute(value: Any) -> dict[str, Any]:
    """_attribute of `value`, which must read back from JSON as itself (else _NotJson)."""
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is dict:
        attrs = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _NotJson
            attrs[k] = _json_attribute(v)
        return {"M": attrs}
    if kind is list:
        return {"L": [_json_attribute(v) for v in value]}
    if kind is bool:
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if kind is bytes:  # Binary, as the serializer makes it (JSON has no bytes: never through it)
        return {"B": value}
    if kind is int:
        serialized: dict[str, Any] = _serializer.serialize(value)
        return serialized
    raise _NotJson


def _attribute(value: Any) -> dict[str, Any]:
    """TypeSerializer.serialize of a value read back from JSON, without its type probing for the
    JSON types (the same attribute; numbers still go through it)."""
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is dict:
        return {"M": {k: _attribute(v) for k, v in value.items()}}
    if kind is list:
        return {"L": [_attribute(v) for v in value]}
    if kind is bool:
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    serialized: dict[str, Any] = _serializer.serialize(value)
    return serialized


def from_attrs(attrs: dict[str, Any]) -> Item:
    return {k: _plain(_deserializer.deserialize(v)) for k, v in attrs.items()}


def key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def conditional_failed(exc: Exception) -> bool:
    """A write refused by its ConditionExpression (not a cancelled transaction: see below)."""
    return bool(getattr(exc, "response", {}).get("Error", {}).get("Code") == "ConditionalCheckFailedException")


def epoch(moment: datetime) -> dict[str, str]:
    """A time as a Number attribute of epoch seconds: what TTL attributes hold."""
    return {"N": str(int(moment.timestamp()))}


def cancellation_codes(exc: Exception) -> list[str]:
    """Reasons of a cancelled TransactWriteItems, in the order of its items."""
    response = getattr(exc, "response", {})
    return [reason.get("Code", "None") for reason in response.get("CancellationReasons", [])]


_BATCH_WRITE_LIMIT = 25
_BATCH_GET_LIMIT = 100


def batch_write(client: Any, puts: list[tuple[str, dict[str, Any]]], *, workers: int = 1) -> int:
    """Puts (table, item) pairs 25 to a call, retrying what DynamoDB leaves unprocessed; `workers`
    calls at once (shared/parallel.py; 1: one after another).

    Returns the number of BatchWriteItem calls made.
    """
    return _batch_requests(client, [(table, {"PutRequest": {"Item": item}}) for table, item in puts], workers)


def batch_delete(client: Any, deletes: list[tuple[str, dict[str, Any]]]) -> int:
    """Deletes (table, key) pairs 25 to a call, as batch_write puts; returns the calls made."""
    return _batch_requests(client, [(table, {"DeleteRequest": {"Key": item_key}}) for table, item_key in deletes])


def _batch_requests(client: Any, requests: list[tuple[str, dict[str, Any]]], workers: int = 1) -> int:
    groups = [requests[start : start + _BATCH_WRITE_LIMIT] for start in range(0, len(requests), _BATCH_WRITE_LIMIT)]
    calls = [0] * len(groups)

    def write(index: int) -> None:
        calls[index] = _write_group(client, groups[index])

    run_each([partial(write, index) for index in range(len(groups))], lambda index: None, workers)
    return sum(calls)


def _write_group(client: Any, group: list[tuple[str, dict[str, Any]]]) -> int:
    """One BatchWriteItem of up to 25 requests, and its retries; the calls made."""
    calls = 0
    pending: dict[str, list[dict[str, Any]]] = {}
    for table, request in group:
        pending.setdefault(table, []).append(request)
    for attempt in range(8):
        calls += 1
        pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        if not pending:
            break
        time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off as the SDK guide says
    if pending:
        raise RuntimeError(f"DynamoDB left {sum(map(len, pending.values()))} writes unprocessed")
    return calls


def batch_get(
    client: Any, table: str, keys: list[dict[str, Any]], projection: str | None = None, *, workers: int = 1
) -> list[Item]:
    """The items that exist among `keys` (strongly consistent; only `projection`'s attributes when
    given), 100 keys to a BatchGetItem, retrying what DynamoDB leaves unprocessed; in no particular
    order. `workers` calls at once (1: one after another)."""
    groups = [keys[start : start + _BATCH_GET_LIMIT] for start in range(0, len(keys), _BATCH_GET_LIMIT)]
    found: list[list[Item]] = [[] for _ in groups]

    def read(index: int) -> None:
        found[index] = _get_group(client, table, groups[index], projection)

    run_each([partial(read, index) for index in range(len(groups))], lambda index: None, workers)
    return [item for part in found for item in part]


def _get_group(client: Any, table: str, keys: list[dict[str, Any]], projection: str | None) -> list[Item]:
    found: list[Item] = []
    request: dict[str, Any] = {"Keys": keys, "ConsistentRead": True}
    if projection:
        request["ProjectionExpression"] = projection
    pending: dict[str, Any] = {table: request}
    for attempt in range(8):
        response = client.batch_get_item(RequestItems=pending)
        found += response["Responses"].get(table, [])
        pending = response.get("UnprocessedKeys") or {}
        if not pending:
            break
        time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off as the SDK guide says
    if pending:
        raise RuntimeError(f"DynamoDB left {len(pending[table]['Keys'])} reads unprocessed")
    return found


def query_page(
    client: Any, table: str, condition: dict[str, Any], *, page: int, per_page: int, forward: bool
) -> tuple[list[Item], int]:
    """One page of a page-numbered list over a Query: (raw items of the page, total count).

    DynamoDB has no offset, so the page is reached by walking the key range; fine at the sizes
    these lists have (audit, templates, scheduled sends), costly for deep pages of large ones.
    """
    paginator = client.get_paginator("query")
    total = sum(page_["Count"] for page_ in paginator.paginate(TableName=table, Select="COUNT", **condition))
    start, stop = page_window(page, per_page)
    found: list[Item] = []
    seen = 0
    if start < total:
        for response in paginator.paginate(
            TableName=table, ScanIndexForward=forward, Limit=min(stop, 1000), **condition
        ):
            for attrs in response["Items"]:
                if start <= seen < stop:
                    found.append(attrs)
                seen += 1
            if seen >= stop:
                break
    return found, total


@dataclass(frozen=True)
class _Status:
    status_code: int


def transient(error: ClientError) -> bool:
    """Whether AWS would have the caller try again: botocore's standard retry mode's own judgement
    (throttled, or a transient code or 5xx status), and a transaction that met another
    (TransactionConflict). For the few writes worth more tries than botocore's own."""
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    context = RetryContext(
        attempt_number=1, parsed_response=error.response, http_response=_Status(status) if status else None
    )
    return (
        ThrottledRetryableChecker().is_retryable(context)
        or TransientRetryableChecker().is_retryable(context)
        or "TransactionConflict" in cancellation_codes(error)
    )
