"""shared/dynamo.py's attributes: the same as boto3's TypeSerializer makes of the JSON form, and an
event's items the same whether it is serialized once (event_items) or per item."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeSerializer

from postline.events.domain import Event, EventType
from postline.events.store import event_items, event_put, tag_puts
from postline.shared.dynamo import to_attrs, to_value

_SCALARS: list[Any] = ["", "x", "héllo", 0, 1, -5, 10**30, 1.5, 0.1, 3.0, True, False, None]


def _value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if depth > 3 or pick < 0.5:
        return rng.choice(_SCALARS)
    if pick < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{index}": _value(rng, depth + 1) for index in range(rng.randint(0, 4))}


def test_attributes_are_what_boto3s_serializer_makes() -> None:
    serializer, rng = TypeSerializer(), random.Random(7)
    for _ in range(3_000):
        data = {f"a{index}": _value(rng) for index in range(rng.randint(0, 5))}
        clean = json.loads(json.dumps(data), parse_float=Decimal)
        assert to_attrs(data) == {k: serializer.serialize(v) for k, v in clean.items() if v is not None}
        assert to_value(data) == serializer.serialize(clean)


def test_an_events_items_are_the_same_serialized_once() -> None:
    now = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    event = Event(id="evt_1", account_id="acct_1", type=EventType.DELIVERED, message_id="msg_1",
                  recipient="a@example.com", timestamp=now, tags=["a", "b", "a"], data={"n": 1.5},
                  created_at=now, expires_at=1_900_000_000)  # fmt: skip
    assert event_items(event) == [event_put(event), *tag_puts(event)]
