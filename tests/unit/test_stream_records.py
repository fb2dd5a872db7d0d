"""The events table's stream, read as its consumers see it: new event items only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from postline.events.domain import Event, EventType
from postline.events.store import StreamRecords, event_put, tag_puts

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
EVENT = Event(
    id="evt_1",
    account_id="acct_1",
    type=EventType.DELIVERED,
    message_id="msg_1",
    recipient="a@example.com",
    timestamp=NOW,
    tags=["welcome", "news"],  # two: tag items (one tag has none, the by_tag index holds the event)
    created_at=NOW,
    expires_at=1_900_000_000,
)


def _record(name: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"eventName": name, "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, "NewImage": item}}


def test_an_inserted_event_item_is_a_new_event_and_its_tag_items_are_not() -> None:
    tag_item, _ = tag_puts(EVENT)
    records = [_record("INSERT", event_put(EVENT)), _record("INSERT", tag_item)]
    assert StreamRecords().new_events(records) == [EVENT]


def test_changes_to_stored_events_are_not_new_events() -> None:
    assert StreamRecords().new_events([_record("MODIFY", event_put(EVENT)), _record("REMOVE", event_put(EVENT))]) == []


def test_consumers_that_count_get_each_new_events_partition_and_sequence_number() -> None:
    tag_item, _ = tag_puts(EVENT)
    inserted = _record("INSERT", event_put(EVENT))
    inserted["dynamodb"]["SequenceNumber"] = "4100000000012345678901"
    records = [inserted, _record("INSERT", tag_item)]
    assert StreamRecords().positioned_events(records) == [
        (event_put(EVENT)["pk"]["S"], "4100000000012345678901", EVENT)
    ]
