"""Queues, streams and schedules drive the workers of tests/fixtures/pump-template.yaml.

Every test uses ids of its own: the stack is shared by the tests of a worker process.
Time only moves through /_local/clock/advance; /_local/drain says when deliveries are done.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import FixtureStack

pytestmark = pytest.mark.e2e


def _ids(prefix: str, count: int) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{prefix}-{tag}-{n}" for n in range(count)]


def _send(stack: FixtureStack, queue_url: str, *payloads: dict[str, Any]) -> None:
    entries = [{"Id": str(n), "MessageBody": json.dumps(payload)} for n, payload in enumerate(payloads)]
    response = stack.client("sqs").send_message_batch(QueueUrl=queue_url, Entries=entries)
    assert not response.get("Failed"), response


def _message_id(record: dict[str, Any]) -> str:
    message_id: str = json.loads(record["body"])["id"]
    return message_id


def _deliveries(stack: FixtureStack, worker: str, ids: list[str]) -> dict[str, int]:
    """How many times each message id reached the worker."""
    counts = dict.fromkeys(ids, 0)
    for event in stack.events(worker):
        for record in event["event"]["Records"]:
            if _message_id(record) in counts:
                counts[_message_id(record)] += 1
    return counts


def test_sqs_batches_hold_at_most_the_batch_size(fixture_stack: FixtureStack) -> None:
    ids = _ids("batch", 5)
    _send(fixture_stack, fixture_stack.env["JOBS_QUEUE_URL"], *({"id": i} for i in ids))

    fixture_stack.drain()

    ours = [event for event in fixture_stack.events("jobs") if _message_id(event["event"]["Records"][0]) in ids]
    batches = [[_message_id(record) for record in event["event"]["Records"]] for event in ours]
    assert sorted(i for batch in batches for i in batch) == sorted(ids)
    assert max(len(batch) for batch in batches) == 2  # BatchSize: 2, with a batching window
    first = ours[0]["event"]["Records"][0]
    assert first["eventSource"] == "aws:sqs"
    assert first["eventSourceARN"] == fixture_stack.env["JOBS_QUEUE_ARN"]
    assert first["attributes"]["ApproximateReceiveCount"] == "1"
    assert ours[0]["function"] == "postline-local-JobsWorker"


def test_a_partial_batch_failure_redelivers_only_the_failed_message(fixture_stack: FixtureStack) -> None:
    ok, failing, other = _ids("partial", 3)
    _send(fixture_stack, fixture_stack.env["JOBS_QUEUE_URL"], {"id": ok}, {"id": failing, "fail": 1}, {"id": other})

    fixture_stack.drain()  # idle although the failed message waits out its visibility timeout
    first = _deliveries(fixture_stack, "jobs", [ok, failing, other])
    fixture_stack.advance(45)  # VisibilityTimeout is 60 (the clock's real-time part moves on too)
    fixture_stack.drain()
    before_timeout = _deliveries(fixture_stack, "jobs", [ok, failing, other])
    fixture_stack.advance(16)
    fixture_stack.drain()

    assert first == before_timeout == {ok: 1, failing: 1, other: 1}
    assert _deliveries(fixture_stack, "jobs", [ok, failing, other]) == {ok: 1, failing: 2, other: 1}


def test_a_message_that_keeps_failing_goes_to_the_dead_letter_queue(fixture_stack: FixtureStack) -> None:
    (poison,) = _ids("poison", 1)
    _send(fixture_stack, fixture_stack.env["JOBS_QUEUE_URL"], {"id": poison, "fail": 99})

    fixture_stack.drain()
    for _ in range(2):  # maxReceiveCount is 2: the third receive moves it to the DLQ
        fixture_stack.advance(61)
        fixture_stack.drain()

    assert _deliveries(fixture_stack, "jobs", [poison]) == {poison: 2}
    dead = fixture_stack.client("sqs").receive_message(
        QueueUrl=fixture_stack.env["JOBS_DLQ_URL"], MaxNumberOfMessages=10, WaitTimeSeconds=1
    )
    assert poison in [json.loads(message["Body"])["id"] for message in dead["Messages"]]


def test_without_partial_responses_one_failure_fails_the_whole_batch(fixture_stack: FixtureStack) -> None:
    ok, failing = _ids("plain", 2)
    _send(fixture_stack, fixture_stack.env["PLAIN_QUEUE_URL"], {"id": ok}, {"id": failing, "fail": 1})

    fixture_stack.drain()
    first = _deliveries(fixture_stack, "plain", [ok, failing])
    fixture_stack.advance(31)  # VisibilityTimeout is 30
    fixture_stack.drain()

    assert first == {ok: 1, failing: 1}
    assert _deliveries(fixture_stack, "plain", [ok, failing]) == {ok: 2, failing: 2}


def _stream_records(stack: FixtureStack, item_id: str) -> list[dict[str, Any]]:
    return [
        record
        for event in stack.events("items")
        for record in event["event"]["Records"]
        if record["dynamodb"]["Keys"]["id"]["S"] == item_id
    ]


def test_stream_records_carry_old_and_new_images(fixture_stack: FixtureStack) -> None:
    (item_id,) = _ids("item", 1)
    dynamodb = fixture_stack.client("dynamodb")
    table = fixture_stack.env["ITEMS_TABLE"]
    key = {"id": {"S": item_id}}

    dynamodb.put_item(TableName=table, Item={**key, "n": {"N": "1"}, "blob": {"B": b"\x00\x01"}})
    dynamodb.update_item(
        TableName=table, Key=key, UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "2"}}
    )
    dynamodb.delete_item(TableName=table, Key=key)
    fixture_stack.drain()

    records = _stream_records(fixture_stack, item_id)
    assert [record["eventName"] for record in records] == ["INSERT", "MODIFY", "REMOVE"]
    insert, modify, remove = (record["dynamodb"] for record in records)
    assert insert["NewImage"] == {**key, "n": {"N": "1"}, "blob": {"B": "AAE="}}
    assert "OldImage" not in insert
    assert (modify["OldImage"]["n"], modify["NewImage"]["n"]) == ({"N": "1"}, {"N": "2"})
    assert remove["OldImage"]["n"] == {"N": "2"} and "NewImage" not in remove
    assert insert["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert isinstance(insert["ApproximateCreationDateTime"], int)
    assert records[0]["eventSource"] == "aws:dynamodb"
    assert records[0]["eventSourceARN"].startswith(f"arn:aws:dynamodb:us-east-1:123456789012:table/{table}/stream/")


def test_a_failed_stream_record_is_retried_from_its_sequence_number(fixture_stack: FixtureStack) -> None:
    before, failing = _ids("seq", 2)
    dynamodb = fixture_stack.client("dynamodb")
    table = fixture_stack.env["ITEMS_TABLE"]

    dynamodb.put_item(TableName=table, Item={"id": {"S": before}})
    dynamodb.put_item(TableName=table, Item={"id": {"S": failing}, "fail": {"N": "1"}})
    fixture_stack.drain()

    assert len(_stream_records(fixture_stack, before)) == 1
    retried = _stream_records(fixture_stack, failing)
    assert len(retried) == 2
    assert retried[0]["dynamodb"]["SequenceNumber"] == retried[1]["dynamodb"]["SequenceNumber"]


def test_a_batch_with_a_batching_window_waits_for_a_running_prompt_batch(fixture_stack: FixtureStack) -> None:
    """The jobs' mapping has a window (its function can wait); the items' stream has none (prompt):
    a jobs batch ready while an items batch runs starts after it (devtools/local/activity.py)."""
    (slow,), (job,) = _ids("prompt", 1), _ids("deferred", 1)
    fixture_stack.client("dynamodb").put_item(
        TableName=fixture_stack.env["ITEMS_TABLE"], Item={"id": {"S": slow}, "sleep": {"N": "2.5"}}
    )
    deadline = time.monotonic() + 30
    while not _stream_records(fixture_stack, slow) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _stream_records(fixture_stack, slow), "the items batch did not start"
    # Its window closes 1 s after this is received, well before the items batch ends.
    _send(fixture_stack, fixture_stack.env["JOBS_QUEUE_URL"], {"id": job})
    fixture_stack.drain()

    (ended,) = [e["at"] for e in fixture_stack.events("items-ended") if e["event"]["id"] == slow]
    (started,) = [e["at"] for e in fixture_stack.events("jobs") if _message_id(e["event"]["Records"][0]) == job]
    assert started >= ended


def _ticks(stack: FixtureStack, function: str) -> list[Any]:
    return [event["event"] for event in stack.events("ticks") if event["function"] == f"postline-local-{function}"]


def _a_minute_clear_of(fixture_stack: FixtureStack, period: int, offset: int = 0) -> datetime:
    """The runtime's time, moved past the next multiple of `period` (+ offset) seconds if that is
    within a minute: the tests look at the schedule a minute before it fires."""
    now = fixture_stack.advance(0)
    if (period - (now.timestamp() - offset) % period) % period <= 60:
        now = fixture_stack.advance(120)
    return now


def test_a_rate_schedule_fires_when_the_clock_passes_it_and_not_before(fixture_stack: FixtureStack) -> None:
    now = _a_minute_clear_of(fixture_stack, 3600)
    next_hour = datetime.fromtimestamp((int(now.timestamp()) // 3600 + 1) * 3600, UTC)  # rate(1 hour)
    fired = len(_ticks(fixture_stack, "HourlyWorker"))

    fixture_stack.advance((next_hour - now).total_seconds() - 60)
    not_yet = len(_ticks(fixture_stack, "HourlyWorker"))
    fixture_stack.advance(120)

    assert not_yet == fired
    assert _ticks(fixture_stack, "HourlyWorker")[fired:] == [{}]  # ScheduleV2 without Input


def test_a_cron_rule_fires_at_its_time_with_its_input(fixture_stack: FixtureStack) -> None:
    now = _a_minute_clear_of(fixture_stack, 86400, offset=12 * 3600)
    noon = now.replace(hour=12, minute=0, second=0, microsecond=0)
    noon += timedelta(days=1) if noon <= now else timedelta()  # cron(0 12 * * ? *)
    fired = len(_ticks(fixture_stack, "NoonWorker"))

    fixture_stack.advance((noon - now).total_seconds() - 60)
    not_yet = len(_ticks(fixture_stack, "NoonWorker"))
    fixture_stack.advance(120)

    assert not_yet == fired
    # Only the noon rule: its sibling rate(1 minute) rule is disabled.
    assert _ticks(fixture_stack, "NoonWorker")[fired:] == [{"job": "noon"}]


def test_a_one_time_scheduler_schedule_sends_its_input_to_the_queue_when_due(
    fixture_stack: FixtureStack,
) -> None:
    (message_id,) = _ids("scheduled", 1)
    scheduler = fixture_stack.client("scheduler")
    name = f"send-{message_id}"
    due = fixture_stack.advance(0) + timedelta(hours=1)
    scheduler.create_schedule(
        Name=name,
        ScheduleExpression=f"at({due:%Y-%m-%dT%H:%M:%S})",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={
            "Arn": fixture_stack.env["JOBS_QUEUE_ARN"],
            "RoleArn": "arn:aws:iam::123456789012:role/scheduler",
            "Input": json.dumps({"id": message_id, "at": "<aws.scheduler.scheduled-time>"}),
        },
        ActionAfterCompletion="DELETE",
    )

    fixture_stack.advance(1800)
    fixture_stack.drain()
    early = _deliveries(fixture_stack, "jobs", [message_id])
    fixture_stack.advance(1801)
    fixture_stack.drain()

    assert early == {message_id: 0}
    assert _deliveries(fixture_stack, "jobs", [message_id]) == {message_id: 1}
    body = next(
        json.loads(record["body"])
        for event in fixture_stack.events("jobs")
        for record in event["event"]["Records"]
        if _message_id(record) == message_id
    )
    assert body["at"] == f"{due:%Y-%m-%dT%H:%M:%S}Z"
    with pytest.raises(ClientError, match="ResourceNotFound"):
        scheduler.get_schedule(Name=name)


def test_drain_answers_503_while_a_stream_keeps_retrying(fixture_stack: FixtureStack) -> None:
    (item_id,) = _ids("stuck", 1)
    dynamodb = fixture_stack.client("dynamodb")
    # Four failures take 0.1 + 0.2 + 0.4 + 0.8 s of back-off before the fifth attempt succeeds.
    dynamodb.put_item(TableName=fixture_stack.env["ITEMS_TABLE"], Item={"id": {"S": item_id}, "fail": {"N": "4"}})

    busy = fixture_stack.api.post("/_local/drain", json={"timeout": 0.3})
    fixture_stack.drain()

    assert busy.status_code == 503
    assert busy.json()["error"]["code"] == "not_idle"
    assert "ItemsWorker <- postline-local-ItemsTable stream" in busy.json()["error"]["message"]
    assert busy.json()["request_id"] == busy.headers["X-Request-Id"]
    assert len(_stream_records(fixture_stack, item_id)) == 5


def _kept_in_stream(stack: FixtureStack, item_ids: list[str]) -> list[str]:
    """The items' records the items table's stream still keeps (read from its oldest)."""
    streams = stack.client("dynamodbstreams")
    arn = stack.client("dynamodb").describe_table(TableName=stack.env["ITEMS_TABLE"])["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    kept: list[str] = []
    page = streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=1000)
    while page["Records"]:
        kept += [
            r["dynamodb"]["Keys"]["id"]["S"] for r in page["Records"] if r["dynamodb"]["Keys"]["id"]["S"] in item_ids
        ]
        page = streams.get_records(ShardIterator=page["NextShardIterator"], Limit=1000)
    return kept


def test_the_stream_keeps_a_record_until_its_pump_has_delivered_it(fixture_stack: FixtureStack) -> None:
    """The emulator trims what every stream pump has read (devtools/moto_patches/stream_trims.py):
    a `make run` left running does not keep every record ever written."""
    delivered, stuck = _ids("trim", 2)
    dynamodb = fixture_stack.client("dynamodb")
    table = fixture_stack.env["ITEMS_TABLE"]
    for n in range(50):
        dynamodb.put_item(TableName=table, Item={"id": {"S": delivered}, "n": {"N": str(n)}})
    # Four failures: 1.5 s of back-off before the fifth attempt succeeds.
    dynamodb.put_item(TableName=table, Item={"id": {"S": stuck}, "fail": {"N": "4"}})

    busy = fixture_stack.api.post("/_local/drain", json={"timeout": 0.2})
    kept_while_retrying = _kept_in_stream(fixture_stack, [stuck])
    fixture_stack.drain()

    assert busy.status_code == 503
    assert kept_while_retrying == [stuck]  # its pump has not delivered it yet
    assert len(_stream_records(fixture_stack, delivered)) == 50
    assert _kept_in_stream(fixture_stack, [delivered, stuck]) == []  # delivered: trimmed
