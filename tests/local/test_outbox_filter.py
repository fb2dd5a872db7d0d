"""The outbox's FilterCriteria (template.yaml, SendOutboxFunction): of the messages table's stream,
Lambda gives the function the INSERT of a message item going out now, and nothing else (its body's
item, a lease or record update, a scheduled message, a TTL deletion)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from devtools.local.lambda_filters import RecordFilter
from postline.sending.domain import Message, RecipientState, Schedule
from postline.sending.store import _body_item, _message_item

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _filter() -> RecordFilter:
    template = yaml.load(TEMPLATE.read_text(), Loader=yaml.BaseLoader)  # noqa: S506 - its tags read as text
    events = template["Resources"]["SendOutboxFunction"]["Properties"]["Events"]
    (event,) = events.values()
    assert event["Properties"]["Stream"]["Fn::GetAtt"][0] == "MessagesTable"
    return RecordFilter.of(event["Properties"]["FilterCriteria"])


def _message(schedule: Schedule = Schedule.NOW) -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": False,
            "from": "a@acme.example",
            "to": ["r@example.com"],
            "subject": "Hi",
            "schedule": schedule,
            "send_at": NOW + timedelta(hours=1) if schedule is Schedule.SCHEDULED else None,
            "recipients": {"r@example.com": RecipientState.QUEUED},
            "created_at": NOW,
        }
    )


def _record(event_name: str, item: dict[str, Any]) -> dict[str, Any]:
    image = "OldImage" if event_name == "REMOVE" else "NewImage"
    return {"eventName": event_name, "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, image: item}}


@pytest.mark.parametrize(
    ("record", "passes"),
    [
        (_record("INSERT", _message_item(_message())), True),
        (_record("INSERT", _body_item(_message(), {"v": 2})), False),
        (_record("MODIFY", _message_item(_message())), False),
        (_record("INSERT", _message_item(_message(Schedule.SCHEDULED))), False),
        (_record("REMOVE", _message_item(_message())), False),
    ],
)
def test_only_a_message_stored_to_go_out_now_reaches_the_outbox(record: dict[str, Any], passes: bool) -> None:
    assert _filter().passes(record) is passes
