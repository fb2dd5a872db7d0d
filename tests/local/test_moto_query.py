"""The emulator's moto patch (devtools/moto_patches/moto_query.py): a Query answers exactly as moto's own
query does, while reading only the partition (or index key) it names.

Randomized against moto in-process: tables with a range key, without one, with numeric range keys,
with GSIs (ALL, KEYS_ONLY, INCLUDE; with and without a range key; sparse) and an LSI, changed by
every kind of write (put, update that moves an item between index keys, delete, batch writes,
transactions that succeed and that roll back) between queries. Each Query is made twice, through
moto's own query (`bypassed`) and through the patch, and every page of the answer must match:
items in order, Count, ScannedCount, LastEvaluatedKey (Limit, 1 MB pages, ExclusiveStartKey,
ScanIndexForward, key conditions, FilterExpression, Select COUNT, ProjectionExpression).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto.dynamodb.models.table import Table

from devtools.moto_patches import moto_query, moto_transactions
from tests.aws_stack import InProcessStack

SEEDS = range(6)
BIG = "x" * 150_000  # a few of these make a partition span several 1 MB pages


@pytest.fixture
def db(stack: InProcessStack) -> Iterator[Any]:
    with moto_transactions.installed(), moto_query.installed():
        yield stack.client("dynamodb")


def _s(name: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": "S"}


def _n(name: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": "N"}


def _keys(hash_name: str, range_name: str | None = None) -> list[dict[str, str]]:
    keys = [{"AttributeName": hash_name, "KeyType": "HASH"}]
    if range_name:
        keys.append({"AttributeName": range_name, "KeyType": "RANGE"})
    return keys


def _make_tables(db: Any, suffix: str) -> dict[str, dict[str | None, Any]]:
    """name -> what queries may use: hash/range key per index (None: the table)."""
    ranged, single, numeric = f"ranged-{suffix}", f"single-{suffix}", f"numeric-{suffix}"
    db.create_table(
        TableName=ranged,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[_s("pk"), _s("sk"), _s("gk"), _s("gs"), _n("n"), _s("ls")],
        KeySchema=_keys("pk", "sk"),
        GlobalSecondaryIndexes=[
            {"IndexName": "all", "KeySchema": _keys("gk", "gs"), "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "hash_only", "KeySchema": _keys("gk"), "Projection": {"ProjectionType": "KEYS_ONLY"}},
            {
                "IndexName": "numbers",
                "KeySchema": _keys("gk", "n"),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["tags"]},
            },
        ],
        LocalSecondaryIndexes=[
            {"IndexName": "local", "KeySchema": _keys("pk", "ls"), "Projection": {"ProjectionType": "ALL"}}
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    )
    db.create_table(
        TableName=single,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[_s("pk"), _s("gk"), _s("gs")],
        KeySchema=_keys("pk"),
        GlobalSecondaryIndexes=[
            {"IndexName": "all", "KeySchema": _keys("gk", "gs"), "Projection": {"ProjectionType": "ALL"}}
        ],
    )
    db.create_table(
        TableName=numeric,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[_s("pk"), _n("sk")],
        KeySchema=_keys("pk", "sk"),
    )
    return {
        ranged: {
            None: ("pk", "sk", "S"),
            "all": ("gk", "gs", "S"),
            "hash_only": ("gk", None, "S"),
            "numbers": ("gk", "n", "N"),
            "local": ("pk", "ls", "S"),
        },
        single: {None: ("pk", None, "S"), "all": ("gk", "gs", "S")},
        numeric: {None: ("pk", "sk", "N")},
    }


class World:
    """Random writes and queries over the tables, from one seed."""

    def __init__(self, db: Any, seed: int) -> None:
        self.db = db
        self.rng = random.Random(seed)
        self.tables = _make_tables(db, str(seed))
        self.keys: dict[str, list[dict[str, Any]]] = {name: [] for name in self.tables}

    def word(self, length: int = 3) -> str:
        return "".join(self.rng.choice("abcd") for _ in range(self.rng.randint(1, length)))

    def number(self) -> str:
        return self.rng.choice(["-1.5", "0", "1", "2", "10", "10.25", "3", "-20", str(self.rng.randint(-50, 50))])

    def key_value(self, kind: str) -> dict[str, str]:
        return {"N": self.number()} if kind == "N" else {"S": self.word()}

    def item(self, table: str) -> dict[str, Any]:
        hash_name, range_name, range_kind = self.tables[table][None]
        item: dict[str, Any] = {hash_name: {"S": self.rng.choice(["p1", "p2", "p3"])}}
        if range_name:
            item[range_name] = self.key_value(range_kind)
        for name, kind in (("gk", "gk"), ("gs", "S"), ("n", "N"), ("ls", "S")):
            if self.rng.random() < 0.8:  # sparse indexes: some items lack an index key
                item[name] = {"S": self.rng.choice(["g1", "g2"])} if kind == "gk" else self.key_value(kind)
        if "numeric" in table:
            item = {k: v for k, v in item.items() if k in ("pk", "sk")}
        item["tags"] = {"L": [{"S": self.rng.choice(["red", "blue"])} for _ in range(self.rng.randint(0, 2))]}
        item["v"] = {"S": self.word()}
        if self.rng.random() < 0.08:
            item["payload"] = {"S": BIG}
        return item

    def key_of(self, table: str, item: dict[str, Any]) -> dict[str, Any]:
        hash_name, range_name, _ = self.tables[table][None]
        return {name: item[name] for name in (hash_name, range_name) if name}

    def existing_key(self, table: str) -> dict[str, Any]:
        if self.keys[table] and self.rng.random() < 0.8:
            return self.rng.choice(self.keys[table])
        return self.key_of(table, self.item(table))

    # -- writes ---------------------------------------------------------------------------------

    def write(self) -> None:
        table = self.rng.choice(list(self.tables))
        kind = self.rng.choice(["put", "put", "put", "update", "update", "delete", "batch", "transaction"])
        getattr(self, kind)(table)

    def put(self, table: str) -> None:
        item = self.item(table)
        self.db.put_item(TableName=table, Item=item)
        self.keys[table].append(self.key_of(table, item))

    def update(self, table: str) -> None:
        key = self.existing_key(table)
        if "numeric" in table:
            expression, values = "SET v = :v", {":v": {"S": self.word()}}
        elif self.rng.random() < 0.3:
            expression, values = "REMOVE gk, gs", {}
        elif self.rng.random() < 0.3:  # the item's size changes in place (1 MB pages end elsewhere)
            expression, values = self.rng.choice([("SET payload = :big", {":big": {"S": BIG}}), ("REMOVE payload", {})])
        else:  # moves the item to another index key, or into a sparse index
            expression = "SET gk = :gk, gs = :gs, n = :n, v = :v"
            values = {
                ":gk": {"S": self.rng.choice(["g1", "g2", "g3"])},
                ":gs": {"S": self.word()},
                ":n": {"N": self.number()},
                ":v": {"S": self.word()},
            }
        request: dict[str, Any] = {"TableName": table, "Key": key, "UpdateExpression": expression}
        if values:
            request["ExpressionAttributeValues"] = values
        self.db.update_item(**request)
        self.keys[table].append(key)

    def delete(self, table: str) -> None:
        self.db.delete_item(TableName=table, Key=self.existing_key(table))

    def batch(self, table: str) -> None:
        requests: list[dict[str, Any]] = []
        seen: set[str] = set()
        for _ in range(self.rng.randint(1, 8)):
            if self.rng.random() < 0.7:
                item = self.item(table)
                key = self.key_of(table, item)
                request: dict[str, Any] = {"PutRequest": {"Item": item}}
            else:
                key = self.existing_key(table)
                request = {"DeleteRequest": {"Key": key}}
            if repr(key) not in seen:  # a batch may name an item once
                seen.add(repr(key))
                requests.append(request)
                self.keys[table].append(key)
        self.db.batch_write_item(RequestItems={table: requests})

    def transaction(self, table: str) -> None:
        first, second = self.item(table), self.item(table)
        if self.key_of(table, first) == self.key_of(table, second):
            return
        items = [{"Put": {"TableName": table, "Item": first}}, {"Put": {"TableName": table, "Item": second}}]
        fails = self.rng.random() < 0.5
        if fails:  # a condition that cannot hold: moto rolls back (moto_transactions puts items back)
            items.append(
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": self.existing_key(table),
                        "ConditionExpression": "attribute_exists(nothing_has_this)",
                    }
                }
            )
        try:
            self.db.transact_write_items(TransactItems=items)
        except ClientError as error:
            # cancelled, or refused for naming one item twice: either way nothing stays written
            code = error.response["Error"]["Code"]
            assert fails, code
            assert code in ("TransactionCanceledException", "ValidationException")
        self.keys[table] += [self.key_of(table, first), self.key_of(table, second)]

    # -- queries --------------------------------------------------------------------------------

    def query(self) -> dict[str, Any]:
        table = self.rng.choice(list(self.tables))
        index = self.rng.choice(list(self.tables[table]))
        hash_name, range_name, range_kind = self.tables[table][index]
        hash_pool = ["p1", "p2", "p3", "p4"] if hash_name == "pk" else ["g1", "g2", "g3", "g4"]
        values: dict[str, Any] = {":h": {"S": self.rng.choice(hash_pool)}}
        names = {"#h": hash_name}
        condition = "#h = :h"
        if range_name and self.rng.random() < 0.7:
            names["#r"] = range_name
            operator = self.rng.choice(["=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"])
            if operator == "begins_with" and range_kind == "N":
                operator = ">="
            low, high = sorted(
                (self.key_value(range_kind) for _ in range(2)),
                key=lambda v: float(v["N"]) if "N" in v else v["S"],
            )
            values[":a"] = low
            if operator == "BETWEEN":
                values[":b"] = high
                condition += " AND #r BETWEEN :a AND :b"
            elif operator == "begins_with":
                values[":a"] = {"S": self.word(2)}
                condition += " AND begins_with(#r, :a)"
            else:
                condition += f" AND #r {operator} :a"
        request: dict[str, Any] = {"TableName": table, "KeyConditionExpression": condition}
        if index is not None:
            request["IndexName"] = index
        if self.rng.random() < 0.5:
            request["ScanIndexForward"] = False
        if self.rng.random() < 0.6:
            request["Limit"] = self.rng.randint(1, 6)
        projection_only_keys = index == "hash_only"
        choice = self.rng.random()
        if choice < 0.25 and not projection_only_keys:
            request["FilterExpression"] = "contains(tags, :t)"
            values[":t"] = {"S": "red"}
        elif choice < 0.4 and not projection_only_keys:
            request["FilterExpression"] = "begins_with(v, :v)"
            values[":v"] = {"S": self.rng.choice("abcd")}
        choice = self.rng.random()
        if choice < 0.2:
            request["Select"] = "COUNT"
        elif choice < 0.35:
            request["ProjectionExpression"] = "#h, v"
        used = request["KeyConditionExpression"] + request.get("ProjectionExpression", "")
        request["ExpressionAttributeNames"] = {k: v for k, v in names.items() if k in used}
        request["ExpressionAttributeValues"] = values
        return request


def _pages(db: Any, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a Query, following LastEvaluatedKey (at most 50)."""
    pages = []
    for _ in range(50):
        page = db.query(**request)
        page.pop("ResponseMetadata", None)
        pages.append(page)
        if "LastEvaluatedKey" not in page:
            break
        request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}
    return pages


@pytest.mark.parametrize("seed", SEEDS)
def test_every_query_answers_as_moto_does(db: Any, seed: int) -> None:
    world = World(db, seed)
    compared = paged = 0
    for step in range(260):
        world.write()
        if step >= 60 and step % 2 == 0:
            request = world.query()
            with moto_query.bypassed():
                expected = _pages(db, request)
            assert _pages(db, request) == expected, request
            compared += 1
            paged += len(expected) > 1
    assert compared == 100 and paged > 5  # the pages were really followed


def test_a_query_reads_only_its_partition(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's own query sorts all_items() (every partition) on every Query; the patch never calls it."""
    world = World(db, 99)
    for _ in range(80):
        world.put(next(iter(world.tables)))

    calls = 0
    real = Table.all_items

    def counting(table: Table) -> list[Any]:
        nonlocal calls
        calls += 1
        return real(table)

    monkeypatch.setattr(Table, "all_items", counting)
    table = next(iter(world.tables))
    for index in (None, "all", "hash_only", "numbers", "local"):
        key = {"pk": "p1"} if index in (None, "local") else {"gk": "g1"}
        name = next(iter(key))
        request: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": f"{name} = :h",
            "ExpressionAttributeValues": {":h": {"S": key[name]}},
        }
        if index:
            request["IndexName"] = index
        db.query(**request)
    assert calls == 0
    with moto_query.bypassed():  # the measure is real: moto's own query reads the whole table
        db.query(TableName=table, KeyConditionExpression="pk = :h", ExpressionAttributeValues={":h": {"S": "p1"}})
    assert calls == 1


def test_the_patch_matches_the_pinned_moto(monkeypatch: pytest.MonkeyPatch) -> None:
    """A moto upgrade that changes what the patch relies on fails here (and the emulator refuses to start)."""
    moto_query.check_internals()

    def query(self: Table, *args: Any, **kwargs: Any) -> Any:  # a moto whose Query reads another way
        return None

    monkeypatch.setattr(Table, "query", query)
    with pytest.raises(RuntimeError, match=r"moto changed Table\.query"):
        moto_query.check_internals()
