"""A stream pump past a stale position (devtools/local/pumps.py).

Its poll with an iterator that expired (a table unwritten for 15 minutes) reads the records that
woke it at once, from a new iterator: it once returned nothing and waited for the table's next
write, up to 20 s, holding a drain that long.

Its idle() when the record after the checkpoint it read is trimmed (devtools/local/pumps.py):
the pump read on and acknowledged meanwhile, or the records were trimmed by age (24 hours on a moved
clock) before a pump that waits for INSERTs read the updates after its checkpoint. Either way idle()
reads on from the oldest record kept, as the pump will, and warns of nothing: it once warned
"trimmed after 24 hours" on every race with the pump; the pump warns when it finds records trimmed
unread itself. (Answering "look again" instead held a drain until that pump's next read: 20 s.)"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from botocore.exceptions import ClientError

from devtools.local.activity import Activity
from devtools.local.emulator import StreamIteratorExpired
from devtools.local.lambda_filters import RecordFilter
from devtools.local.pumps import BatchSettings, StreamPump

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/2026-11-29T00:00:00.000"


class Streams:
    """GetShardIterator as the emulator answers it: records before `trimmed_to` are gone."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        self.trimmed_to = 0

    def describe_stream(self, **_: Any) -> dict[str, Any]:
        return {"StreamDescription": {"Shards": [{"ShardId": "shard-1"}]}}

    def get_shard_iterator(self, **request: Any) -> dict[str, Any]:
        self.asked.append(request)
        if request["ShardIteratorType"] == "AFTER_SEQUENCE_NUMBER" and int(request["SequenceNumber"]) < self.trimmed_to:
            raise ClientError({"Error": {"Code": "TrimmedDataAccessException"}}, "GetShardIterator")
        return {"ShardIterator": f"it-{request['ShardIteratorType']}"}


class Function:
    logical_id = name = "F"

    def __init__(self) -> None:
        self.given: list[list[str]] = []

    def invoke(self, event: Any) -> Any:
        self.given.append([record["dynamodb"]["SequenceNumber"] for record in event["Records"]])
        return None


def _pump(streams: Streams, unread: list[dict[str, Any]]) -> StreamPump:
    def read_records(iterator: str, limit: int, read: str | None) -> dict[str, Any]:
        records = unread if iterator == "it-TRIM_HORIZON" else []
        return {"Records": records[:limit], "NextShardIterator": iterator}

    return StreamPump(
        BatchSettings(Function(), batch_size=100, window_seconds=0, report_failures=True),
        streams,
        ARN,
        "TRIM_HORIZON",
        Activity(),
        RecordFilter.of({"Filters": [{"Pattern": '{"eventName": ["INSERT"]}'}]}),
        wait_for_writes=lambda seen, timeout: seen,
        read_records=read_records,
        register=lambda shard, read: "42",  # the emulator knows the pump delivered up to 42
    )


def _record(name: str, sequence_number: int) -> dict[str, Any]:
    return {"eventName": name, "dynamodb": {"SequenceNumber": str(sequence_number)}}


@pytest.mark.parametrize(
    ("unread", "idle"),
    [([], True), ([_record("MODIFY", 101)], True), ([_record("MODIFY", 101), _record("INSERT", 102)], False)],
    ids=["nothing kept", "only records it drops", "a record it takes"],
)
def test_idle_past_trimmed_records_reads_on_from_the_oldest_kept_and_warns_of_nothing(
    caplog: pytest.LogCaptureFixture, unread: list[dict[str, Any]], idle: bool
) -> None:
    streams = Streams()
    pump = _pump(streams, unread)
    streams.trimmed_to = 101  # 43-100 are gone
    with caplog.at_level(logging.WARNING, logger="devtools.local.pumps"):
        assert pump.idle() is idle
    after_checkpoint = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": "42"}
    assert streams.asked[-2:] == [
        {"StreamArn": ARN, "ShardId": "shard-1", **after_checkpoint},
        {"StreamArn": ARN, "ShardId": "shard-1", "ShardIteratorType": "TRIM_HORIZON"},
    ]
    assert not [record for record in caplog.records if "trimmed" in record.getMessage()]


def test_a_poll_with_an_expired_iterator_reads_what_woke_it_at_once() -> None:
    function = Function()
    expired = {"it-AFTER_SEQUENCE_NUMBER"}  # the iterator the pump made at its start, 15 minutes ago

    def read_records(iterator: str, limit: int, read: str | None) -> dict[str, Any]:
        if iterator in expired:
            expired.clear()  # the pump's next one is new
            raise StreamIteratorExpired("GetRecords answered 400: ExpiredIteratorException")
        return {"Records": [_record("INSERT", 43)], "NextShardIterator": "it-next"}

    pump = StreamPump(
        BatchSettings(function, batch_size=100, window_seconds=0, report_failures=True),
        Streams(),
        ARN,
        "TRIM_HORIZON",
        Activity(),
        RecordFilter.of(None),
        wait_for_writes=lambda seen, timeout: seen,
        read_records=read_records,
        register=lambda shard, read: "42",
    )
    assert pump._poll_shard("shard-1") is True
    assert function.given == [["43"]]
