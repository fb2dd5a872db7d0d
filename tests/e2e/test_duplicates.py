"""The `duplicate` event: one address named more than once (across to, cc and bcc of one send, in any
letter case, or in one batch) is sent one copy; each extra occurrence is recorded as a `duplicate`
event of the message that carries it, and nothing else (no second queued event, no second copy)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.sending_support import (
    accepted,
    events_of,
    has_types,
    mail_for,
    message,
    parse,
    recipient,
    settle,
    types_of,
    verified_sender,
)

pytestmark = pytest.mark.e2e


def _upper_local(address: str) -> str:
    local, domain = address.split("@")
    return f"{local.upper()}@{domain}"


def test_one_address_in_to_cc_and_bcc_gets_one_copy_and_two_duplicate_events(runtime: Any) -> None:
    sender = verified_sender(runtime)
    address, other = recipient("dup"), recipient("other")
    body = message(sender.address, address, cc=[_upper_local(address), other], bcc=[address])
    sent = accepted(sender.live.post("/v3/messages", json=body))
    settle(runtime, sent["id"])

    copies = mail_for(runtime, sent["id"])
    assert sorted(rcpt.lower() for item in copies for rcpt in item["rcpt_tos"]) == sorted([address, other])
    events = events_of(sent["id"], until=has_types("delivered", "delivered", "duplicate", "duplicate"))
    assert types_of(events, address).count("queued") == 1
    duplicates = [event for event in events if event.type.value == "duplicate"]
    assert sorted(
        (event.recipient, event.data["field"], event.data["position"], event.data["address"]) for event in duplicates
    ) == [
        (address, "bcc", 0, address),
        (address, "cc", 0, _upper_local(address)),
    ]
    (copy,) = [item for item in copies if other in item["rcpt_tos"]]
    assert _upper_local(address) in parse(copy)["Cc"]  # the headers show the fields as sent


def test_an_address_twice_in_a_batch_is_sent_once_and_the_repeat_recorded_as_duplicate(runtime: Any) -> None:
    sender = verified_sender(runtime)
    address = recipient("batchdup")
    recipients = [{"to": address}, {"to": recipient("single")}, {"to": _upper_local(address)}]
    body = {"from": sender.address, "subject": "Batch", "text": "Hello.", "recipients": recipients}
    result = accepted(sender.live.post("/v3/messages.batch", json=body))
    assert (result["accepted"], result["rejected"], len(result["message_ids"])) == (2, 1, 2)
    (repeat,) = result["rejected_recipients"]
    assert (repeat["index"], repeat["to"]) == (2, _upper_local(address))
    assert repeat["reason"].startswith("duplicate")
    first = result["message_ids"][0]
    settle(runtime, *result["message_ids"])

    assert len(mail_for(runtime, first)) == 1
    events = events_of(first, until=has_types("delivered", "duplicate"))
    (duplicate,) = [event for event in events if event.type.value == "duplicate"]
    assert (duplicate.recipient, duplicate.data.get("index"), duplicate.data.get("address")) == (
        address,
        2,
        _upper_local(address),
    )
