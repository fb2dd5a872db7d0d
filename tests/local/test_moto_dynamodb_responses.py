"""The emulator's moto patch (devtools/moto_patches/dynamodb_responses.py): DynamoDB's item operations
answer exactly what moto's own serializer answered (items, pages, consumed capacity, errors).

Against moto in-process: two identical tables, one written and read with moto's serializer, the
other with the patch, by the same random sequence of every item operation (every attribute type,
return values, conditions that fail, pages, projections, transactions); each pair of parsed
answers must be equal once the tables' names are made the same.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto.core.responses import BaseResponse

from devtools.moto_patches import dynamodb_responses
from tests.aws_stack import InProcessStack
from tests.local.test_moto_stream_reads import _value

CAPACITY = ({}, {"ReturnConsumedCapacity": "TOTAL"}, {"ReturnConsumedCapacity": "INDEXES"})


def _create(db: Any, name: str) -> None:
    db.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


@pytest.fixture
def tables(stack: InProcessStack) -> Iterator[tuple[str, str]]:
    db = stack.client("dynamodb")
    suffix = uuid.uuid4().hex[:6]
    names = (f"responses-theirs-{suffix}", f"responses-ours-{suffix}")
    for name in names:
        _create(db, name)
    yield names
    for name in names:
        db.delete_table(TableName=name)


def _key(rng: random.Random) -> dict[str, Any]:
    return {"pk": {"S": f"P#{rng.randint(0, 3)}"}, "sk": {"N": str(rng.randint(0, 40))}}


def _item(rng: random.Random) -> dict[str, Any]:
    attributes = {f"a{n}": _value(rng) for n in range(rng.randint(0, 6))}
    if rng.random() < 0.6:
        attributes["g"] = {"S": f"G#{rng.randint(0, 2)}"}
    return {**_key(rng), **attributes}


def _operation(rng: random.Random) -> tuple[str, Callable[[str], dict[str, Any]]]:
    """(name, table -> request) of one random item operation."""
    capacity = rng.choice(CAPACITY)
    condition = rng.choice([{}, {"ConditionExpression": "attribute_exists(pk)"}, {"ConditionExpression": "a0 = :x"}])
    values = {":x": _value(rng)} if condition.get("ConditionExpression", "").endswith(":x") else {}
    roll = rng.randrange(10)
    if roll == 0:
        item = _item(rng)
        returns = rng.choice([{}, {"ReturnValues": "ALL_OLD"}])
        return "put_item", lambda t: {"TableName": t, "Item": item, **returns, **capacity}
    if roll == 1:
        key, value = _key(rng), _value(rng)
        returns = rng.choice(["NONE", "ALL_OLD", "ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"])
        return "update_item", lambda t: {
            "TableName": t,
            "Key": key,
            "UpdateExpression": "SET a1 = :v ADD n :one",
            "ExpressionAttributeValues": {":v": value, ":one": {"N": "1"}, **values},
            "ReturnValues": returns,
            **condition,
            **capacity,
        }
    if roll == 2:
        key = _key(rng)
        returns = rng.choice([{}, {"ReturnValues": "ALL_OLD"}])
        extra = {**condition, **({"ExpressionAttributeValues": values} if values else {})}
        return "delete_item", lambda t: {"TableName": t, "Key": key, **returns, **extra, **capacity}
    if roll == 3:
        key = _key(rng)
        projection = rng.choice([{}, {"ProjectionExpression": "pk, a0, a3"}, {"ConsistentRead": True}])
        return "get_item", lambda t: {"TableName": t, "Key": key, **projection, **capacity}
    if roll == 4:
        pk, limit, forward = f"P#{rng.randint(0, 3)}", rng.choice([None, 1, 3, 100]), rng.random() < 0.5
        select = rng.choice([{}, {"Select": "COUNT"}, {"ProjectionExpression": "sk, a2"}])
        return "query", lambda t: {
            "TableName": t,
            "KeyConditionExpression": "pk = :p AND sk >= :s",
            "ExpressionAttributeValues": {":p": {"S": pk}, ":s": {"N": "5"}},
            "ScanIndexForward": forward,
            **({"Limit": limit} if limit else {}),
            **select,
            **capacity,
        }
    if roll == 5:
        group = f"G#{rng.randint(0, 2)}"
        return "query", lambda t: {
            "TableName": t,
            "IndexName": "by-g",
            "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": group}},
            **capacity,
        }
    if roll == 6:
        limit = rng.choice([None, 2, 10])
        return "scan", lambda t: {
            "TableName": t,
            "FilterExpression": "attribute_exists(a0)",
            **({"Limit": limit} if limit else {}),
            **capacity,
        }
    if roll == 7:
        keys = list({str(k): k for k in (_key(rng) for _ in range(rng.randint(1, 6)))}.values())
        projection = rng.choice([{}, {"ProjectionExpression": "pk, sk, a1"}])
        return "batch_get_item", lambda t: {"RequestItems": {t: {"Keys": keys, **projection}}, **capacity}
    if roll == 8:
        puts = list({str(_key_of(i)): i for i in (_item(rng) for _ in range(rng.randint(1, 5)))}.values())
        return "batch_write_item", lambda t: {
            "RequestItems": {t: [{"PutRequest": {"Item": item}} for item in puts]},
            **capacity,
        }
    key, item, other = _key(rng), _item(rng), _key(rng)
    if rng.random() < 0.5:
        return "transact_get_items", lambda t: {
            "TransactItems": [{"Get": {"TableName": t, "Key": key}}, {"Get": {"TableName": t, "Key": other}}],
            **capacity,
        }
    return "transact_write_items", lambda t: {
        "TransactItems": [
            {
                "Put": {
                    "TableName": t,
                    "Item": item,
                    **condition,
                    **({"ExpressionAttributeValues": values} if values else {}),
                }
            },
            {
                "Update": {
                    "TableName": t,
                    "Key": key,
                    "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
        ]
        if str(_key_of(item)) != str(key)
        else [{"Put": {"TableName": t, "Item": item}}],
        **capacity,
    }


def _key_of(item: dict[str, Any]) -> dict[str, Any]:
    return {"pk": item["pk"], "sk": item["sk"]}


def _answer(call: Callable[..., Any], request: dict[str, Any]) -> Any:
    try:
        answer = dict(call(**request))
    except ClientError as error:
        return {"error": error.response["Error"], "reasons": error.response.get("CancellationReasons")}
    answer.pop("ResponseMetadata")
    return answer


@pytest.mark.parametrize("seed", range(4))
def test_every_item_operation_answers_as_moto_does(stack: InProcessStack, tables: tuple[str, str], seed: int) -> None:
    rng = random.Random(seed)
    db = stack.client("dynamodb")
    theirs_table, ours_table = tables
    for step in range(150):
        name, request = _operation(rng)
        dynamodb_responses.uninstall()
        theirs = _answer(getattr(db, name), request(theirs_table))
        with dynamodb_responses.installed():
            ours = _answer(getattr(db, name), request(ours_table))
        assert repr(ours).replace(ours_table, theirs_table) == repr(theirs), (step, name)


def test_other_operations_keep_moto_s_serializer(
    stack: InProcessStack, tables: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = stack.client("dynamodb")
    serialized: list[str] = []
    original = BaseResponse.serialized

    def serializing(self: BaseResponse, result: Any) -> Any:
        serialized.append(self._get_action())
        return original(self, result)

    monkeypatch.setattr(BaseResponse, "serialized", serializing)
    table = tables[1]
    with dynamodb_responses.installed():
        db.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": "1"}})
        db.get_item(TableName=table, Key={"pk": {"S": "p"}, "sk": {"N": "1"}})
        db.query(TableName=table, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}})
        assert serialized == []
        with pytest.raises(ClientError, match="ConditionalCheckFailed"):
            db.put_item(
                TableName=table,
                Item={"pk": {"S": "p"}, "sk": {"N": "1"}},
                ConditionExpression="attribute_not_exists(pk)",
            )
        db.describe_table(TableName=table)
    assert serialized == ["DescribeTable"]  # a refusal is an exception, answered by moto as before


def test_the_patch_matches_the_pinned_moto() -> None:
    dynamodb_responses.check_internals()  # raises when moto answers these operations another way
