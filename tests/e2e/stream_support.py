"""Reading a table's stream again in a test (a replay), on an emulator that trims what every
registered consumer has read (devtools/moto_patches/stream_trims.py): the test registers as a
consumer of its own before it writes, so the records are kept until it has read them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests

from devtools.local.emulator import STREAM_CONSUMERS_PATH
from postline import wiring


class KeptStream:
    def __init__(self, endpoint_url: str, table: str) -> None:
        self._endpoint_url = endpoint_url
        self._streams = wiring.client("dynamodbstreams")
        self.arn: str = wiring.client("dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
        self._shards = [
            shard["ShardId"]
            for shard in self._streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        ]
        self._consumer = f"test {uuid.uuid4().hex}"

    def _register(self, shard: str, forget: bool) -> None:
        body = {"stream": self.arn, "shard": shard, "consumer": self._consumer, "read": None, "forget": forget}
        response = requests.post(self._endpoint_url + STREAM_CONSUMERS_PATH, json=body, timeout=30)
        assert response.status_code == 200, response.text

    def records(self) -> list[dict[str, Any]]:
        """Every record kept, from the oldest."""
        records: list[dict[str, Any]] = []
        for shard in self._shards:
            iterator = self._streams.get_shard_iterator(
                StreamArn=self.arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            while iterator:
                page = self._streams.get_records(ShardIterator=iterator, Limit=1000)
                records += page["Records"]
                iterator = page.get("NextShardIterator") if page["Records"] else None
        return records


@contextmanager
def kept_stream(runtime: Any, table: str) -> Iterator[KeptStream]:
    """The table's stream, its records written meanwhile kept for this test until it ends."""
    stream = KeptStream(runtime.endpoint_url, table)
    for shard in stream._shards:
        stream._register(shard, forget=False)
    try:
        yield stream
    finally:
        for shard in stream._shards:
            stream._register(shard, forget=True)
