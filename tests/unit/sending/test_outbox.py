"""The outbox: the messages table's stream records of messages stored to go out now become their
dispatch jobs (sending/outbox.py), and nothing else does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline.sending.domain import Message, RecipientState, Schedule
from postline.sending.outbox import Outbox, goes_out_now
from postline.sending.store import _body_item, _message_item, inserted_messages
from tests.fakes.sending import RecordingQueue
from tests.fakes.shared import DEFAULT_START, FixedClock


def _message(
    message_id: str = "msg_1",
    *,
    schedule: Schedule = Schedule.NOW,
    states: tuple[RecipientState, ...] = (RecipientState.QUEUED,),
) -> Message:
    to = [f"r{index}@example.com" for index in range(len(states))]
    return Message.model_validate(
        {
            "id": message_id,
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": False,
            "from": "a@acme.example",
            "to": to,
            "subject": "Hi",
            "schedule": schedule,
            "send_at": DEFAULT_START + timedelta(hours=1) if schedule is Schedule.SCHEDULED else None,
            "recipients": dict(zip(to, states, strict=True)),
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        }
    )


def _record(event_name: str, item: dict[str, Any]) -> dict[str, Any]:
    """A stream record as Lambda gives it (NEW_IMAGE)."""
    keys = {"pk": item["pk"], "sk": item["sk"]}
    return {"eventName": event_name, "dynamodb": {"Keys": keys, "NewImage": item}}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (_message(), True),
        (_message(states=(RecipientState.REJECTED, RecipientState.QUEUED)), True),
        (_message(states=(RecipientState.REJECTED,)), False),  # every recipient rejected before send
        (_message(schedule=Schedule.SCHEDULED), False),  # its send queued it for its send_at
        (_message(schedule=Schedule.CANCELLED), False),
    ],
)
def test_only_a_message_going_out_now_with_a_recipient_left_is_queued(message: Message, expected: bool) -> None:
    assert goes_out_now(message) is expected


def test_the_stream_records_of_stored_messages_become_their_jobs() -> None:
    queue, clock = RecordingQueue(), FixedClock()
    first, scheduled, second = _message("msg_1"), _message("msg_2", schedule=Schedule.SCHEDULED), _message("msg_3")
    records = [
        _record("INSERT", _body_item(first, {"v": 2})),
        _record("INSERT", _message_item(first)),
        _record("MODIFY", _message_item(first)),  # a lease, a record: not a message stored
        _record("INSERT", _message_item(scheduled)),
        _record("INSERT", _message_item(second)),
    ]

    queued = Outbox(queue, clock).relay(inserted_messages(records))

    assert queued == 2
    assert [(job.message_id, job.account_id, job.attempt, job.enqueued_at) for job in queue.jobs] == [
        ("msg_1", "acct_1", 1, DEFAULT_START),
        ("msg_3", "acct_1", 1, DEFAULT_START),
    ]


def test_a_batch_with_nothing_to_queue_calls_no_queue() -> None:
    class NoQueue(RecordingQueue):
        def enqueue(self, jobs: list[Any], *, not_before: datetime | None = None) -> None:
            raise AssertionError("queued nothing: no call")

    assert Outbox(NoQueue(), FixedClock()).relay(inserted_messages([])) == 0


def test_an_image_that_is_not_a_message_is_left_out_and_does_not_hold_the_others_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Raising would make the stream retry the batch until the record expires, holding back every
    later message of its shard."""
    unreadable = {**_message_item(_message("msg_bad")), "recipients": {"S": "not a map"}}
    records = [_record("INSERT", unreadable), _record("INSERT", _message_item(_message("msg_2")))]

    assert [message.id for message in inserted_messages(records)] == ["msg_2"]
    assert "does not read as a message" in caplog.text
