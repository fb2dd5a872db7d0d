"""The cloud model's call counts are the calls the API makes (bench/cloud.py prices exactly these).

A send and a batch are recorded at botocore's entry point while the embedded runtime serves them
over HTTP, as the bench records them; the counts must equal what the model lists. A change to the
send path that adds or removes a call fails here until the model (and its prices) follow.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench import cloud
from bench.receipt import receipt
from bench.recorder import CallRecorder, call_mix, request_calls
from postline import wiring
from postline.shared import stream_marks
from tests.e2e.sending_support import accepted, message, recipient, verified_sender
from tests.e2e.webhook_support import SIMULATED_DELIVERY
from tests.peers.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e
TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


def _recorded(send: Any) -> dict[str, int]:
    with CallRecorder() as recorder:
        send()
        return call_mix(request_calls(recorder.since(0)))


def test_a_send_makes_exactly_the_calls_the_model_prices(runtime: Any) -> None:
    sender = verified_sender(runtime)
    # The key's once-a-minute last-use touch rides on some sends: the model prices the usual send.
    mixes = [
        _recorded(lambda: accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient()))))
        for _ in range(3)
    ]
    usual = Counter(tuple(sorted(mix.items())) for mix in mixes).most_common(1)[0][0]

    assert dict(usual) == {name: count for name, (count, _) in cloud.SEND_CALLS.items()}
    assert Counter(name for group in cloud.SEND_PATH for name in group) == Counter(dict(usual))


def test_a_send_makes_its_calls_side_by_side_as_the_model_times_them(runtime: Any) -> None:
    """The critical path of a real send's calls (as the code ran them: each side-by-side run as its
    busiest worker) is the one cloud.SEND_PATH lays out."""
    sender = verified_sender(runtime)
    paths = []
    for _ in range(3):
        with CallRecorder() as recorder:
            accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))
            calls = request_calls(recorder.since(0))
        paths.append(cloud.critical_ms(calls))

    assert (
        Counter(paths).most_common(1)[0][0]
        == cloud.path_ms(cloud.SEND_PATH)
        < sum(cloud.LATENCY_MS[name] for group in cloud.SEND_PATH for name in group)
    )


@pytest.mark.parametrize("recipients", [1, 37, 60, 99])
def test_a_batch_makes_exactly_the_calls_the_model_prices(runtime: Any, recipients: int) -> None:
    sender = verified_sender(runtime)
    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))  # the key's first use
    body = {
        "from": sender.address,
        "subject": "News",
        "text": "Hello {{ name }}",
        "tags": ["news"],
        "recipients": [{"to": recipient(), "vars": {"name": f"R{i}"}} for i in range(recipients)],
    }

    mix = _recorded(lambda: accepted(sender.live.post("/v3/messages.batch", json=body)))

    assert mix == cloud.batch_calls(recipients, tags=1)


def test_only_an_account_with_lists_looks_a_lone_to_up_as_a_list_address(runtime: Any) -> None:
    """The account's list_count, read with it by auth and kept by list create and delete in their
    transactions, spares a send the list lookup while the account has no lists."""
    sender = verified_sender(runtime)

    def get_items() -> int:
        mixes = [
            _recorded(lambda: accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient()))))
            for _ in range(3)
        ]
        return Counter(mix.get("dynamodb.GetItem", 0) for mix in mixes).most_common(1)[0][0]

    assert get_items() == 1
    created = [
        sender.live.post("/v3/lists", json={"address": f"l{n}-{sender.domain}@lists.example", "name": "L"})
        for n in (1, 2)
    ]
    assert [response.status_code for response in created] == [201, 201], created[0].text
    assert get_items() == 2  # the pause, and the address's list lookup
    assert sender.live.delete(f"/v3/lists/{created[0].json()['id']}").status_code == 200
    assert get_items() == 2  # one list left
    assert sender.live.delete(f"/v3/lists/{created[1].json()['id']}").status_code == 200
    assert get_items() == 1


def test_a_delivered_events_fan_out_makes_the_calls_the_webhook_model_lists(runtime: Any) -> None:
    """Three endpoints want `delivered`: the fan-out opens each delivery before its POST and records
    its attempt after it (cloud.FAN_OUT_BEFORE_POST, FAN_OUT_AFTER_POST), and clears no failure
    streak the endpoints do not have. Its endpoints Query is per invocation, not counted here. The
    open write is outside by_endpoint (webhook_delivery/store.py): one index write a delivery."""
    sender = verified_sender(runtime)
    memory = cloud.function_memory(TEMPLATE)
    with Receiver() as receiver:
        for n in range(3):
            body = {"url": f"{receiver.url}?endpoint={n}", "events": ["delivered"]}
            assert sender.test.post("/v3/webhooks", json=body).status_code == 201
        accepted(sender.test.post("/v3/messages", json=message(sender.address, SIMULATED_DELIVERY)))
        receiver.wait_for(3, timeout=60)  # the first: a fresh runtime's signing key is minted once
        runtime.drain(60)
        with CallRecorder() as recorder:
            accepted(sender.test.post("/v3/messages", json=message(sender.address, SIMULATED_DELIVERY)))
            receiver.wait_for(6, timeout=60)
            runtime.drain(60)
            calls = [
                call
                for call in recorder.since(0)
                if cloud.function_of(call.thread, memory) == cloud.FAN_OUT_FUNCTION
                and call.name not in cloud.FAN_OUT_PER_INVOCATION
                and sender.id in json.dumps(call.params, default=str)
            ]

    assert call_mix(calls) == cloud.fan_out_calls(3)
    units = cloud.write_units_by_item(calls, cloud.table_indexes(TEMPLATE))
    written = {label: (entry.units, entry.operations) for label, entry in units.items()}
    assert written == {
        "WebhookDeliveriesTable: webhook delivery": (6, {"PutItem": 6}),
        "WebhookDeliveriesTable: webhook delivery -> by_endpoint": (3, {"PutItem": 3}),
    }, written


def test_a_delivered_messages_counters_are_written_item_by_item_without_a_transaction(runtime: Any) -> None:
    """The roll-up and the activity consumer write each counter item with one conditional UpdateItem
    carrying the item's marks (shared/stream_marks.py), no transaction and no watermark item; the
    account's first counted event is written once per instance (not again here)."""
    sender = verified_sender(runtime)
    memory = cloud.function_memory(TEMPLATE)
    consumers = {"MetricsRollupFunction", "RecipientActivityFunction"}
    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))  # its first events
    runtime.drain(60)
    with CallRecorder() as recorder:
        accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))
        runtime.drain(60)
        writes = [
            call
            for call in recorder.since(0)
            if cloud.function_of(call.thread, memory) in consumers
            and call.service == "dynamodb"
            and call.operation in ("PutItem", "UpdateItem", "BatchWriteItem", "TransactWriteItems", "DeleteItem")
            and sender.id in json.dumps(call.params, default=str)
        ]

    assert writes and {call.operation for call in writes} == {"UpdateItem"}
    keys = [(call.params["Key"]["pk"]["S"], call.params["Key"]["sk"]["S"]) for call in writes]
    kinds = {pk.split("#", 1)[0] for pk, _ in keys}
    assert {"MET", "EVC", "ACTIVITY"} <= kinds <= {"MET", "EVC", "ACTIVITY", "REP"}  # no watermark item (MWM, AWM)
    assert "COVER" not in {sk for _, sk in keys}  # the account's first counted event: written before
    assert not [sk for pk, sk in keys if pk.startswith("MET#") and sk.startswith("mailbox_provider#")]
    counters = [call for call in writes if not call.params["Key"]["pk"]["S"].startswith("REP#")]
    assert all(stream_marks.MARK_PREFIX in str(call.params["ExpressionAttributeNames"]) for call in counters)


def test_a_messages_content_is_written_once_beside_it_and_its_state_changes_rewrite_a_small_item(
    runtime: Any,
) -> None:
    """The message item holds no sealed content: its body's item (sending/store.py) is written once,
    in the send's BatchWriteItem, and read once by whoever takes the lease, so the lease and the
    record (conditional UpdateItems, no transaction: its events follow in a BatchWriteItem) rewrite
    an item of 1 write unit, 3 units in all with the send's put, however large the content (4 units
    each before the body had its item); the record's events kept in the item leave it under 1 KB.
    The body is compressed and stored as bytes (sending/vault.py): a ~9 KB receipt takes 3 units
    (13 as base64 text of its JSON)."""
    sender = verified_sender(runtime)
    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))  # a warm path
    runtime.drain(60)
    html, text = receipt(3)  # varied lines, as a shop's receipts: ~8 KB of HTML and its text part
    content_kb = len(json.dumps({"html": html, "text": text})) / 1024
    with CallRecorder() as recorder:
        fields = {"html": html, "text": text}
        sent = accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient(), **fields)))
        runtime.drain(60)
        mine = f"MSG#{sent['id']}"
        calls = [c for c in recorder.since(0) if c.service == "dynamodb" and mine in json.dumps(c.params, default=str)]
        events = [
            c
            for c in recorder.since(0)
            if c.operation == "BatchWriteItem"
            and sent["id"] in json.dumps(c.params, default=str)
            and "EventsTable" in json.dumps(c.params, default=str)
        ]

    units = cloud.write_units_by_item(calls, cloud.table_indexes(TEMPLATE))
    written = {label.split(": ", 1)[1]: entry for label, entry in units.items() if label.startswith("MessagesTable")}
    assert set(written) == {"message", "message body"}, written
    assert written["message"].units == 3 and written["message"].operations == {
        "BatchWriteItem": 1,  # the send's
        "UpdateItem": 2,  # the lease; the recipient's record, which gives the lease up
    }
    assert "TransactWriteItems" not in call_mix(calls)
    assert len(events) == 2  # the queued event with the message; sent and delivered after the record
    stored = wiring.client("dynamodb").get_item(
        TableName=runtime.env["MESSAGES_TABLE"], Key={"pk": {"S": mine}, "sk": {"S": "MSG"}}
    )["Item"]
    assert "rec" in stored and cloud.item_bytes(stored) <= 1024, cloud.item_bytes(stored)
    assert written["message body"].operations == {"BatchWriteItem": 1}
    # Compressed bytes: under half its JSON's KB (as base64 text of the JSON, 4/3 of it and more).
    assert 1 < written["message body"].units < content_kb / 2
    body_reads = [c for c in calls if c.operation == "GetItem" and c.params["Key"]["sk"]["S"] == "BODY"]
    assert len(body_reads) == 1 and "Item" in (body_reads[0].response or {})
