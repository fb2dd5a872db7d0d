"""The benchmark's bulk load (bench/seed.py) stores events exactly as the service's adapter encodes them,
so the table's and the indexes' keys of a million loaded events are the ones the service reads."""

from __future__ import annotations

from datetime import UTC, datetime

from moto.dynamodb.models.table import Table

from bench import seed
from postline.adapters.events import event_put


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
    expected = [event_put(event) for event in seed.events(plan)]
    assert len(stored) == len(expected) == 500
    for item in expected:
        assert stored[(item["pk"]["S"], item["sk"]["S"])] == item
    assert {item["type"]["S"] for item in expected} >= {"queued", "sent", "delivered", "opened", "bounced"}
