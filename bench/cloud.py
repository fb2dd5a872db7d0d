"""The service in AWS, modeled from the AWS calls the embedded runtime records: latency and dollars.

Every AWS call an operation makes passes botocore's one entry point in this process
(bench/recorder.py), with its parameters and what it returned, so a recording of an operation
in the embedded runtime is the list of calls it makes in AWS. This module turns one into:

- modeled latency: each call takes its typical in-region latency (LATENCY_MS), and a request
  takes its critical path, as the code ran it: calls on one thread add up; the workers of one
  side-by-side run (shared/parallel.py names them "<request thread> > part<run>_<worker>") run at
  once, so the run lasts as long as its busiest worker, and runs, one after another on their
  caller's thread, add up (nested runs alike);
- modeled cost, from list prices (PRICES): DynamoDB request units from the sizes of the items
  written and read, SQS requests by 64 KB chunk, KMS, S3, Step Functions transitions, Lambda
  requests and GB-seconds (memory from template.yaml), API Gateway requests, and SES.

What the embedded runtime does differently is added by name, not hidden: live mail leaves through
SES in AWS (one SendRawEmail per message, `ses_messages`), while the runtime hands it to its
local mail sink; Lambda's own pollers make the SQS calls the runtime's pumps make (they are
billed as SQS requests); DynamoDB stream reads by Lambda triggers are free.

The tables are typical published figures, not measurements: replace LATENCY_MS with your own
X-Ray p50s to model your deployment. A model is as good as its call counts, and those are
exact: tests/e2e/test_cloud_model.py checks that a send makes the calls SEND_CALLS lists, side by
side as SEND_PATH groups them.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bench.recorder import Call
from postline.events.sharding import PARTITION_WRITE_UNITS
from postline.sending.service import STORE_CHUNK

# USD, us-east-1 list prices (on-demand, no free tier), from each service's public pricing page as
# of 2026-11. Lambda is arm64, as template.yaml deploys it.
PRICES: dict[str, float] = {
    "apigateway.request": 3.50 / 1e6,  # REST API, first 333 million a month
    "lambda.request": 0.20 / 1e6,
    "lambda.gb_second": 0.0000133334,  # arm64
    "dynamodb.write_unit": 0.625 / 1e6,  # on-demand write request unit (1 KB; 2 in a transaction)
    "dynamodb.read_unit": 0.125 / 1e6,  # on-demand read request unit (4 KB strongly consistent; 8 KB eventually)
    "sqs.request": 0.40 / 1e6,  # standard queue, per 64 KB chunk of a request's payload
    "kms.request": 0.03 / 1e4,
    "s3.write_request": 0.005 / 1e3,  # PUT, COPY, POST, LIST
    "s3.read_request": 0.0004 / 1e3,  # GET, HEAD
    "states.transition": 0.025 / 1e3,  # Standard workflows
    "scheduler.invocation": 1.00 / 1e6,  # EventBridge Scheduler
    "secretsmanager.request": 0.05 / 1e4,
    "ses.message": 0.10 / 1e3,  # outbound, per recipient
    "nat.gigabyte": 0.045,  # NAT gateway data processing: webhook POSTs leave through it (one static IP)
}

# Typical in-region latency of one call, milliseconds (p50, warm connections). Sources: DynamoDB's
# "single-digit millisecond" reads and writes (batches and transactions do more work: ~2x), the SQS
# FAQ's "tens of milliseconds" for send/receive/delete, KMS's single-digit to low-double-digit ms,
# S3's performance guide (~100-200 ms first byte for small objects on a cold prefix; warm, less),
# and X-Ray traces of Step Functions StartExecution and SES SendRawEmail in the tens of ms.
LATENCY_MS: dict[str, float] = {
    "dynamodb.GetItem": 5,
    "dynamodb.PutItem": 6,
    "dynamodb.UpdateItem": 6,
    "dynamodb.DeleteItem": 6,
    "dynamodb.Query": 8,
    "dynamodb.Scan": 20,
    "dynamodb.BatchGetItem": 10,
    "dynamodb.BatchWriteItem": 12,
    "dynamodb.TransactWriteItems": 15,
    "dynamodb.TransactGetItems": 10,
    "sqs.SendMessage": 15,
    "sqs.SendMessageBatch": 20,
    "sqs.ReceiveMessage": 15,
    "sqs.DeleteMessage": 10,
    "sqs.DeleteMessageBatch": 12,
    "sqs.ChangeMessageVisibility": 10,
    "sqs.ChangeMessageVisibilityBatch": 12,
    "kms.GenerateDataKey": 8,
    "kms.Decrypt": 8,
    "kms.Encrypt": 8,
    "kms.Sign": 10,
    "s3.PutObject": 60,
    "s3.GetObject": 30,
    "s3.HeadObject": 20,
    "s3.CreateMultipartUpload": 40,
    "s3.UploadPart": 80,
    "s3.CompleteMultipartUpload": 60,
    "stepfunctions.StartExecution": 30,
    "scheduler.CreateSchedule": 30,
    "scheduler.DeleteSchedule": 30,
    "secretsmanager.GetSecretValue": 20,
    "ses.SendRawEmail": 60,
}
DEFAULT_LATENCY_MS = 20.0  # an operation the table does not list
API_GATEWAY_MS = 15.0  # REST API's own latency in front of the function (CloudWatch IntegrationLatency vs Latency)
LAMBDA_INVOKE_MS = 5.0  # a warm invocation's own overhead
WEBHOOK_STATE_TRANSITIONS = 4  # a retry schedule that ends at its first scheduled attempt: wait, attempt, choice, end

_SUPPRESSION_KEYS = 5  # a recipient's keys in the send path's check: four types and its erased hash
_ITEM_OVERHEAD_BYTES = 100  # DynamoDB adds about this much to an item's size for indexes
_DEFAULT_ITEM_BYTES = 400  # an item read only by COUNT, whose size no response shows
_FREE_SERVICES = {"dynamodbstreams", "sts", "cloudformation", "logs"}  # triggers' stream reads are free
# Read once per function instance and cached (wiring: five minutes; the vault's sealing key: five
# minutes or 100,000 messages): a fixed cost per instance, not per operation, though a recording of
# one operation on a fresh instance shows it.
_AMORTIZED = {"secretsmanager.GetSecretValue", "kms.GenerateDataKey"}
_NO_CHARGE = {"DescribeTable", "DescribeStream", "GetQueueUrl", "GetQueueAttributes", "ListQueues", "DeleteObject"}


@dataclass
class Usage:
    """Billable units (keys of PRICES) and the calls behind them."""

    units: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def count(self, unit: str, value: float) -> None:
        self.units[unit] = self.units.get(unit, 0.0) + value

    def add(self, other: Usage) -> None:
        for name, value in other.units.items():
            self.count(name, value)
        for name, calls in other.calls.items():
            self.calls[name] = self.calls.get(name, 0) + calls

    @property
    def dollars(self) -> float:
        return sum(PRICES[name] * value for name, value in self.units.items())

    def dollars_by_service(self) -> dict[str, float]:
        by: dict[str, float] = defaultdict(float)
        for name, value in self.units.items():
            by[name.split(".")[0]] += PRICES[name] * value
        return dict(sorted(by.items(), key=lambda kv: -kv[1]))


@dataclass(frozen=True)
class Modeled:
    """One operation in AWS: how long it takes and what it costs."""

    name: str
    milliseconds: float  # the operation's modeled time, from the caller's request to its answer
    usage: Usage
    invocations: dict[str, int]  # function -> invocations

    @property
    def dollars(self) -> float:
        return self.usage.dollars


def item_bytes(item: Mapping[str, Any]) -> int:
    """DynamoDB's size of an item in wire form: attribute names plus values (the published rules:
    strings and binary by length, numbers ~1 byte per two digits, lists and maps 3 bytes plus items)."""
    return sum(len(name.encode()) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: Mapping[str, Any]) -> int:
    ((kind, data),) = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "B":
        return len(data) if isinstance(data, bytes) else math.ceil(len(str(data)) * 3 / 4)  # base64 on the wire
    if kind == "N":
        return len(str(data).lstrip("-").replace(".", "")) // 2 + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(_value_bytes({kind[0]: member}) for member in data)
    if kind == "L":
        return 3 + sum(1 + _value_bytes(member) for member in data)
    if kind == "M":
        return 3 + sum(len(name.encode()) + 1 + _value_bytes(member) for name, member in data.items())
    return len(json.dumps(data))


def write_units(size: int) -> int:
    """An item's write units at `size` bytes (its own write, no index)."""
    return _write_units(size)


def _write_units(size: int) -> int:
    return max(1, math.ceil((size + _ITEM_OVERHEAD_BYTES) / 1024))


def _read_units(size: int, consistent: bool) -> float:
    units = max(1, math.ceil(size / 4096))
    return units if consistent else units / 2


class _Sizes:
    """Item sizes seen in a recording (written or read), by table and key, to price updates: an
    UpdateItem is billed for the whole item, which only an earlier write or read of it shows."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._by_table: dict[str, list[int]] = defaultdict(list)

    def saw(self, table: str, item: Mapping[str, Any]) -> None:
        self._by_key[(table, _key_of(item))] = item
        self._by_table[table].append(item_bytes(item))

    def of(self, table: str, key: Mapping[str, Any]) -> int:
        return item_bytes(self.item(table, key))

    def item(self, table: str, key: Mapping[str, Any]) -> Mapping[str, Any]:
        """The item as last seen ({} when never seen)."""
        return self._by_key.get((table, _key_of(key)), {})

    def mean(self, table: str) -> int:
        sizes = self._by_table.get(table)
        return round(sum(sizes) / len(sizes)) if sizes else _DEFAULT_ITEM_BYTES


def _key_of(item: Mapping[str, Any]) -> str:
    return json.dumps({name: item[name] for name in ("pk", "sk") if name in item}, sort_keys=True, default=str)


def usage_of(
    calls: Iterable[Call], *, ses_messages: int = 0, indexes: Mapping[str, tuple[Index, ...]] | None = None
) -> Usage:
    """The billable units of these calls (and of `ses_messages` messages sent through SES); with the
    template's `indexes` (table_indexes), the global secondary indexes' writes too."""
    calls = list(calls)
    sizes = _Sizes()
    for call in calls:  # sizes first: an update before the recording's read of the same item is still priced
        _learn_sizes(call, sizes)
    usage = Usage()
    for call in calls:
        if call.service in _FREE_SERVICES or call.operation in _NO_CHARGE or call.name in _AMORTIZED:
            continue
        if call.service == "sqs" and call.operation == "ReceiveMessage" and not (call.response or {}).get("Messages"):
            continue  # an idle poll: the pollers' fixed cost, not this operation's
        usage.calls[call.name] = usage.calls.get(call.name, 0) + 1
        for unit, value in _units(call, sizes).items():
            usage.count(unit, value)
        if indexes and call.service == "dynamodb":
            usage.count("dynamodb.write_unit", _index_write_units(call, sizes, indexes))
    if ses_messages:
        usage.calls["ses.SendRawEmail"] = usage.calls.get("ses.SendRawEmail", 0) + ses_messages
        usage.count("ses.message", ses_messages)
    return usage


def _learn_sizes(call: Call, sizes: _Sizes) -> None:
    params, response = call.params, call.response or {}
    if call.service != "dynamodb":
        return
    if call.operation == "PutItem":
        sizes.saw(params["TableName"], params["Item"])
    elif call.operation == "BatchWriteItem":
        for table, requests in params["RequestItems"].items():
            for request in requests:
                if "PutRequest" in request:
                    sizes.saw(table, request["PutRequest"]["Item"])
    elif call.operation == "TransactWriteItems":
        for entry in params["TransactItems"]:
            if "Put" in entry:
                sizes.saw(entry["Put"]["TableName"], entry["Put"]["Item"])
    elif call.operation == "GetItem" and "Item" in response:
        sizes.saw(params["TableName"], response["Item"])
    elif call.operation == "BatchGetItem":
        for table, items in response.get("Responses", {}).items():
            for item in items:
                sizes.saw(table, item)
    elif call.operation in ("Query", "Scan"):
        for item in response.get("Items", []):
            sizes.saw(params["TableName"], item)


def _units(call: Call, sizes: _Sizes) -> dict[str, float]:
    service, operation, params, response = call.service, call.operation, call.params, call.response or {}
    if service == "dynamodb":
        return {name: value for name, value in _dynamodb_units(operation, params, response, sizes).items() if value}
    if service == "sqs":
        return {"sqs.request": _sqs_requests(operation, params)}
    if service == "kms":
        return {"kms.request": 1}
    if service == "s3":
        kind = "s3.read_request" if operation.startswith(("Get", "Head")) else "s3.write_request"
        return {kind: 1}
    if service == "stepfunctions":
        return {"states.transition": WEBHOOK_STATE_TRANSITIONS} if operation == "StartExecution" else {}
    if service == "scheduler":
        return {"scheduler.invocation": 1} if operation == "CreateSchedule" else {}  # the schedule fires once
    if service == "secretsmanager":
        return {"secretsmanager.request": 1}
    if service in ("ses", "sesv2") and operation in ("SendRawEmail", "SendEmail"):
        return {"ses.message": 1}
    return {}


def _dynamodb_units(
    operation: str, params: dict[str, Any], response: dict[str, Any], sizes: _Sizes
) -> dict[str, float]:
    writes = sum(write.units for write in _base_writes(operation, params, sizes))
    reads = 0.0
    if operation == "GetItem":
        reads = _read_units(item_bytes(response.get("Item", {})), bool(params.get("ConsistentRead")))
    elif operation == "BatchGetItem":
        for table, request in params["RequestItems"].items():
            consistent = bool(request.get("ConsistentRead"))
            found = response.get("Responses", {}).get(table, [])
            missing = max(0, len(request["Keys"]) - len(found))  # a missing item still costs the minimum
            reads += sum(_read_units(item_bytes(item), consistent) for item in found)
            reads += missing * _read_units(0, consistent)
    elif operation == "TransactGetItems":
        reads = 2.0 * len(params["TransactItems"])
    elif operation in ("Query", "Scan"):
        # Billed on what was read before any filter: ScannedCount items, summed then rounded up to 4 KB.
        scanned = int(response.get("ScannedCount", response.get("Count", 0)))
        items = response.get("Items")
        read = (
            sum(item_bytes(item) for item in items)
            if items is not None and len(items) == scanned
            else scanned * sizes.mean(params["TableName"])
        )
        reads = _read_units(read, bool(params.get("ConsistentRead")))
    return {"dynamodb.write_unit": writes, "dynamodb.read_unit": reads}


@dataclass(frozen=True)
class ItemWrite:
    """One item's write units in one call: to the base table (index None) or to one of its indexes."""

    table: str  # the table's name as called
    item: Mapping[str, Any]  # the item written (a put's), or as last seen (an update's or delete's key)
    units: float
    operation: str  # PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems
    index: str | None = None


def _base_writes(operation: str, params: dict[str, Any], sizes: _Sizes) -> list[ItemWrite]:
    """The base-table writes of one DynamoDB call, item by item."""
    out: list[ItemWrite] = []
    if operation == "PutItem":
        out.append(ItemWrite(params["TableName"], params["Item"], _write_units(item_bytes(params["Item"])), operation))
    elif operation in ("UpdateItem", "DeleteItem"):
        table, stored = params["TableName"], sizes.item(params["TableName"], params["Key"])
        out.append(ItemWrite(table, stored or params["Key"], _write_units(item_bytes(stored)), operation))
    elif operation == "BatchWriteItem":
        for table, requests in params["RequestItems"].items():
            for request in requests:
                put = request.get("PutRequest")
                item = put["Item"] if put else sizes.item(table, request["DeleteRequest"]["Key"])
                item = item or request.get("DeleteRequest", {}).get("Key", {})
                size = item_bytes(put["Item"]) if put else sizes.of(table, request["DeleteRequest"]["Key"])
                out.append(ItemWrite(table, item, _write_units(size), operation))
    elif operation == "TransactWriteItems":
        for entry in params["TransactItems"]:
            ((kind, body),) = entry.items()
            table = body["TableName"]
            item = body["Item"] if kind == "Put" else (sizes.item(table, body["Key"]) or body["Key"])
            size = item_bytes(body["Item"]) if kind == "Put" else sizes.of(table, body["Key"])
            out.append(ItemWrite(table, item, 2 * _write_units(size), operation))  # a transaction's write costs twice
    return out


def _index_write_units(call: Call, sizes: _Sizes, indexes: Mapping[str, tuple[Index, ...]]) -> float:
    return sum(write.units for write in _index_writes(call, sizes, indexes))


def _index_writes(call: Call, sizes: _Sizes, indexes: Mapping[str, tuple[Index, ...]]) -> list[ItemWrite]:
    """The writes DynamoDB makes to the global secondary indexes of the items this call writes: a put
    or delete of an item holding an index's keys is a write of its projection there; an update is one
    when it changes a projected attribute, two (a delete and a put) when it changes the index's key,
    one (a delete) when it removes the key from an item that held it, none from one that did not.
    Not doubled in a transaction: only the base table's writes are (an assumption the pricing page
    does not settle)."""
    operation, params = call.operation, call.params
    writes: list[tuple[str, str, Mapping[str, Any]]] = []  # (table, kind, params of one item's write)
    if operation == "PutItem":
        writes.append((params["TableName"], "Put", params))
    elif operation in ("UpdateItem", "DeleteItem"):
        writes.append((params["TableName"], operation.removesuffix("Item"), params))
    elif operation == "BatchWriteItem":
        for table, requests in params["RequestItems"].items():
            for request in requests:
                ((kind, body),) = request.items()
                writes.append((table, kind.removesuffix("Request"), body))
    elif operation == "TransactWriteItems":
        for entry in params["TransactItems"]:
            ((kind, body),) = entry.items()
            if kind != "ConditionCheck":
                writes.append((body["TableName"], kind, body))
    out: list[ItemWrite] = []
    for table, kind, body in writes:
        table_indexes = next((found for name, found in indexes.items() if table.endswith(name)), ())
        if kind == "Put":
            item = body["Item"]
            out += [
                ItemWrite(table, item, _write_units(i.projected_bytes(item)), operation, i.name)
                for i in table_indexes
                if _holds(item, i)
            ]
            continue
        stored = sizes.item(table, body["Key"])
        seen = stored or body["Key"]  # what labels it
        if kind == "Delete":
            out += [
                ItemWrite(table, seen, _write_units(i.projected_bytes(stored)), operation, i.name)
                for i in table_indexes
                if _holds(stored, i)
            ]
            continue
        touched = _named(body)
        removed = _removed(body)
        for index in table_indexes:
            if touched & set(index.keys) and touched & set(index.keys) <= removed:  # its key removed
                if _holds(stored, index):  # out of the index; from an item that never held it, nothing
                    out.append(
                        ItemWrite(table, seen, _write_units(index.projected_bytes(stored)), operation, index.name)
                    )
                continue
            if touched & set(index.keys):  # its key moves: out of the index under the old key, in under the new
                units = (2 if _holds(stored, index) else 1) * _write_units(index.projected_bytes(stored))
                out.append(ItemWrite(table, seen, units, operation, index.name))
            elif _holds(stored, index) and (index.projection == "ALL" or touched & index.include):
                out.append(ItemWrite(table, seen, _write_units(index.projected_bytes(stored)), operation, index.name))
    return out


# --- write units by item ---------------------------------------------------------------------

# What an item is, by its partition key's first part (and, for a few, its sort key's): the labels
# of the model's by-item breakdown.
ITEM_KINDS: dict[str, str] = {
    "MSG": "message",
    "EVT": "event",
    "TAG": "event's tag item",
    "MET": "metrics roll-up hour item",
    "EVC": "events-query counter",
    "MWM": "metrics roll-up stream watermark",
    "AWM": "activity stream watermark",
    "ACTIVITY": "recipient activity",
    "MLAG": "roll-up consumer's lag",
    "MUQ": "unique open/click pair",
    "REP": "reputation claim",
    "WHD": "webhook delivery",
    "USAGE": "quota counter",
    "RATE": "request window",
    "ACCT": "account resource",
}
_SORT_KEY_KINDS = {"MET", "EVC", "ACCT"}  # told apart by their sort key's first part
_OWN_SORT_KEYS = {("MSG", "BODY"): "message body"}  # items beside another kind's, named on their own


def item_label(table: str, item: Mapping[str, Any], index: str | None = None) -> str:
    """`<table logical id>: <item kind>[ <sort key kind>][ -> <index>]` (the logical id: the part
    of the table's name after the stack's)."""
    name = table.rsplit("-", 1)[-1] if "-" in table else table
    pk = str(next(iter(item.get("pk", {}).values()), "")) if item.get("pk") else ""
    prefix = pk.split("#", 1)[0]
    kind = ITEM_KINDS.get(prefix, prefix or "?")
    sk = str(next(iter(item.get("sk", {}).values()), "")) if item.get("sk") else ""
    part = sk.split("#", 1)[0]
    kind = _OWN_SORT_KEYS.get((prefix, part), kind)
    if prefix in _SORT_KEY_KINDS:
        kind += f" {part}" if prefix != "EVC" or part == "COVER" else f" {part} ({'hours' if part == 'H' else 'day'})"
    label = f"{name}: {kind}"
    return f"{label} -> {index}" if index else label


@dataclass
class ItemUnits:
    """Write units to one kind of item (or its index) in a recording, and how they were written."""

    units: float = 0.0
    writes: int = 0
    operations: dict[str, int] = field(default_factory=dict)  # a plain dict: the bench's JSON holds it


def write_units_by_item(
    calls: Iterable[Call], indexes: Mapping[str, tuple[Index, ...]] | None = None
) -> dict[str, ItemUnits]:
    """The DynamoDB write units of these calls by item kind (item_label), base tables and indexes,
    largest first: their sum is the recording's dynamodb.write_unit (usage_of with the same indexes)."""
    calls = [c for c in calls if c.service == "dynamodb" and c.operation not in _NO_CHARGE]
    sizes = _Sizes()
    for call in calls:
        _learn_sizes(call, sizes)
    by: dict[str, ItemUnits] = defaultdict(ItemUnits)
    for call in calls:
        writes = _base_writes(call.operation, call.params, sizes)
        if indexes:
            writes += _index_writes(call, sizes, indexes)
        for write in writes:
            entry = by[item_label(write.table, write.item, write.index)]
            entry.units += write.units
            entry.writes += 1
            entry.operations[write.operation] = entry.operations.get(write.operation, 0) + 1
    return dict(sorted(by.items(), key=lambda kv: (-kv[1].units, kv[0])))


# --- one account's ceiling: the write units its busiest partition takes a message -----------------

EVENTS_TABLE = "EventsTable"
# index keys of one account's day (by_message, by_recipient spread by key)
_HOT_INDEXES = ("type_key", "tag_key")


def partition_write_units(calls: Iterable[Call], *, table: str = EVENTS_TABLE) -> dict[str, float]:
    """Write units each key of the events table took from these calls: the table's partition keys
    (events, tag items) and the by_type and by_tag indexes' keys (their projection's units), a transaction's
    writes counted twice as DynamoDB consumes them. One delivered message's calls give what one
    message puts on each of its account's day keys (cloud_workloads: the ceiling per account)."""
    taken: dict[str, float] = defaultdict(float)
    for call in calls:
        if call.service != "dynamodb":
            continue
        for name, item, factor in _puts(call):
            if not name.endswith(table):
                continue
            units = factor * _write_units(item_bytes(item))
            taken[f"pk {item['pk']['S']}"] += units
            for attribute in _HOT_INDEXES:
                if attribute in item:
                    keys = {"pk", "sk", attribute}
                    taken[f"{attribute} {item[attribute]['S']}"] += _write_units(
                        item_bytes({k: v for k, v in item.items() if k in keys})
                    )
    return dict(taken)


def _puts(call: Call) -> list[tuple[str, Mapping[str, Any], int]]:
    params = call.params
    if call.operation == "PutItem":
        return [(params["TableName"], params["Item"], 1)]
    if call.operation == "BatchWriteItem":
        return [
            (table, request["PutRequest"]["Item"], 1)
            for table, requests in params["RequestItems"].items()
            for request in requests
            if "PutRequest" in request
        ]
    if call.operation == "TransactWriteItems":
        return [
            (entry["Put"]["TableName"], entry["Put"]["Item"], 2) for entry in params["TransactItems"] if "Put" in entry
        ]
    return []


def ceiling_per_account(units_per_message: float, shards: int) -> float:
    """Messages a second one account reaches when each message puts `units_per_message` on its busiest
    key and its messages spread over `shards` keys of that kind (events/sharding.py), each taking
    PARTITION_WRITE_UNITS a second."""
    return shards * PARTITION_WRITE_UNITS / units_per_message if units_per_message else math.inf


def pooled_ms(calls: Iterable[Call], *, workers: int, pool_prefix: str) -> float:
    """The calls' modeled time when those on threads named `pool_prefix`* run `workers` at a time
    (events/store.py's _PARALLEL pool: each next call to the first free worker, in the order they
    started) and the others one after another."""
    calls = sorted(calls, key=lambda c: c.started)
    own = sum(call_ms(c) for c in calls if not c.thread.startswith(pool_prefix))
    free = [0.0] * workers
    for call in (c for c in calls if c.thread.startswith(pool_prefix)):
        soonest = min(range(workers), key=free.__getitem__)
        free[soonest] += call_ms(call)
    return own + max(free)


def _holds(item: Mapping[str, Any], index: Index) -> bool:
    return all(key in item for key in index.keys)


def _removed(update: Mapping[str, Any]) -> set[str]:
    """The attribute names an update expression's REMOVE clause names."""
    expression = str(update.get("UpdateExpression", ""))
    clause = re.search(r"\bREMOVE\b(.*?)(?:\b(?:SET|ADD|DELETE)\b|$)", expression)
    if clause is None:
        return set()
    names = update.get("ExpressionAttributeNames", {})
    return {names.get(word, word) for word in re.findall(r"#?[A-Za-z_][A-Za-z0-9_]*", clause.group(1))}


def _named(update: Mapping[str, Any]) -> set[str]:
    """The attribute names an update expression writes (by placeholder or as written)."""
    expression = re.sub(r":\w+", " ", str(update.get("UpdateExpression", "")))  # values, not names
    names = update.get("ExpressionAttributeNames", {})
    words = set(re.findall(r"#?[A-Za-z_][A-Za-z0-9_]*", expression)) - {"SET", "REMOVE", "ADD", "DELETE"}
    return {names.get(word, word) for word in words}


def _sqs_requests(operation: str, params: dict[str, Any]) -> int:
    if operation == "SendMessage":
        return max(1, math.ceil(len(params["MessageBody"].encode()) / 65_536))
    if operation == "SendMessageBatch":
        return max(1, math.ceil(sum(len(e["MessageBody"].encode()) for e in params["Entries"]) / 65_536))
    return 1


# --- latency -----------------------------------------------------------------------------------


def call_ms(call: Call) -> float:
    return LATENCY_MS.get(call.name, DEFAULT_LATENCY_MS)


def request_ms(calls: Iterable[Call], *, compute_ms: float = 0.0) -> float:
    """One API request's modeled time: the gateway, the invocation, its calls' critical path
    (`critical_ms`) and its own work between them."""
    return API_GATEWAY_MS + LAMBDA_INVOKE_MS + critical_ms(calls) + compute_ms


def sequential_ms(calls: Iterable[Call], *, compute_ms: float = 0.0) -> float:
    """The same request were its calls made one after another (what it took before they went side by side)."""
    return API_GATEWAY_MS + LAMBDA_INVOKE_MS + sum(map(call_ms, calls)) + compute_ms


_PART = " > part"  # shared/parallel.run_each's workers: "<caller> > part<run>_<worker>"


def critical_ms(calls: Iterable[Call]) -> float:
    """The calls' critical path as the code made them: a thread's own calls one after another (a
    sum); each side-by-side run it waited for (its workers at once: the busiest), nested alike."""
    own: dict[tuple[str, ...], float] = defaultdict(float)
    for call in calls:
        own[tuple(call.thread.split(_PART))] += call_ms(call)
    return sum(_path_ms(own, root) for root in {path[:1] for path in own})


def _path_ms(own: Mapping[tuple[str, ...], float], path: tuple[str, ...]) -> float:
    depth = len(path)
    runs: dict[str, list[float]] = defaultdict(list)
    for worker in {p[: depth + 1] for p in own if len(p) > depth and p[:depth] == path}:
        run = worker[-1].rpartition("_")[0]
        runs[run].append(_path_ms(own, worker))
    return own.get(path, 0.0) + sum(max(workers) for workers in runs.values())


def compute_ms(calls: list[Call]) -> float:
    """The request's own work outside AWS calls, as measured locally: the span of its calls less
    the time inside its own thread's calls and inside its side-by-side runs (a lower bound: parsing
    before the first call and serializing after the last are not seen)."""
    if len(calls) < 2:
        return 0.0
    span = max(c.started + c.seconds for c in calls) - min(c.started for c in calls)
    own = sum(c.seconds for c in calls if _PART not in c.thread)
    runs: dict[tuple[str, str], list[Call]] = defaultdict(list)
    for call in calls:
        if _PART in call.thread:
            root, worker = call.thread.split(_PART)[:2]
            runs[(root, worker.rpartition("_")[0])].append(call)
    waited = sum(max(c.started + c.seconds for c in run) - min(c.started for c in run) for run in runs.values())
    return max(0.0, (span - own - waited) * 1000)


# --- Lambda ------------------------------------------------------------------------------------


def function_memory(template: Path) -> dict[str, int]:
    """Each function's MemorySize (MB) in the template, SAM's default 128 where it sets none."""
    document = yaml.safe_load(template.read_text())
    default = int(document.get("Globals", {}).get("Function", {}).get("MemorySize", 128))
    return {
        name: int(resource.get("Properties", {}).get("MemorySize", default))
        for name, resource in document["Resources"].items()
        if resource.get("Type") == "AWS::Serverless::Function"
    }


@dataclass(frozen=True)
class Index:
    """A global secondary index: DynamoDB writes it, billed as a write of the projected item, for
    every base-table write of an item holding its key attributes (and a delete for one that held them)."""

    name: str
    keys: tuple[str, ...]  # the index's key attributes
    projection: str  # ALL, KEYS_ONLY or INCLUDE
    include: frozenset[str] = frozenset()

    def projected_bytes(self, item: Mapping[str, Any]) -> int:
        if self.projection == "ALL":
            return item_bytes(item)
        kept = {*self.keys, "pk", "sk", *self.include}
        return item_bytes({name: value for name, value in item.items() if name in kept})


def table_indexes(template: Path) -> dict[str, tuple[Index, ...]]:
    """Each table's global secondary indexes in the template, by logical id (a deployed table's name
    ends with it, as the embedded runtime names them)."""
    document = yaml.safe_load(template.read_text())
    indexes: dict[str, tuple[Index, ...]] = {}
    for name, resource in document["Resources"].items():
        if resource.get("Type") != "AWS::DynamoDB::Table":
            continue
        found = []
        for index in resource.get("Properties", {}).get("GlobalSecondaryIndexes", []):
            projection = index.get("Projection", {})
            found.append(
                Index(
                    index["IndexName"],
                    tuple(key["AttributeName"] for key in index["KeySchema"]),
                    projection.get("ProjectionType", "ALL"),
                    frozenset(projection.get("NonKeyAttributes", [])),
                )
            )
        indexes[name] = tuple(found)
    return indexes


def function_of(thread: str, memory: Mapping[str, int]) -> str | None:
    """The function a call's thread ran in: the embedded runtime names an invocation's thread
    "<caller> > <stack>-<LogicalId>" (and a request's workers add "> part_N")."""
    for part in reversed(thread.split(" > ")[1:]):  # the first part is the caller (a pump, a request thread)
        for name in memory:
            if part.endswith(name):
                return name
    return None


def invocations(calls: Iterable[Call], memory: Mapping[str, int]) -> dict[tuple[str, int], list[Call]]:
    """The calls of each Lambda invocation, by (function, invocation thread's serial). A request's
    workers ("<thread> > part<run>_<worker>") belong to the invocation they worked for (the recorder's
    caller_serial; without it, the latest invocation on that thread's name)."""
    latest: dict[str, int] = {}
    groups: dict[tuple[str, int], list[Call]] = defaultdict(list)
    for call in sorted(calls, key=lambda c: c.started):
        function = function_of(call.thread, memory)
        if function is None:
            continue  # a pump's poll, the ticker, the bench itself
        if " > part" in call.thread:
            serial = call.caller_serial or latest.get(call.thread.split(" > part")[0], call.thread_serial)
        else:
            latest[call.thread] = serial = call.thread_serial
        groups[(function, serial)].append(call)
    return dict(groups)


def lambda_usage(calls: list[Call], memory: Mapping[str, int]) -> tuple[Usage, dict[str, int]]:
    """Requests and GB-seconds: each invocation billed for its calls' modeled time plus its
    measured compute, rounded up to the millisecond."""
    usage = Usage()
    counts: Counter[str] = Counter()
    for (function, _), group in invocations(calls, memory).items():
        counts[function] += 1
        milliseconds = request_ms(group, compute_ms=compute_ms(group)) - API_GATEWAY_MS
        usage.count("lambda.request", 1)
        usage.count("lambda.gb_second", math.ceil(milliseconds) / 1000 * memory[function] / 1024)
    return usage, dict(counts)


def model(
    name: str,
    calls: list[Call],
    memory: Mapping[str, int],
    *,
    api_requests: int = 0,
    ses_messages: int = 0,
    indexes: Mapping[str, tuple[Index, ...]] | None = None,
) -> Modeled:
    """An operation's recorded calls, modeled in AWS (`indexes`: the template's, table_indexes)."""
    usage = usage_of(calls, ses_messages=ses_messages, indexes=indexes)
    lambdas, counts = lambda_usage(calls, memory)
    usage.add(lambdas)
    if api_requests:
        usage.count("apigateway.request", api_requests)
    milliseconds = 0.0
    if api_requests == 1:  # one request: its time as its caller waits for it
        request = [call for group in invocations(calls, memory).values() for call in group]
        milliseconds = request_ms(request, compute_ms=compute_ms(request))
    return Modeled(name, milliseconds, usage, counts)


# --- the calls an operation makes (checked against recordings) ----------------------------------

# POST /v3/messages, one recipient, no Idempotency-Key, with what each call is for, in the order
# the code makes them on a warm instance that admitted its key before: side by side the admission
# (the key and its account beside the account's request window: auth/speculation.py), the
# platform's pause, the recipient's suppressions and the quota's reservation, then the message. Its
# sealing key comes from the instance's cache (kms.GenerateDataKey: _AMORTIZED). Its dispatch job is
# the outbox's (SendOutboxFunction, from the messages table's stream), priced with the delivery.
SEND_CALLS: dict[str, tuple[int, str]] = {
    "dynamodb.BatchGetItem": (2, "the key and its account (auth); the recipient's suppressions"),
    "dynamodb.UpdateItem": (2, "the account's per-minute request window; the month's and day's quota (conditional)"),
    "dynamodb.GetItem": (1, "the platform's sending pause (no list lookup: the account has no lists)"),
    "dynamodb.BatchWriteItem": (1, "the message, its body's item and its queued event"),
}
# The same calls as the code makes them on a warm instance: each group side by side, the groups one
# after another (tests/e2e/test_cloud_model.py checks a real send's critical path against it).
SEND_PATH: tuple[tuple[str, ...], ...] = (
    # the key and its account; the request window (the admission, on the key's remembered principal);
    # the platform's pause; the recipient's suppressions; the quota's reservation
    (
        "dynamodb.BatchGetItem",
        "dynamodb.UpdateItem",
        "dynamodb.GetItem",
        "dynamodb.BatchGetItem",
        "dynamodb.UpdateItem",
    ),
    ("dynamodb.BatchWriteItem",),  # the message, its body's item and its queued event (once admitted)
)


def path_ms(path: Iterable[Iterable[str]]) -> float:
    """Groups of calls made side by side, one group after another: the sum of each group's slowest."""
    return sum(max(LATENCY_MS.get(name, DEFAULT_LATENCY_MS) for name in group) for group in path)


# A send's modeled p50 (issue 33, aim 6): the published API acceptance p50s are 22 ms for SendGrid,
# 33 ms for Postmark, ~79 ms for Resend, 127-144 ms for SES.
SEND_AIM_MS = 50.0


def batch_calls(recipients: int, tags: int = 0) -> dict[str, int]:
    """POST /v3/messages.batch of `recipients` distinct deliverable recipients carrying `tags` tags,
    no Idempotency-Key, its sealing key cached: the send's calls, with suppressions read 100 keys (20 recipients: four
    types and the erased address's key each) a call, messages committed in chunks of STORE_CHUNK
    (50): a chunk's items (a message, its body's item, its queued event and, with several distinct
    tags, one item per tag for the tag filter; one tag: the by_tag index) written 25 a
    BatchWriteItem. The jobs are the outbox's (off the request: priced with the delivery)."""
    chunks = [min(STORE_CHUNK, recipients - start) for start in range(0, recipients, STORE_CHUNK)]
    tags = tags if tags > 1 else 0
    return {
        "dynamodb.BatchGetItem": 1 + math.ceil(recipients * _SUPPRESSION_KEYS / 100),
        "dynamodb.UpdateItem": 2,  # the request window; the quota (one conditional write)
        "dynamodb.GetItem": 1,  # a lone recipient is looked up as a list's address only if the account has lists
        "dynamodb.BatchWriteItem": sum(math.ceil(size * (3 + tags) / 25) for size in chunks),
    }


# --- the first webhook attempt's latency ------------------------------------------------------

# Lambda's poller for a DynamoDB stream: "Lambda polls shards in your DynamoDB stream for records at
# a base rate of 4 times per second. When records are available, Lambda invokes your function and
# waits for the result. If processing succeeds, Lambda resumes polling until it receives more
# records" (Lambda developer guide, "Polling and batching streams"). So an event written to an idle
# shard waits for the next poll, up to 250 ms; behind a running invocation, for its end.
STREAM_IDLE_POLL_MS = 250.0
# The first attempt's POST reaching a receiver in or near the region, over the fan-out's kept-alive
# connection pool (webhook_delivery/http_client.py): an assumption, not a published figure.
RECEIVER_MS = 10.0
FAN_OUT_FUNCTION = "WebhookFanoutFunction"
# The fan-out's AWS calls, in order (webhook_delivery/service.py fan_out): one Query of the
# account's enabled endpoints per invocation, then per delivery, in one of its 16 attempt workers,
# the delivery opened (a conditional PutItem, outside the by_endpoint index) before the POST, then
# its attempt recorded (PutItem, which puts it in the index) after it; the endpoint's failure
# streak is cleared (an UpdateItem) only when the endpoint, as the Query read it, had one: not in
# the usual delivery. The signing key is read once per container (cached), so not per event.
FAN_OUT_PER_INVOCATION = ("dynamodb.Query",)
FAN_OUT_BEFORE_POST = ("dynamodb.PutItem",)
FAN_OUT_AFTER_POST = ("dynamodb.PutItem",)
FAN_OUT_WORKERS = 16  # _CONCURRENT_ATTEMPTS


def fan_out_calls(deliveries: int) -> dict[str, int]:
    """The fan-out's calls for `deliveries` deliveries, as the latency model counts them (the
    endpoints Query is per invocation, and a message's every event has one: not counted here)."""
    calls: Counter[str] = Counter()
    for _ in range(deliveries):
        calls.update(FAN_OUT_BEFORE_POST + FAN_OUT_AFTER_POST)
    return dict(sorted(calls.items()))


@dataclass(frozen=True)
class StreamMapping:
    """A DynamoDB stream's event source mapping, as the template writes it."""

    batch_size: int
    window_ms: float  # MaximumBatchingWindowInSeconds
    parallelization: int  # ParallelizationFactor: concurrent batches per shard, one per partition key

    @classmethod
    def of(cls, template: Path, function: str = FAN_OUT_FUNCTION) -> StreamMapping:
        document = yaml.safe_load(template.read_text())
        for event in document["Resources"][function]["Properties"]["Events"].values():
            if event.get("Type") == "DynamoDB":
                props = event["Properties"]
                return cls(
                    batch_size=int(props.get("BatchSize", 100)),
                    window_ms=float(props.get("MaximumBatchingWindowInSeconds", 0)) * 1000,
                    parallelization=int(props.get("ParallelizationFactor", 1)),
                )
        raise ValueError(f"{function} has no DynamoDB stream event")


@dataclass(frozen=True)
class WebhookLatency:
    rate: float  # events a second, one account
    p50_ms: float
    p99_ms: float
    invocation_ms: float  # a one-event invocation, POST and bookkeeping included


def _ms_of(operations: Iterable[str]) -> float:
    return sum(LATENCY_MS.get(name, DEFAULT_LATENCY_MS) for name in operations)


def webhook_latency(mapping: StreamMapping, rate: float, events: int = 200, phases: int = 25) -> WebhookLatency:
    """Modeled time from an event's write to its first webhook attempt reaching the receiver, for
    `events` events of one account written `rate` a second (as bench section e writes them).

    One account's events share a partition key (its day's partition), so whatever the
    ParallelizationFactor they go through one batch at a time, in order: the model runs one poller.
    It polls, invokes the function with what it found (up to BatchSize, after the batching window),
    waits for the invocation, and polls again at once; a poll that finds nothing waits
    STREAM_IDLE_POLL_MS. An invocation: LAMBDA_INVOKE_MS, the endpoints Query, then its deliveries in
    waves of FAN_OUT_WORKERS, each wave the delivery's PutItem, the POST (RECEIVER_MS) and the two
    writes after it. The events' arrival is shifted against the poller's phase `phases` times and
    the latencies pooled. Stream propagation (write to readable record) is not published, and left out."""
    before = LAMBDA_INVOKE_MS + _ms_of(FAN_OUT_PER_INVOCATION)
    wave = _ms_of(FAN_OUT_BEFORE_POST) + RECEIVER_MS + _ms_of(FAN_OUT_AFTER_POST)
    latencies: list[float] = []
    for phase in range(phases):
        arrivals = [phase * STREAM_IDLE_POLL_MS / phases + index * 1000 / rate for index in range(events)]
        taken, clock = 0, 0.0
        while taken < len(arrivals):
            ready = [at for at in arrivals[taken : taken + mapping.batch_size] if at <= clock]
            if not ready:
                clock += STREAM_IDLE_POLL_MS
                continue
            if mapping.window_ms and len(ready) < mapping.batch_size:
                clock += mapping.window_ms
                ready = [at for at in arrivals[taken : taken + mapping.batch_size] if at <= clock]
            for position, arrived in enumerate(ready):
                reached = clock + before + (position // FAN_OUT_WORKERS) * wave + _ms_of(FAN_OUT_BEFORE_POST)
                latencies.append(reached + RECEIVER_MS - arrived)
            taken += len(ready)
            clock += before + math.ceil(len(ready) / FAN_OUT_WORKERS) * wave
    ordered = sorted(latencies)
    return WebhookLatency(
        rate=rate,
        p50_ms=ordered[len(ordered) // 2],
        p99_ms=ordered[min(len(ordered) - 1, math.ceil(len(ordered) * 0.99) - 1)],
        invocation_ms=before + wave,
    )
