"""The bare cost: recorded storage calls made again with boto3, against the same emulator.

Reads go where they went (the same items: key, account, settings, suppressions). Everything a
recorded sequence writes to, a table or a queue, is replaced by a copy made for the benchmark
("bench-<name>", same keys, indexes and stream; same queue attributes), so replays never touch
the service's data and never feed its dispatcher. Each replay of a put gets keys of its own (a
suffix on the item's partition key, or on the attributes given for a table), so a replay inserts
as the original did instead of overwriting one item again and again.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from botocore import xform_name
from botocore.config import Config

from bench.recorder import Call

# Like the service's own clients (postline.wiring), so both sides pay the same client costs.
BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=60)
CLONE_PREFIX = "bench-"
_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}  # moto takes any
_TABLE_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
_QUEUE_WRITES = {"SendMessage", "SendMessageBatch"}
_QUEUE_ATTRIBUTES = (  # the ones CreateQueue takes and a copy should keep (no redrive, no policy)
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "SqsManagedSseEnabled",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
)


class Emulator:
    """boto3 clients bound to the runtime's emulator (shared across threads, as the service's are)."""

    def __init__(self, endpoint_url: str, region: str = "us-east-1") -> None:
        self._session = boto3.session.Session(region_name=region, **_CREDENTIALS)
        self._endpoint_url = endpoint_url
        self._clients: dict[str, Any] = {}

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self._session.client(service, endpoint_url=self._endpoint_url, config=BOTO_CONFIG)
        return self._clients[service]


class Clones:
    """Copies of tables and queues, made on first use."""

    def __init__(self, emulator: Emulator) -> None:
        self._emulator = emulator
        self._tables: dict[str, str] = {}
        self._hash_keys: dict[str, str] = {}
        self._queues: dict[str, str] = {}

    def table(self, name: str) -> str:
        if name not in self._tables:
            db = self._emulator.client("dynamodb")
            table = db.describe_table(TableName=name)["Table"]
            clone = CLONE_PREFIX + name
            spec: dict[str, Any] = {
                "TableName": clone,
                "KeySchema": table["KeySchema"],
                "AttributeDefinitions": table["AttributeDefinitions"],
                "BillingMode": "PAY_PER_REQUEST",
            }
            indexes = [
                {"IndexName": i["IndexName"], "KeySchema": i["KeySchema"], "Projection": i["Projection"]}
                for i in table.get("GlobalSecondaryIndexes", [])
            ]
            if indexes:
                spec["GlobalSecondaryIndexes"] = indexes
            stream = table.get("StreamSpecification")
            if stream and stream.get("StreamEnabled"):
                spec["StreamSpecification"] = stream
            db.create_table(**spec)
            self._tables[name] = clone
            self._hash_keys[name] = next(k["AttributeName"] for k in table["KeySchema"] if k["KeyType"] == "HASH")
        return self._tables[name]

    def hash_key(self, name: str) -> str:
        self.table(name)
        return self._hash_keys[name]

    def queue(self, url: str) -> str:
        if url not in self._queues:
            sqs = self._emulator.client("sqs")
            found = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
            attributes = {name: found[name] for name in _QUEUE_ATTRIBUTES if name in found}
            name = CLONE_PREFIX + url.rstrip("/").rsplit("/", 1)[-1]
            self._queues[url] = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        return self._queues[url]

    @property
    def queue_urls(self) -> list[str]:
        return list(self._queues.values())


@dataclass(frozen=True)
class Prepared:
    name: str
    method: Callable[..., Any]
    params: dict[str, Any]


class Replayer:
    """Turns recorded calls into ready-to-make calls on the copies, then makes them, timed."""

    def __init__(self, emulator: Emulator, *, unique_attributes: Mapping[str, tuple[str, ...]] | None = None) -> None:
        """unique_attributes: table -> the attributes a replayed put suffixes (default: its partition key)."""
        self._emulator = emulator
        self.clones = Clones(emulator)
        self._unique = dict(unique_attributes or {})

    def prepare(self, calls: Iterable[Call], suffix: str) -> list[Prepared]:
        """The calls, aimed at the copies, puts keyed with `suffix`. Copies the parameters (untimed)."""
        recorded = list(calls)
        written_tables = {t for c in recorded if c.operation in _TABLE_WRITES for t in _tables_of(c)}
        written_queues = {c.params["QueueUrl"] for c in recorded if c.operation in _QUEUE_WRITES}
        prepared = []
        for call in recorded:
            client = self._emulator.client(call.service)
            params = copy.deepcopy(call.params)
            _drop_idempotency_tokens(client, call.operation, params)
            if call.service == "dynamodb":
                self._retarget_tables(call.operation, params, written_tables, suffix)
            if call.service == "sqs" and params.get("QueueUrl") in written_queues:
                params["QueueUrl"] = self.clones.queue(params["QueueUrl"])
            prepared.append(Prepared(call.name, getattr(client, xform_name(call.operation)), params))
        return prepared

    @staticmethod
    def run(prepared: list[Prepared]) -> float:
        """Makes the calls in order; returns the seconds they took."""
        started = time.perf_counter()
        for call in prepared:
            call.method(**call.params)
        return time.perf_counter() - started

    def _retarget_tables(self, operation: str, params: dict[str, Any], written: set[str], suffix: str) -> None:
        def target(table: str) -> str:
            return self.clones.table(table) if table in written else table

        if "TableName" in params:
            original = params["TableName"]
            params["TableName"] = target(original)
            if operation == "PutItem":
                self._make_unique(original, params["Item"], suffix)
        if "RequestItems" in params:  # BatchGetItem, BatchWriteItem
            renamed = {}
            for table, requests in params["RequestItems"].items():
                if operation == "BatchWriteItem":
                    for request in requests:
                        if "PutRequest" in request:
                            self._make_unique(table, request["PutRequest"]["Item"], suffix)
                renamed[target(table)] = requests
            params["RequestItems"] = renamed
        for item in params.get("TransactItems", []):  # TransactWriteItems, TransactGetItems
            for kind, action in item.items():
                original = action["TableName"]
                action["TableName"] = target(original)
                if kind == "Put":
                    self._make_unique(original, action["Item"], suffix)

    def _make_unique(self, table: str, item: dict[str, Any], suffix: str) -> None:
        for attribute in self._unique.get(table) or (self.clones.hash_key(table),):
            value = item.get(attribute)
            if value is not None and "S" in value:
                value["S"] = f"{value['S']}~{suffix}"


def _tables_of(call: Call) -> list[str]:
    params = call.params
    tables = [params["TableName"]] if "TableName" in params else []
    tables += list(params.get("RequestItems", {}))
    tables += [action["TableName"] for item in params.get("TransactItems", []) for action in item.values()]
    return tables


def _drop_idempotency_tokens(client: Any, operation: str, params: dict[str, Any]) -> None:
    """botocore fills idempotency tokens into the caller's parameters; a replay needs fresh ones."""
    shape = client.meta.service_model.operation_model(operation).input_shape
    for name, member in shape.members.items() if shape is not None else []:
        if member.metadata.get("idempotencyToken"):
            params.pop(name, None)
