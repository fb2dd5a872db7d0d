"""bench/cloud.py: request units from item sizes, SQS chunks, what is free, and modeled latency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import cloud
from bench.recorder import Call

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


def _call(
    name: str,
    params: dict[str, Any],
    response: dict[str, Any] | None = None,
    *,
    thread: str = "Thread-1 (process_request_thread) > postline-local-SendMessageFunction",
    serial: int = 1,
    started: float = 0.0,
) -> Call:
    service, operation = name.split(".")
    return Call(thread, service, operation, params, started, 0.001, response or {}, serial)


def _item(size: int, key: str = "a") -> dict[str, Any]:
    """An item of exactly `size` bytes by DynamoDB's rules (names + values)."""
    base = {"pk": {"S": key}, "sk": {"S": "x"}}
    used = cloud.item_bytes(base)
    return {**base, "d": {"S": "z" * (size - used - 1)}}


def test_item_size_follows_the_published_rules() -> None:
    item = {"pk": {"S": "ab"}, "n": {"N": "12345"}, "ok": {"BOOL": True}, "m": {"M": {"k": {"S": "v"}}}}
    # pk 2+2, n 1+(5//2+1), ok 2+1, m 1+3+(1+1+1)
    assert cloud.item_bytes(item) == 4 + 4 + 3 + 7
    assert cloud.item_bytes(_item(1500)) == 1500


def test_writes_cost_a_unit_per_started_kilobyte_and_twice_in_a_transaction() -> None:
    table = "T"
    batch = _call(
        "dynamodb.BatchWriteItem", {"RequestItems": {table: [{"PutRequest": {"Item": _item(1500, k)}} for k in "abc"]}}
    )
    update = _call(
        "dynamodb.TransactWriteItems",
        {"TransactItems": [{"Update": {"TableName": table, "Key": {"pk": {"S": "a"}, "sk": {"S": "x"}}}}]},
    )
    usage = cloud.usage_of([batch, update])
    # 1,500 bytes (+100 of index overhead) is 2 units; the update is billed for the whole item it changes
    assert usage.units["dynamodb.write_unit"] == 3 * 2 + 2 * 2
    assert usage.calls == {"dynamodb.BatchWriteItem": 1, "dynamodb.TransactWriteItems": 1}


def test_reads_cost_by_four_kilobytes_halved_when_eventually_consistent() -> None:
    missing = _call("dynamodb.GetItem", {"TableName": "T", "Key": {}})
    consistent = _call("dynamodb.GetItem", {"TableName": "T", "Key": {}, "ConsistentRead": True}, {"Item": _item(9000)})
    batch = _call(
        "dynamodb.BatchGetItem",
        {"RequestItems": {"T": {"Keys": [{"pk": {"S": str(i)}} for i in range(4)]}}},
        {"Responses": {"T": [_item(100, "0")]}},
    )
    assert cloud.usage_of([missing]).units["dynamodb.read_unit"] == 0.5
    assert cloud.usage_of([consistent]).units["dynamodb.read_unit"] == 3
    assert cloud.usage_of([batch]).units["dynamodb.read_unit"] == 4 * 0.5  # the three missing keys still cost


def test_a_count_query_is_billed_for_what_it_scanned_at_the_mean_size_seen() -> None:
    page = _call(
        "dynamodb.Query",
        {"TableName": "E"},
        {"Items": [_item(1024, str(i)) for i in range(4)], "Count": 4, "ScannedCount": 4},
    )
    count = _call("dynamodb.Query", {"TableName": "E", "Select": "COUNT"}, {"Count": 1000, "ScannedCount": 1000})
    usage = cloud.usage_of([page, count])
    assert usage.units["dynamodb.read_unit"] == pytest.approx(0.5 + 250 * 0.5)  # 1,000 x 1 KB = 250 x 4 KB


def test_sqs_is_billed_per_64_kilobytes_and_idle_polls_are_not_the_operations() -> None:
    entries = [{"Id": str(i), "MessageBody": "x" * 10_000} for i in range(10)]
    send = _call("sqs.SendMessageBatch", {"Entries": entries})
    idle = _call("sqs.ReceiveMessage", {}, {}, thread="pump DispatcherFunction")
    busy = _call("sqs.ReceiveMessage", {}, {"Messages": [{}]}, thread="pump DispatcherFunction")
    usage = cloud.usage_of([send, idle, busy])
    assert usage.units["sqs.request"] == 2 + 1
    assert "sqs.ReceiveMessage" in usage.calls and usage.calls["sqs.ReceiveMessage"] == 1


def test_stream_reads_and_cached_secrets_are_not_priced_but_ses_is_added() -> None:
    usage = cloud.usage_of(
        [_call("dynamodbstreams.GetRecords", {}), _call("secretsmanager.GetSecretValue", {})], ses_messages=2
    )
    assert usage.units == {"ses.message": 2}
    assert usage.dollars == pytest.approx(2 * 0.10 / 1000)


def test_a_request_waits_for_its_own_calls_and_its_busiest_worker() -> None:
    root = "Thread-1 (process_request_thread) > postline-local-SendBatchFunction"
    calls = [
        _call("dynamodb.GetItem", {}, thread=root, serial=1),
        *(_call("sqs.SendMessageBatch", {}, thread=f"{root} > part_0", serial=2) for _ in range(3)),
        _call("sqs.SendMessageBatch", {}, thread=f"{root} > part_1", serial=3),
    ]
    expected = cloud.API_GATEWAY_MS + cloud.LAMBDA_INVOKE_MS + 5 + 3 * 20
    assert cloud.request_ms(calls) == expected


def test_a_request_takes_its_critical_path_runs_one_after_another_and_nested_runs_alike() -> None:
    """As the send path makes them: auth alone; run 4 (the pause beside the suppressions); run 9 (the
    quota beside the job, the job's worker itself running two side by side in run 12); the message."""
    root = "Thread-1 (process_request_thread) > postline-local-SendMessageFunction"
    calls = [
        _call("dynamodb.BatchGetItem", {}, thread=root),
        _call("dynamodb.GetItem", {}, thread=f"{root} > part4_0"),
        _call("dynamodb.BatchGetItem", {}, thread=f"{root} > part4_1"),
        _call("dynamodb.TransactWriteItems", {}, thread=f"{root} > part9_0"),
        _call("sqs.SendMessage", {}, thread=f"{root} > part9_1 > part12_0"),
        _call("sqs.SendMessageBatch", {}, thread=f"{root} > part9_1 > part12_1"),
        _call("dynamodb.BatchWriteItem", {}, thread=root),
    ]
    path = 10 + max(5, 10) + max(15, max(15, 20)) + 12
    assert cloud.critical_ms(calls) == path
    assert cloud.request_ms(calls) == cloud.API_GATEWAY_MS + cloud.LAMBDA_INVOKE_MS + path
    assert cloud.sequential_ms(calls) == cloud.API_GATEWAY_MS + cloud.LAMBDA_INVOKE_MS + 10 + 5 + 10 + 15 + 15 + 20 + 12


def test_compute_is_the_span_less_the_calls_and_the_runs_waited_for() -> None:
    root = "request"
    calls = [
        Call(root, "dynamodb", "GetItem", {}, 0.000, 0.005),
        Call(f"{root} > part3_0", "dynamodb", "GetItem", {}, 0.006, 0.004),  # run 3: 0.006-0.012
        Call(f"{root} > part3_1", "dynamodb", "GetItem", {}, 0.007, 0.005),
        Call(root, "dynamodb", "GetItem", {}, 0.015, 0.005),  # ends at 0.020
    ]
    assert cloud.compute_ms(calls) == pytest.approx((0.020 - 0.010 - 0.006) * 1000)


def test_a_sealing_key_kept_by_the_instance_is_not_priced_per_send() -> None:
    assert cloud.usage_of([_call("kms.GenerateDataKey", {})]).units == {}


def test_each_invocation_is_one_lambda_request_with_its_workers() -> None:
    memory = cloud.function_memory(TEMPLATE)
    root = "pump DispatcherFunction > postline-local-DispatcherFunction"
    calls = [
        _call("dynamodb.GetItem", {}, thread=root, serial=7, started=1.0),
        _call("dynamodb.GetItem", {}, thread=root, serial=8, started=2.0),  # the next invocation
        _call("sqs.ReceiveMessage", {}, {"Messages": [{}]}, thread="pump DispatcherFunction", serial=9),
    ]
    usage, invocations = cloud.lambda_usage(calls, memory)
    assert invocations == {"DispatcherFunction": 2}
    assert usage.units["lambda.request"] == 2
    assert usage.units["lambda.gb_second"] > 0


_EVENTS = {
    "EventsTable": (
        cloud.Index("by_message", ("message_id", "sk"), "ALL"),
        cloud.Index("by_type", ("type_key", "sk"), "KEYS_ONLY"),
        cloud.Index("by_recipient", ("recipient_key", "sk"), "INCLUDE", frozenset({"status"})),
    )
}


def test_an_items_writes_to_its_indexes_are_billed_as_the_projection_and_not_doubled() -> None:
    event = {**_item(1500, "e"), "message_id": {"S": "m1"}, "type_key": {"S": "t"}}  # not in by_recipient
    put = _call(
        "dynamodb.TransactWriteItems", {"TransactItems": [{"Put": {"TableName": "st-EventsTable", "Item": event}}]}
    )
    bare = cloud.usage_of([put]).units["dynamodb.write_unit"]
    indexed = cloud.usage_of([put], indexes=_EVENTS).units["dynamodb.write_unit"]
    # by_message holds the whole item (2 units), by_type its keys (1); a transaction doubles neither
    assert bare == 2 * 2
    assert indexed == bare + 2 + 1
    elsewhere = _call("dynamodb.PutItem", {"TableName": "st-OtherTable", "Item": event})
    assert cloud.usage_of([elsewhere], indexes=_EVENTS).units["dynamodb.write_unit"] == 2


def test_an_update_writes_an_index_when_it_changes_what_the_index_holds() -> None:
    stored = {**_item(500, "e"), "message_id": {"S": "m1"}, "type_key": {"S": "t"}, "recipient_key": {"S": "r"}}
    seen = _call("dynamodb.GetItem", {"TableName": "st-EventsTable", "Key": {}}, {"Item": stored})
    key = {"pk": stored["pk"], "sk": stored["sk"]}

    def update(expression: str, names: dict[str, str] | None = None) -> float:
        params: dict[str, Any] = {"TableName": "st-EventsTable", "Key": key, "UpdateExpression": expression}
        if names:
            params["ExpressionAttributeNames"] = names
        call = _call("dynamodb.UpdateItem", params)
        return cloud.usage_of([seen, call], indexes=_EVENTS).units["dynamodb.write_unit"] - 1  # the base write

    assert update("SET other = :v") == 1  # by_message (ALL) only
    assert update("SET #s = :status", {"#s": "status"}) == 1 + 1  # and by_recipient, which includes it
    assert update("SET type_key = :type_key") == 1 + 2  # by_type's key moves: a delete and a put there
    delete = _call("dynamodb.DeleteItem", {"TableName": "st-EventsTable", "Key": key})
    assert cloud.usage_of([seen, delete], indexes=_EVENTS).units["dynamodb.write_unit"] == 1 + 3


def test_the_templates_indexes_are_read_from_it() -> None:
    indexes = cloud.table_indexes(TEMPLATE)
    assert [index.name for index in indexes["EventsTable"]] == ["by_message", "by_recipient", "by_type", "by_tag"]
    assert indexes["EventsTable"][0].keys == ("message_id", "sk")


def test_write_units_by_item_name_each_kind_and_index_and_add_up_to_the_usage() -> None:
    event = {**_item(1500, "EVT#acct#2026-11-28"), "message_id": {"S": "m1"}, "type_key": {"S": "t"}}
    rollup = {"pk": {"S": "MET#acct#live#2026-11-28"}, "sk": {"S": "sending_domain#example.com#15"}}
    calls = [
        _call(
            "dynamodb.TransactWriteItems",
            {
                "TransactItems": [
                    {"Put": {"TableName": "st-EventsTable", "Item": event}},
                    {"Update": {"TableName": "st-CountersTable", "Key": rollup, "UpdateExpression": "ADD a :v"}},
                ]
            },
        ),
        _call("dynamodb.UpdateItem", {"TableName": "st-CountersTable", "Key": rollup, "UpdateExpression": "ADD a :v"}),
        _call("dynamodb.GetItem", {"TableName": "st-CountersTable", "Key": rollup}, {"Item": rollup}),
    ]

    by = cloud.write_units_by_item(calls, _EVENTS)

    assert {label: (entry.units, entry.writes) for label, entry in by.items()} == {
        "EventsTable: event": (4, 1),  # 1,500 bytes: 2 units, twice in a transaction
        "EventsTable: event -> by_message": (2, 1),
        "CountersTable: metrics roll-up hour item sending_domain": (2 + 1, 2),
        "EventsTable: event -> by_type": (1, 1),
    }
    assert dict(by["CountersTable: metrics roll-up hour item sending_domain"].operations) == {
        "TransactWriteItems": 1,
        "UpdateItem": 1,
    }
    assert next(iter(by)) == "EventsTable: event"  # largest first
    assert (
        sum(entry.units for entry in by.values()) == cloud.usage_of(calls, indexes=_EVENTS).units["dynamodb.write_unit"]
    )


def test_a_messages_body_item_is_its_own_kind_beside_the_message() -> None:
    message, body, copy = ({"pk": {"S": "MSG#m1"}, "sk": {"S": sk}} for sk in ("MSG", "BODY", "COPY#a@b.c"))
    assert cloud.item_label("st-MessagesTable", message) == "MessagesTable: message"
    assert cloud.item_label("st-MessagesTable", body) == "MessagesTable: message body"
    assert cloud.item_label("st-MessagesTable", copy) == "MessagesTable: message"


def test_removing_an_index_key_writes_the_index_only_when_the_item_held_it() -> None:
    indexes = {"MessagesTable": (cloud.Index("scheduled", ("sched_pk", "sched_sk"), "KEYS_ONLY"),)}
    plain = {**_item(300, "MSG#m1")}
    scheduled = {**_item(300, "MSG#m2"), "sched_pk": {"S": "due"}, "sched_sk": {"S": "t#m2"}}

    def lease(item: dict[str, Any]) -> float:
        seen = _call("dynamodb.GetItem", {"TableName": "st-MessagesTable", "Key": {}}, {"Item": item})
        key = {"pk": item["pk"], "sk": item["sk"]}
        update = _call(
            "dynamodb.UpdateItem",
            {
                "TableName": "st-MessagesTable",
                "Key": key,
                "UpdateExpression": "SET lease_owner = :owner REMOVE sched_pk, sched_sk",
            },
        )
        return cloud.usage_of([seen, update], indexes=indexes).units["dynamodb.write_unit"] - 1  # the base write

    assert lease(plain) == 0  # nothing entered or left the index
    assert lease(scheduled) == 1  # out of the index
