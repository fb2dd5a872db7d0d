"""The emulator's moto patch (devtools/moto_patches/stream_reads.py): GetRecords answers exactly what
moto's own answered (records, iterators, errors), without moto's generic response serializer.

Against moto in-process: random writes (every attribute type, puts, updates, deletes) to tables of
every stream view type, then every kind of shard iterator and limit read with and without the
patch; the parsed answers must be equal record for record.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto.core.responses import BaseResponse

from devtools.moto_patches import stream_reads
from tests.aws_stack import InProcessStack

VIEW_TYPES = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")


def _value(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kinds = ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS"] + (["L", "M"] if depth < 2 else [])
    kind = rng.choice(kinds)
    if kind == "S":
        return {"S": rng.choice(["", "plain", "ünïcode ✉", '"quoted"\n', "x" * rng.randint(1, 300)])}
    if kind == "N":
        return {"N": rng.choice(["0", "-1", "3.14159", "1E+3", str(rng.randint(-(10**12), 10**12))])}
    if kind == "B":
        return {"B": rng.randbytes(rng.randint(1, 40))}
    if kind == "BOOL":
        return {"BOOL": rng.random() < 0.5}
    if kind == "NULL":
        return {"NULL": True}
    if kind == "SS":
        return {"SS": [f"s{n}" for n in rng.sample(range(50), rng.randint(1, 4))]}
    if kind == "NS":
        return {"NS": [str(n) for n in rng.sample(range(50), rng.randint(1, 4))]}
    if kind == "BS":
        return {"BS": [bytes([n]) * 3 for n in rng.sample(range(50), rng.randint(1, 3))]}
    if kind == "L":
        return {"L": [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]}
    return {"M": {f"k{n}": _value(rng, depth + 1) for n in range(rng.randint(0, 3))}}


@pytest.fixture
def tables(stack: InProcessStack) -> Iterator[dict[str, str]]:
    db = stack.client("dynamodb")
    names = {view: f"stream-reads-{view.lower()}-{uuid.uuid4().hex[:6]}" for view in VIEW_TYPES}
    for view, name in names.items():
        db.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
            ],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
        )
    yield names
    for name in names.values():
        db.delete_table(TableName=name)


def _write_randomly(db: Any, table: str, rng: random.Random, writes: int) -> None:
    keys: list[dict[str, Any]] = []
    for _ in range(writes):
        roll = rng.random()
        if keys and roll < 0.2:
            db.delete_item(TableName=table, Key=keys.pop(rng.randrange(len(keys))))
        elif keys and roll < 0.45:
            db.update_item(
                TableName=table,
                Key=rng.choice(keys),
                UpdateExpression="SET #a = :v ADD #c :one",
                ExpressionAttributeNames={"#a": f"a{rng.randint(0, 5)}", "#c": "count"},
                ExpressionAttributeValues={":v": _value(rng), ":one": {"N": "1"}},
            )
        else:
            key = {"pk": {"S": f"P#{rng.randint(0, 3)}"}, "sk": {"N": str(rng.randint(0, 10**6))}}
            attributes = {f"a{n}": _value(rng) for n in range(rng.randint(0, 8))}
            db.put_item(TableName=table, Item={**key, **attributes})
            keys.append(key)


def _read_all(streams: Any, arn: str, shard: str, how: dict[str, Any], limit: int | None) -> list[Any]:
    """Every page from an iterator of kind `how`, until an empty page (records, then the next
    iterator's kind as seen through its first page)."""
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, **how)["ShardIterator"]
    pages: list[Any] = []
    for _ in range(100):
        answer = streams.get_records(ShardIterator=iterator, **({"Limit": limit} if limit else {}))
        assert set(answer) - {"ResponseMetadata"} == {"NextShardIterator", "Records"}
        pages.append(answer["Records"])
        if not answer["Records"]:
            return pages
        iterator = answer["NextShardIterator"]
    raise AssertionError("the stream never ran dry")


def _both(read: Any) -> tuple[Any, Any]:
    stream_reads.uninstall()
    theirs = read()
    with stream_reads.installed():
        ours = read()
    return theirs, ours


@pytest.mark.parametrize("seed", range(4))
def test_every_read_answers_as_moto_does(stack: InProcessStack, tables: dict[str, str], seed: int) -> None:
    rng = random.Random(seed)
    db, streams = stack.client("dynamodb"), stack.client("dynamodbstreams")
    for view, table in tables.items():
        _write_randomly(db, table, rng, 60)
        arn = db.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
        first = int(shard["SequenceNumberRange"]["StartingSequenceNumber"])
        middle = str(first + rng.randint(0, 40))
        for how in (
            {"ShardIteratorType": "TRIM_HORIZON"},
            {"ShardIteratorType": "LATEST"},
            {"ShardIteratorType": "AT_SEQUENCE_NUMBER", "SequenceNumber": middle},
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": middle},
        ):
            limit = rng.choice([None, 1, 7, 25, 1000])
            theirs, ours = _both(lambda: _read_all(streams, arn, shard["ShardId"], how, limit))  # noqa: B023
            assert ours == theirs, (view, how, limit)


def test_an_unknown_iterator_fails_as_it_did(stack: InProcessStack) -> None:
    streams = stack.client("dynamodbstreams")

    def read() -> str:  # moto in-process lets its KeyError through; its server answers a 500
        with pytest.raises((ClientError, KeyError)) as failure:
            streams.get_records(ShardIterator="arn:aws:dynamodb:eu-west-1:123456789012:table/none/stream/x|1|y")
        return repr(failure.value)

    theirs, ours = _both(read)
    assert ours == theirs


def test_moto_s_serializer_is_not_used(
    stack: InProcessStack, tables: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, streams = stack.client("dynamodb"), stack.client("dynamodbstreams")
    table = tables["NEW_AND_OLD_IMAGES"]
    _write_randomly(db, table, random.Random(9), 20)
    arn = db.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    serialized: list[str] = []
    original = BaseResponse.serialized

    def serializing(self: BaseResponse, result: Any) -> Any:
        serialized.append(self._get_action())
        return original(self, result)

    monkeypatch.setattr(BaseResponse, "serialized", serializing)
    with stream_reads.installed():
        assert len(streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]) == 20
    assert serialized == []


def test_the_patch_matches_the_pinned_moto() -> None:
    stream_reads.check_internals()  # raises when moto writes GetRecords another way
