"""A message's status from its recipients' states, and what the API shows of it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from postline.sending.domain import Message, MessageStatus, RecipientState, message_status
from postline.sending.models import MessageAccepted, MessageView

R = RecipientState
S = MessageStatus
NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("states", "status"),
    [
        # Nothing yet, and one recipient in each state.
        ([], S.QUEUED),
        ([R.QUEUED], S.QUEUED),
        ([R.SENDING], S.QUEUED),
        ([R.SENT], S.SENT),
        ([R.DEFERRED], S.DEFERRED),
        ([R.DELIVERED], S.DELIVERED),
        ([R.BOUNCED], S.BOUNCED),
        ([R.COMPLAINED], S.COMPLAINED),
        ([R.REJECTED], S.REJECTED),
        ([R.FAILED], S.FAILED),
        # Every recipient in the same state.
        ([R.DELIVERED, R.DELIVERED], S.DELIVERED),
        ([R.REJECTED, R.REJECTED, R.REJECTED], S.REJECTED),
        # Still in progress: a claim or the queue.
        ([R.QUEUED, R.SENDING], S.QUEUED),
        ([R.QUEUED, R.SENT], S.SENT),
        ([R.SENDING, R.SENT], S.SENT),
        ([R.QUEUED, R.REJECTED], S.QUEUED),  # a rejected recipient was never handed over
        ([R.SENDING, R.REJECTED], S.QUEUED),
        # A recipient waiting for a retry makes the message deferred, whatever the others did.
        ([R.DEFERRED, R.QUEUED], S.DEFERRED),
        ([R.DEFERRED, R.SENDING], S.DEFERRED),
        ([R.DEFERRED, R.SENT], S.DEFERRED),
        ([R.DEFERRED, R.DELIVERED], S.DEFERRED),
        ([R.DEFERRED, R.BOUNCED], S.DEFERRED),
        ([R.DEFERRED, R.COMPLAINED], S.DEFERRED),
        ([R.DEFERRED, R.REJECTED], S.DEFERRED),
        ([R.DEFERRED, R.FAILED], S.DEFERRED),
        # Nothing pending: the furthest stage any recipient reached.
        ([R.COMPLAINED, R.DELIVERED], S.COMPLAINED),
        ([R.COMPLAINED, R.BOUNCED], S.COMPLAINED),
        ([R.DELIVERED, R.SENT], S.DELIVERED),
        ([R.DELIVERED, R.BOUNCED], S.DELIVERED),
        ([R.DELIVERED, R.FAILED], S.DELIVERED),
        ([R.DELIVERED, R.REJECTED], S.DELIVERED),
        ([R.SENT, R.BOUNCED], S.SENT),
        ([R.SENT, R.FAILED], S.SENT),
        ([R.SENT, R.REJECTED], S.SENT),
        ([R.BOUNCED, R.FAILED], S.BOUNCED),
        ([R.BOUNCED, R.REJECTED], S.BOUNCED),
        ([R.FAILED, R.REJECTED], S.FAILED),
        ([R.COMPLAINED, R.DELIVERED, R.SENT, R.BOUNCED, R.FAILED, R.REJECTED], S.COMPLAINED),
        # In progress after a recipient was handed over: sent.
        *(
            pytest.param([pending, final], S.SENT)
            for pending in (R.QUEUED, R.SENDING)
            for final in (R.DELIVERED, R.BOUNCED, R.COMPLAINED, R.FAILED)
        ),
    ],
    ids=lambda value: "+".join(value) if isinstance(value, list) else None,
)
def test_message_status_from_recipient_states(states: list[RecipientState], status: MessageStatus) -> None:
    assert message_status(states) == status


@pytest.mark.parametrize("states", [[R.DELIVERED, R.QUEUED], [R.BOUNCED, R.SENT, R.QUEUED]])
def test_message_status_ignores_the_order_of_recipients(states: list[RecipientState]) -> None:
    assert message_status(states) == message_status(list(reversed(states)))


def test_a_message_status_never_goes_back_to_queued_while_a_recipient_progresses() -> None:
    # One recipient goes queued -> sending -> sent -> delivered while the other waits in the queue.
    seen = [message_status([first, R.QUEUED]) for first in (R.QUEUED, R.SENDING, R.SENT, R.DELIVERED)]
    assert seen == [S.QUEUED, S.QUEUED, S.SENT, S.SENT]


# --- what the API shows -------------------------------------------------------------------------


def _message() -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": False,
            "from": "Acme <billing@acme.example>",
            "to": ["ann@example.com"],
            "cc": ["cc@example.com"],
            "bcc": ["hidden@example.com"],
            "subject": "Your invoice",
            "tags": ["billing"],
            "headers": {"X-Invoice": "42"},
            "metadata": {"order": "42"},
            "status": "delivered",
            "recipients": {"ann@example.com": "delivered"},
            "created_at": NOW,
            "delivered_at": NOW,
        }
    )


def test_message_view_shows_the_spec_fields_with_from_by_its_alias() -> None:
    shown = MessageView.of(_message()).model_dump(by_alias=True, mode="json")
    assert shown == {
        "id": "msg_1",
        "status": "delivered",
        "from": "Acme <billing@acme.example>",
        "to": ["ann@example.com"],
        "subject": "Your invoice",
        "tags": ["billing"],
        "headers": {"X-Invoice": "42"},
        "created_at": "2025-03-14T12:00:00Z",
        "send_at": None,
        "delivered_at": "2025-03-14T12:00:00Z",
        "opened_at": None,
        "clicked_at": None,
        "content_check": None,  # a test-mode message's, once delivered (content_checks)
    }


def test_message_view_never_shows_bcc() -> None:
    shown = MessageView.of(_message()).model_dump_json(by_alias=True)
    assert "hidden@example.com" not in shown


def test_message_accepted_is_queued_and_echoes_from_by_its_alias() -> None:
    accepted = MessageAccepted.model_validate(
        {"id": "msg_1", "created_at": NOW, "from": "a@acme.example", "to": ["b@example.com"], "tags": [], "headers": {}}
    )
    shown = accepted.model_dump(by_alias=True)
    assert shown["from"] == "a@acme.example"
    assert "from_" not in shown
    assert shown["status"] == MessageStatus.QUEUED


def test_message_accepted_may_be_built_by_field_name() -> None:
    accepted = MessageAccepted(
        id="m", created_at=NOW, from_="a@acme.example", to=["b@example.com"], tags=[], headers={}
    )
    assert accepted.model_dump(by_alias=True)["from"] == "a@acme.example"


def test_all_recipients_lists_each_address_once_in_order() -> None:
    message = _message().model_copy(update={"cc": ["ann@example.com", "cc@example.com"]})
    assert message.all_recipients == ["ann@example.com", "cc@example.com", "hidden@example.com"]


def test_sender_domain_is_the_from_domain_lowercased() -> None:
    assert _message().model_copy(update={"from_": "Acme <billing@ACME.example>"}).sender_domain == "acme.example"


def test_a_send_at_stored_with_an_offset_is_shown_in_utc() -> None:
    # Messages scheduled before send_at was normalized kept the caller's offset in the item.
    stored = _message().model_dump(mode="json", by_alias=True) | {"send_at": "2030-01-02T10:00:00+05:00"}
    message = Message.model_validate(stored)
    assert message.send_at == datetime(2030, 1, 2, 5, 0, tzinfo=UTC)
    assert message.send_at is not None and message.send_at.utcoffset() == timedelta(0)
    assert MessageView.of(message).model_dump(mode="json")["send_at"] == "2030-01-02T05:00:00Z"
