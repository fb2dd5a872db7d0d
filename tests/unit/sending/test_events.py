"""Event ids: deterministic per stage, so a repeated stage writes the same event."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime

from postline.events.domain import EventType, event_id, retention_expiry


def test_the_same_stage_gets_the_same_id() -> None:
    first = event_id("msg_1", EventType.DELIVERED, "ann@example.com", 1)
    assert event_id("msg_1", EventType.DELIVERED, "ann@example.com", 1) == first


def test_an_event_id_is_evt_and_32_hex_digits() -> None:
    assert re.fullmatch(r"evt_[0-9a-f]{32}", event_id("msg_1", EventType.QUEUED, None))


def test_the_step_defaults_to_zero() -> None:
    assert event_id("msg_1", EventType.SENT, "ann@example.com") == event_id(
        "msg_1", EventType.SENT, "ann@example.com", 0
    )


def test_a_message_level_event_is_the_same_with_no_recipient() -> None:
    assert event_id("msg_1", EventType.REJECTED, None) == event_id("msg_1", EventType.REJECTED, None)


def test_every_part_of_a_stage_changes_the_id() -> None:
    messages = ["msg_1", "msg_2"]
    recipients = [None, "ann@example.com", "bob@example.com"]
    steps: list[int | str] = [0, 1, 2, "click:https://x.example/"]
    ids = [
        event_id(message, kind, recipient, step)
        for message, kind, recipient, step in itertools.product(messages, EventType, recipients, steps)
    ]
    assert len(set(ids)) == len(ids) == len(messages) * len(EventType) * len(recipients) * len(steps)


def test_retention_expiry_is_epoch_seconds_after_the_retention() -> None:
    now = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
    assert retention_expiry(now, 30) == int(datetime(2025, 4, 13, 12, 0, tzinfo=UTC).timestamp())


def test_event_data_never_holds_control_characters() -> None:
    from postline.events.domain import message_event
    from postline.sending.domain import Message

    message = Message.model_validate(
        {"id": "msg_1", "account_id": "a", "key_id": "k", "test": False, "from": "a@b.example", "to": ["c@d.example"],
         "subject": "s", "created_at": datetime(2025, 1, 1, tzinfo=UTC)}
    )  # fmt: skip
    data = {"url": "https://a.example/\r\nx", "user_agent": "UA\x00\u2028", "nested": {"list": ["a\x85b"]}, "n": 1}
    event = message_event(message, EventType.CLICKED, "c@d.example", message.created_at, data, retention_days=30)
    assert event.data == {"url": "https://a.example/  x", "user_agent": "UA  ", "nested": {"list": ["a b"]}, "n": 1}
