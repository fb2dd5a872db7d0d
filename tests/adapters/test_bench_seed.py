"""The benchmark's bulk load (bench/seed.py) stores events exactly as the service's adapter encodes them,
with their tag items, so the table's and the indexes' keys of a million loaded events are the ones the
service reads."""

from __future__ import annotations

from datetime import UTC, datetime

from moto.dynamodb.models.table import Table

from bench import seed
from postline.events.store import event_items


def test_loaded_items_are_the_adapters_encoding() -> None:
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    table = Table(  # type: ignore[abstract]
        "events",
        "123456789012",
        "us-east-1",
        schema=keys,
        attr=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")],
    )
    plan = seed.Seed("events", "acct_1", 500, datetime(2025, 3, 1, 12, tzinfo=UTC), 600.0, recipients=7)
    assert seed.load(table, plan) == 500
    stored = {
        (item.attrs["pk"].value, item.attrs["sk"].value): item.to_json()["Attributes"]
        for partition in table.items.values()
        for item in partition.values()
    }
    expected = [item for event in seed.events(plan) for item in event_items(event)]
    assert len(stored) == len(expected)
    for item in expected:
        assert stored[(item["pk"]["S"], item["sk"]["S"])] == item
    events = [item for item in expected if item["pk"]["S"].startswith("EVT#")]
    assert len(events) == 500 and len(expected) > 600  # a third of the messages have two tags, the rest one
    assert {item["type"]["S"] for item in events} >= {"queued", "sent", "delivered", "opened", "bounced"}
