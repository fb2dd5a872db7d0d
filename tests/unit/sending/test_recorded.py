"""sending/recorded.py: a step's events packed into its message item give back the very same items."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from postline.events.domain import Event, EventType, message_event
from postline.sending.domain import Message
from postline.sending.recorded import pack, unpack
from postline.shared.dynamo import from_attrs, to_attrs, to_value

NOW = datetime(2026, 11, 29, 0, 1, 2, 345678, tzinfo=UTC)


def _message(**fields: Any) -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "account_id": "acc_1",
            "key_id": "key_1",
            "test": False,
            "from": "Shop <shop@example.com>",
            "to": ["ann@example.com"],
            "subject": "Your receipt",
            "tags": ["receipt"],
            "metadata": {"order": "42"},
            "headers": {"X-Order": "42"},
            "webhook_url": "https://hooks.example/x",
            "template_id": "tmpl_1",
            "created_at": NOW - timedelta(seconds=1),
            **fields,
        }
    )


def _delivered(message: Message, step: int | str = 1) -> list[Event]:
    shared = {"smtp_response": "250 2.0.0 OK queued as 4Xy", "ip_pool": "ipp_1", "ratio": 0.25}
    return [
        message_event(message, EventType.SENT, "ann@example.com", NOW, {**shared, "processing_ms": 7},
                      retention_days=30, step=step),
        message_event(message, EventType.DELIVERED, "ann@example.com", NOW + timedelta(microseconds=1),
                      {**shared, "delivery_ms": 5, "nested": {"a": [1, None, "x"]}}, retention_days=30, step=step),
    ]  # fmt: skip


def _through_table(packed: dict[str, Any]) -> dict[str, Any]:
    """Stored in the message item and read back (numbers come back as Decimal, then plain)."""
    wire = json.loads(json.dumps({"v": to_value(packed)}))
    found: dict[str, Any] = from_attrs(wire)["v"]
    return found


def _items(events: list[Event]) -> list[dict[str, Any]]:
    return [from_attrs(to_attrs(event.model_dump(mode="json"))) for event in events]


def test_a_delivery_packs_short_and_unpacks_to_the_same_items() -> None:
    message = _message()
    events = _delivered(message)
    packed = pack(message, "ann@example.com", events, step=1)
    assert "f" not in packed and all("i" not in entry for entry in packed["e"])  # ids, tags...: not again
    assert packed["d"]["smtp_response"] == "250 2.0.0 OK queued as 4Xy"  # what both share, once
    assert _items(unpack(message, _through_table(packed))) == _items(events)
    assert len(json.dumps(packed)) < len(json.dumps([e.model_dump(mode="json") for e in events])) / 3


def test_what_the_step_does_not_give_is_stored_and_given_back() -> None:
    message = _message()
    events = _delivered(message)
    odd = [
        events[0].model_copy(update={"id": "evt_other", "created_at": NOW + timedelta(seconds=3)}),
        events[1].model_copy(update={"expires_at": events[1].expires_at + 86400}),
    ]
    packed = pack(message, "ann@example.com", odd, step=1)
    assert "f" not in packed
    assert _items(unpack(message, _through_table(packed))) == _items(odd)


def test_an_event_that_does_not_follow_its_message_is_stored_whole() -> None:
    message = _message()
    events = [_delivered(message)[0].model_copy(update={"tags": ["other"]})]
    packed = pack(message, "ann@example.com", events, step=1)
    assert "f" in packed and packed["r"] == "ann@example.com" and packed["s"] == 1
    assert _items(unpack(message, _through_table(packed))) == _items(events)


def test_a_report_time_with_another_zero_offset_and_a_word_step_come_back_the_same() -> None:
    message = _message(metadata={}, tags=[])
    at = datetime(2026, 11, 21, 12, 0, tzinfo=timezone(timedelta(0)))
    events = [message_event(message, EventType.DELIVERED, "ann@example.com", at, {"x": Decimal("1.5")},
                            retention_days=7, step="ses")]  # fmt: skip
    packed = pack(message, "ann@example.com", events, step="ses")
    assert _items(unpack(message, _through_table(packed))) == _items(events)
    assert [e.id for e in unpack(message, _through_table(packed))] == [events[0].id]


def test_no_events_pack_to_nothing_to_write() -> None:
    message = _message()
    assert unpack(message, _through_table(pack(message, "ann@example.com", [], step=2))) == []
