"""The benchmark's bulk load (bench/seed.py) stores events exactly as the service's adapter encodes them,
with their tag items, so the table's and the indexes' keys of a million loaded events are the ones the
service reads."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from moto.dynamodb.models.table import Table

from bench import seed
from postline.events.count_store import count_pk, count_sk
from postline.events.store import StreamRecords, event_items, event_put
from postline.metrics.ports import Chunk
from postline.metrics.service import RollupService
from postline.metrics.store import VERSION, rollup_pk, rollup_sk
from tests.fakes.shared import FixedClock


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


class _Captured:
    """The metrics consumer's storage, in memory: what its writes add, by item key."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, int]] = {}

    def watermarks(self, partitions: list[str]) -> dict[str, str]:
        return {}

    def packed_through(self, account_id: str) -> date | None:
        return None

    def pair_events(self, pairs: list[Any]) -> dict[Any, str]:
        return {}

    def claim_pairs(self, pairs: dict[Any, tuple[str, int]]) -> dict[Any, str]:
        return {pair: event_id for pair, (event_id, _) in pairs.items()}

    def apply(self, chunk: Chunk) -> set[tuple[str, str]]:
        for key, adds in chunk.adds.items():
            self._add(rollup_pk(key.account_id, key.mode, key.day), rollup_sk(key.series, key.hour), adds)
        for count_key, adds in chunk.counts.items():
            self._add(count_pk(count_key.account_id, count_key.series), count_sk(count_key.day, count_key.hours), adds)
        return {(partition, seq) for entries in chunk.entries.values() for partition, seq, _ in entries}

    def _add(self, pk: str, sk: str, adds: dict[str, int]) -> None:
        target = self.items.setdefault((pk, sk), {})
        for name, value in adds.items():
            target[name] = target.get(name, 0) + value


def test_loaded_rollups_are_what_the_consumer_counts() -> None:
    plan = seed.Seed("events", "acct_1", 400, datetime(2025, 3, 1, 12, tzinfo=UTC), 900.0, recipients=7)
    captured = _Captured()
    records = [
        {
            "eventName": "INSERT",
            "dynamodb": {"Keys": {"pk": item["pk"]}, "NewImage": item, "SequenceNumber": f"{n:030d}"},
        }
        for n, item in enumerate(event_put(event) for event in seed.events(plan))
    ]
    consumer = RollupService(stream=StreamRecords(), rollups=captured, clock=FixedClock())  # type: ignore[arg-type]
    consumer.consume(records)
    loaded, first = seed.rollups(plan)
    assert {
        key: {n: v for n, v in values.items() if n not in ("expires_at", VERSION)} for key, values in loaded.items()
    } == captured.items
    # real hour items carry their write count (packing deletes one only while it is unchanged)
    assert all(values[VERSION] >= 1 for (pk, _), values in loaded.items() if pk.startswith("MET#"))
    assert not any(VERSION in values for (pk, _), values in loaded.items() if pk.startswith("EVC#"))
    assert first == min(event.timestamp for event in seed.events(plan)).date()
    assert any(pk.startswith("EVC#") for pk, _ in loaded) and any(pk.startswith("MET#") for pk, _ in loaded)
