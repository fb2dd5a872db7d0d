"""The emulator's stream wait (devtools/moto_patches/stream_writes.py): a stream pump's long poll
answers as soon as its table's stream gets a record, and only then (or at its timeout).

Against a real emulator child: its HTTP server, moto's tables and streams, the patch as installed.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from devtools.local.emulator import Emulator
from devtools.moto_patches import stream_writes


def _table(emulator: Emulator, name: str, stream: bool = True) -> Any:
    dynamodb = emulator.client("dynamodb")
    spec: dict[str, Any] = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"} if stream else {}
    dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        **({"StreamSpecification": spec} if stream else {}),
    )
    return dynamodb


def test_a_wait_returns_when_its_table_is_written(emulator: Emulator) -> None:
    dynamodb = _table(emulator, "woken")
    _table(emulator, "other")
    assert emulator.stream_writes("woken", 0, 0) == 0
    answers: list[tuple[int, float]] = []

    def wait() -> None:
        began = time.monotonic()
        answers.append((emulator.stream_writes("woken", 0, 10), time.monotonic() - began))

    emulator.client("dynamodb").put_item(TableName="other", Item={"pk": {"S": "elsewhere"}})
    assert emulator.stream_writes("woken", 0, 0.2) == 0  # another table's record does not answer it
    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)  # the waiter enters its long poll: the write below must wake it, not precede it
    dynamodb.put_item(TableName="woken", Item={"pk": {"S": "a"}})
    waiter.join(10)
    ((count, seconds),) = answers
    assert count == 1
    assert seconds < 5  # woken by the write, not by its 10 s timeout


def test_a_wait_past_the_count_answers_at_once_and_otherwise_at_its_timeout(emulator: Emulator) -> None:
    dynamodb = _table(emulator, "counted")
    for key in ("a", "b"):
        dynamodb.put_item(TableName="counted", Item={"pk": {"S": key}})
    dynamodb.update_item(
        TableName="counted",
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"N": "1"}},
    )
    began = time.monotonic()
    assert emulator.stream_writes("counted", 0, 10) == 3  # written before the wait: answered at once
    assert time.monotonic() - began < 5
    began = time.monotonic()
    assert emulator.stream_writes("counted", 3, 0.3) == 3
    assert time.monotonic() - began >= 0.3


def test_an_insert_wait_counts_inserts_and_is_not_answered_by_an_update(emulator: Emulator) -> None:
    dynamodb = _table(emulator, "inserted")
    dynamodb.put_item(TableName="inserted", Item={"pk": {"S": "a"}})
    dynamodb.put_item(TableName="inserted", Item={"pk": {"S": "a"}, "n": {"N": "1"}})  # a MODIFY
    dynamodb.delete_item(TableName="inserted", Key={"pk": {"S": "a"}})  # a REMOVE
    assert emulator.stream_writes("inserted", 0, 0) == 3
    assert emulator.stream_writes("inserted", 0, 0, inserts=True) == 1
    answers: list[tuple[int, float]] = []

    def wait() -> None:
        began = time.monotonic()
        answers.append((emulator.stream_writes("inserted", 1, 10, inserts=True), time.monotonic() - began))

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)
    dynamodb.put_item(TableName="inserted", Item={"pk": {"S": "b"}})
    dynamodb.put_item(TableName="inserted", Item={"pk": {"S": "b"}, "n": {"N": "2"}})
    waiter.join(10)
    ((count, seconds),) = answers
    assert count == 2 and seconds < 5
    began = time.monotonic()
    dynamodb.put_item(TableName="inserted", Item={"pk": {"S": "b"}, "n": {"N": "3"}})  # an update only
    assert emulator.stream_writes("inserted", 2, 0.3, inserts=True) == 2
    assert time.monotonic() - began >= 0.3  # not woken by it


def test_the_stream_writes_patch_matches_the_pinned_moto() -> None:
    stream_writes.check_internals()  # raises when moto writes stream records another way
