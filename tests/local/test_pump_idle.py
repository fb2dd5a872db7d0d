"""A stream pump's idle() when the pump read on and acknowledged meanwhile (devtools/local/pumps.py):
the record after the checkpoint idle() read was trimmed, so it looks again, and says nothing of
records trimmed unread (it once warned "trimmed after 24 hours" on every such race)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from botocore.exceptions import ClientError

from devtools.local.activity import Activity
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

    def invoke(self, event: Any) -> Any:
        return None


def test_idle_after_the_pump_read_on_is_no_and_warns_of_nothing(caplog: pytest.LogCaptureFixture) -> None:
    streams = Streams()
    pump = StreamPump(
        BatchSettings(Function(), batch_size=100, window_seconds=0, report_failures=True),
        streams,
        ARN,
        "TRIM_HORIZON",
        Activity(),
        RecordFilter.of(None),
        wait_for_writes=lambda seen, timeout: seen,
        read_records=lambda iterator, limit, read: {"Records": [], "NextShardIterator": iterator},
        register=lambda shard, read: "42",  # the emulator knows the pump delivered up to 42
    )
    streams.trimmed_to = 100  # the pump delivered up to 100 and acknowledged it: 43-100 are trimmed
    with caplog.at_level(logging.WARNING, logger="devtools.local.pumps"):
        assert pump.idle() is False  # 43 was trimmed: the pump acknowledged past it, so look again
    assert streams.asked[-1] == {
        "StreamArn": ARN,
        "ShardId": "shard-1",
        "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
        "SequenceNumber": "42",
    }
    assert not [record for record in caplog.records if "trimmed" in record.getMessage()]
