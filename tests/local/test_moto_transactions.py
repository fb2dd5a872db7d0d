"""The emulator's moto patch (devtools/moto_patches/moto_transactions.py): transactions still all-or-nothing,
with moto's cancellation reasons, while their rollback copies only the items they name.

Against moto in-process, on the template's messages and events tables (the events table has a
stream: a failed transaction must leave no stream record behind, as in DynamoDB).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto.dynamodb.models.dynamo_type import Item

from devtools.moto_patches import moto_transactions
from tests.aws_stack import InProcessStack


@pytest.fixture
def db(stack: InProcessStack) -> Iterator[Any]:
    with moto_transactions.installed():
        yield stack.client("dynamodb")


@pytest.fixture
def tables(stack: InProcessStack) -> tuple[str, str]:
    return stack.env["MESSAGES_TABLE"], stack.env["EVENTS_TABLE"]


def _key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": "X"}}


def _put(table: str, pk: str, **attrs: str) -> dict[str, Any]:
    return {"Put": {"TableName": table, "Item": {**_key(pk), **{k: {"S": v} for k, v in attrs.items()}}}}


def _get(db: Any, table: str, pk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = db.get_item(TableName=table, Key=_key(pk), ConsistentRead=True).get("Item")
    return item


def _stream_records(stack: InProcessStack, table: str) -> int:
    arn = stack.client("dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
    streams = stack.client("dynamodbstreams")
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    return len(streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=1000)["Records"])


def _seed(db: Any, table: str, count: int) -> None:
    for start in range(0, count, 25):
        requests = [{"PutRequest": {"Item": _put(table, f"fill-{uuid.uuid4()}")["Put"]["Item"]}} for _ in range(25)]
        db.batch_write_item(RequestItems={table: requests[: count - start]})


def test_a_cancelled_transaction_rolls_back_every_item_and_says_why(
    db: Any, tables: tuple[str, str], stack: InProcessStack
) -> None:
    messages, events = tables
    kept, changed, deleted, fresh, guard = (f"t-{uuid.uuid4()}" for _ in range(5))
    for pk in (kept, changed, deleted, guard):
        db.put_item(TableName=messages, Item=_put(messages, pk, v="before")["Put"]["Item"])
    streamed = _stream_records(stack, events)

    with pytest.raises(ClientError) as raised:
        db.transact_write_items(
            TransactItems=[
                _put(events, fresh, v="new"),  # a new item, on a table with a stream
                {
                    "Update": {
                        "TableName": messages,
                        "Key": _key(changed),
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"S": "after"}},
                    }
                },
                {"Delete": {"TableName": messages, "Key": _key(deleted)}},
                _put(messages, kept, v="replaced"),
                {
                    "ConditionCheck": {
                        "TableName": messages,
                        "Key": _key(guard),
                        "ConditionExpression": "v = :v",
                        "ExpressionAttributeValues": {":v": {"S": "something else"}},
                    }
                },
            ]
        )

    error = raised.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    assert [reason["Code"] for reason in error["CancellationReasons"]] == [
        "None",
        "None",
        "None",
        "None",
        "ConditionalCheckFailed",
    ]
    assert _get(db, events, fresh) is None
    for pk in (kept, changed, deleted, guard):
        assert (_get(db, messages, pk) or {}).get("v") == {"S": "before"}, pk
    assert _stream_records(stack, events) == streamed, "a write that was rolled back streams nothing"


def test_a_transaction_refused_midway_writes_nothing(db: Any, tables: tuple[str, str]) -> None:
    messages, _ = tables
    first = f"t-{uuid.uuid4()}"
    broken = {"Put": {"TableName": messages, "Item": {"pk": {"N": "1"}, "sk": {"S": "X"}}}}  # pk is a string
    with pytest.raises(ClientError) as raised:
        db.transact_write_items(TransactItems=[_put(messages, first, v="new"), broken])
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert _get(db, messages, first) is None


def test_a_transaction_naming_one_item_twice_is_refused_and_writes_nothing(db: Any, tables: tuple[str, str]) -> None:
    messages, _ = tables
    pk = f"t-{uuid.uuid4()}"
    with pytest.raises(ClientError) as raised:
        db.transact_write_items(TransactItems=[_put(messages, pk, v="one"), _put(messages, pk, v="two")])
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert _get(db, messages, pk) is None


def test_a_successful_transaction_writes_and_streams_everything(
    db: Any, tables: tuple[str, str], stack: InProcessStack
) -> None:
    messages, events = tables
    one, two = f"t-{uuid.uuid4()}", f"t-{uuid.uuid4()}"
    streamed = _stream_records(stack, events)
    db.transact_write_items(TransactItems=[_put(messages, one, v="a"), _put(events, two, v="b")])
    assert (_get(db, messages, one) or {})["v"] == {"S": "a"}
    assert (_get(db, events, two) or {})["v"] == {"S": "b"}
    assert _stream_records(stack, events) == streamed + 1


def _items_copied_by_one_transaction(db: Any, table: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many stored items moto deep-copies while it runs a two-item transaction."""
    copied = 0
    real = Item.__deepcopy__

    def counting(item: Item, memo: dict[int, Any]) -> Item:
        nonlocal copied
        copied += 1
        return real(item, memo)

    existing = f"t-{uuid.uuid4()}"
    db.put_item(TableName=table, Item=_put(table, existing, v="old")["Put"]["Item"])
    with monkeypatch.context() as patch:
        patch.setattr(Item, "__deepcopy__", counting)
        db.transact_write_items(TransactItems=[_put(table, existing, v="new"), _put(table, f"t-{uuid.uuid4()}")])
    return copied


def test_a_transaction_copies_only_its_own_items_however_large_the_table(
    stack: InProcessStack, tables: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cost that grew with the table: without the patch moto copies every stored item, per
    transaction item; with it, the one existing item the transaction overwrites."""
    db = stack.client("dynamodb")
    table = tables[0]
    with moto_transactions.installed():
        small = _items_copied_by_one_transaction(db, table, monkeypatch)
        _seed(db, table, 300)
        large = _items_copied_by_one_transaction(db, table, monkeypatch)
    assert small == large
    assert large <= 2, "only items the transaction names (here one existing, one new) may be copied"

    # The measure is real: moto's own rollback backup copies the whole table (twice: once per item).
    unpatched = _items_copied_by_one_transaction(db, table, monkeypatch)
    assert unpatched >= 300


def test_the_patch_matches_the_pinned_moto_and_leaves_other_copies_alone() -> None:
    """A moto upgrade that changes transact_write_items fails here (and the emulator refuses to start)."""
    moto_transactions.check_internals()
    with moto_transactions.installed():
        nested = {"a": [1, 2]}
        assert copy.deepcopy(nested) == nested and copy.deepcopy(nested)["a"] is not nested["a"]
