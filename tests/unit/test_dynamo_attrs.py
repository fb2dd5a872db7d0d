"""shared/dynamo.py to_attrs and to_value: built directly for JSON's own types, the same attributes
as the JSON round trip (floats to Decimal, other values to their str) they replace."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from postline.shared.dynamo import to_attrs, to_value

_serializer = TypeSerializer()


class Colour(StrEnum):
    RED = "red"


def _through_json(data: dict[str, Any]) -> dict[str, Any]:
    """What to_attrs made before: a JSON round trip, then boto3's TypeSerializer."""
    clean = json.loads(json.dumps(data, default=str), parse_float=Decimal)
    return {k: _serializer.serialize(v) for k, v in clean.items() if v is not None}


AT = datetime(2026, 11, 28, 9, 30, 0, 123456, tzinfo=UTC)
CASES: list[dict[str, Any]] = [
    {"id": "msg_1", "n": 3, "big": 10**20, "neg": -7, "ok": True, "no": False, "gone": None},
    {"f": 1.5, "tiny": 1e-7, "huge": 1e20, "third": 1 / 3, "zero": 0.0, "intlike": 2.0},
    {"nested": {"a": [1, "two", None, {"b": [True, 2.5, {"c": None}]}], "empty": {}, "list": []}},
    {"when": AT, "tuple": (1, "x"), "colour": Colour.RED, "keys": {1: "int key", "s": Colour.RED}},
    {"text": 'é ünï "quoted" \\ \n\t \ud800', "deep": [[[["x"]]]]},
    {1: "top-level int key", "x": 1},
]


@pytest.mark.parametrize("data", CASES)
def test_the_same_attributes_as_the_json_round_trip(data: dict[str, Any]) -> None:
    assert to_attrs(data) == _through_json(data)
    for value in data.values():
        if value is not None:
            assert to_value(value) == _serializer.serialize(
                json.loads(json.dumps(value, default=str), parse_float=Decimal)
            )


def test_random_json_documents() -> None:
    rng = random.Random(33)

    def value(depth: int) -> Any:
        pick = rng.randrange(9 if depth < 4 else 6)
        if pick == 0:
            return rng.choice(["", "a", "é", "x" * 40])
        if pick == 1:
            return rng.randrange(-(10**12), 10**12)
        if pick == 2:
            return rng.random() * 10 ** rng.randrange(-5, 15)
        if pick == 3:
            return rng.choice([True, False])
        if pick == 4:
            return None
        if pick == 5:
            return AT
        if pick in (6, 7):
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randrange(4))}

    for _ in range(300):
        data = {f"a{i}": value(0) for i in range(rng.randrange(1, 8))}
        assert to_attrs(data) == _through_json(data)


def test_a_message_item_is_unchanged() -> None:
    from postline.sending.domain import Message, Schedule

    message = Message(
        id="msg_1",
        account_id="acct_1",
        key_id="key_1",
        test=False,
        from_="Shop <shop@example.com>",
        to=["ann@example.com"],
        subject="Hi",
        tags=["receipt"],
        headers={"X-Order": "1"},
        metadata={"order": "1"},
        schedule=Schedule.NOW,
        created_at=AT,
    )
    data = message.model_dump(mode="json", by_alias=True)
    assert to_attrs(data) == _through_json(data)
