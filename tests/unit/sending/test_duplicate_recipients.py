"""One address named more than once across to, cc and bcc: sent once, the rest are duplicates."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.sending.domain import Duplicate, Message


def _message(to: list[str], cc: tuple[str, ...] = (), bcc: tuple[str, ...] = ()) -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": False,
            "from": "a@acme.example",
            "to": to,
            "cc": list(cc),
            "bcc": list(bcc),
            "subject": "Hi",
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        }
    )


def test_distinct_addresses_have_no_duplicates() -> None:
    message = _message(["ann@example.com"], ("bo@example.com",), ("cy@example.com",))
    assert message.all_recipients == ["ann@example.com", "bo@example.com", "cy@example.com"]
    assert message.duplicates() == []


def test_the_first_spelling_is_the_recipient_and_each_later_one_a_duplicate() -> None:
    message = _message(
        ["Ann@example.com", "bo@example.com"], ("ann@example.com", "ANN@example.com"), ("Ann@example.com",)
    )
    assert message.all_recipients == ["Ann@example.com", "bo@example.com"]
    assert message.duplicates() == [
        Duplicate("Ann@example.com", "cc", 0, "ann@example.com"),
        Duplicate("Ann@example.com", "cc", 1, "ANN@example.com"),
        Duplicate("Ann@example.com", "bcc", 0, "Ann@example.com"),
    ]


def test_a_repeat_within_one_field_is_a_duplicate_too() -> None:
    message = _message(["bo@example.com", "bo@example.com"])
    assert message.all_recipients == ["bo@example.com"]
    assert [d.data() for d in message.duplicates()] == [{"field": "to", "position": 1, "address": "bo@example.com"}]
