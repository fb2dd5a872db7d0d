"""The emulator's stream retention (devtools/moto_patches/stream_trims.py): a stream keeps what its
registered consumers have not all read, and nothing unread past 24 hours on the runtime's clock;
trimmed data and old iterators answer as DynamoDB Streams does.

Against a real emulator child: its HTTP server, moto's tables and streams, the patches as installed.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from botocore.exceptions import ClientError

from devtools.local.emulator import Emulator, StreamIteratorExpired, StreamTrimmed
from devtools.moto_patches import stream_trims

ITEM_PADDING = "x" * 2_000  # an item image of a few kB, as the events table's are


def _started(**env: str) -> Emulator:
    running = Emulator(port=0)
    with mock.patch.dict(os.environ, env):  # the child reads them as it starts
        running.start()
    return running


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    running = _started()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def impatient() -> Iterator[Emulator]:
    """No real-time grace before records trimmed by age go, and iterators that live one second."""
    running = _started(**{stream_trims.GRACE_ENV: "0", stream_trims.ITERATOR_LIFETIME_ENV: "1"})
    try:
        yield running
    finally:
        running.stop()


class Stream:
    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self.table = f"t-{uuid.uuid4().hex[:8]}"
        self.dynamodb = emulator.client("dynamodb")
        self.streams = emulator.client("dynamodbstreams")
        self.arn = self.dynamodb.create_table(
            TableName=self.table,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )["TableDescription"]["LatestStreamArn"]
        self.shard = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"][0]["ShardId"]

    def write(self, count: int) -> None:
        for n in range(count):
            self.dynamodb.put_item(
                TableName=self.table, Item={"pk": {"S": f"{uuid.uuid4().hex}-{n}"}, "pad": {"S": ITEM_PADDING}}
            )

    def iterator(self, kind: str = "TRIM_HORIZON", sequence_number: str | None = None) -> str:
        extra = {} if sequence_number is None else {"SequenceNumber": sequence_number}
        answer = self.streams.get_shard_iterator(
            StreamArn=self.arn, ShardId=self.shard, ShardIteratorType=kind, **extra
        )
        iterator: str = answer["ShardIterator"]
        return iterator

    def register(self, consumer: str, read: str | None = None) -> str | None:
        return self.emulator.stream_consumer(self.arn, self.shard, consumer, read)

    def read_all(self, consumer: str | None = None, iterator: str | None = None) -> list[str]:
        """Reads from `iterator` (TRIM_HORIZON) to the end as `consumer`, saying how far it has read
        with each read, and once more at the end (as a pump's next read would)."""
        iterator = iterator or self.iterator()
        read: str | None = None
        numbers: list[str] = []
        while True:
            page = self.emulator.stream_records(iterator, 100, consumer, read)
            iterator = page["NextShardIterator"]
            if not page["Records"]:
                return numbers
            numbers += [record["dynamodb"]["SequenceNumber"] for record in page["Records"]]
            read = numbers[-1]

    def kept(self) -> list[str]:
        return self.read_all()


def test_records_every_consumer_has_read_are_trimmed_and_the_count_stays_bounded(emulator: Emulator) -> None:
    stream = Stream(emulator)
    assert stream.register("fan-out") is None
    assert stream.register("metrics") is None
    for _ in range(5):
        stream.write(200)
        assert len(stream.kept()) == 200  # neither has read them yet
        stream.read_all("fan-out")
        assert len(stream.kept()) == 200  # metrics has not
        stream.read_all("metrics")
        assert stream.kept() == []  # 1,000 written in all; none kept once both have read them
    described = stream.streams.describe_stream(StreamArn=stream.arn)["StreamDescription"]["Shards"][0]
    stream.write(1)
    (oldest,) = stream.kept()
    assert described["SequenceNumberRange"]["StartingSequenceNumber"] == oldest  # numbers go on, never reused


def test_trim_horizon_starts_at_the_oldest_record_kept_and_a_trimmed_position_is_refused(emulator: Emulator) -> None:
    stream = Stream(emulator)
    stream.register("only")
    stream.write(10)
    numbers = stream.kept()
    stale = stream.iterator("AT_SEQUENCE_NUMBER", numbers[2])  # made before the trim
    page = emulator.stream_records(stream.iterator(), 4, "only", None)
    assert [record["dynamodb"]["SequenceNumber"] for record in page["Records"]] == numbers[:4]
    emulator.stream_records(page["NextShardIterator"], 1, "only", numbers[3])  # says it has read 4
    assert stream.kept() == numbers[4:]
    # AFTER the last record read: its next is kept, so this is where the consumer goes on.
    assert stream.read_all(iterator=stream.iterator("AFTER_SEQUENCE_NUMBER", numbers[3])) == numbers[4:]
    for kind, number in (("AT_SEQUENCE_NUMBER", numbers[3]), ("AFTER_SEQUENCE_NUMBER", numbers[2])):
        with pytest.raises(ClientError) as refused:
            stream.iterator(kind, number)
        assert refused.value.response["Error"]["Code"] == "TrimmedDataAccessException"
    with pytest.raises(StreamTrimmed):
        emulator.stream_records(stale, 10)
    assert stream.read_all(iterator=stream.iterator("LATEST")) == []
    # Registering again with an older position (a snapshot's): it had read further, all it read is
    # gone, so it reads on from the oldest record kept (None), the one after the last it read.
    assert stream.register("only", numbers[1]) is None
    assert stream.kept() == numbers[4:]


def test_a_consumer_that_has_not_read_keeps_its_records_even_past_a_day_on_a_moved_clock(emulator: Emulator) -> None:
    stream = Stream(emulator)
    stream.register("reader")
    stream.register("asleep")
    stream.write(5)
    stream.read_all("reader")
    emulator.set_clock(datetime.now(UTC) + timedelta(hours=25))  # within the real-time grace: kept
    assert len(stream.kept()) == 5
    stream.emulator.stream_consumer(stream.arn, stream.shard, "asleep", None, forget=True)
    assert stream.kept() == []  # the one that had read them is the only consumer left


def test_records_unread_for_24_hours_are_trimmed_whoever_registered(impatient: Emulator) -> None:
    stream = Stream(impatient)
    stream.register("asleep")
    stream.write(5)
    numbers = stream.kept()
    iterator = stream.iterator()
    impatient.set_clock(datetime.now(UTC) + timedelta(hours=23))
    assert stream.kept() == numbers  # a day has not passed
    stream.write(2)
    newer = stream.kept()[5:]
    impatient.set_clock(datetime.now(UTC) + timedelta(hours=24, minutes=30))  # the first five are 24.5 h old
    with pytest.raises(StreamTrimmed):
        impatient.stream_records(iterator, 10)  # made before the trim, at a record now gone
    assert stream.kept() == newer  # TRIM_HORIZON: the oldest kept, written 1.5 h later on the clock
    with pytest.raises(ClientError) as refused:
        stream.iterator("AFTER_SEQUENCE_NUMBER", numbers[0])
    assert refused.value.response["Error"]["Code"] == "TrimmedDataAccessException"
    assert stream.register("asleep") is None  # it reads on from the oldest kept, as Lambda does


def test_an_iterator_expires_and_an_unknown_one_is_refused_as_aws_does(impatient: Emulator) -> None:
    stream = Stream(impatient)
    stream.write(1)
    iterator = stream.iterator()
    time.sleep(1.5)  # this emulator's iterators live one second (AWS: 15 minutes)
    stream.iterator()  # expiry happens as iterators are made and used
    with pytest.raises(StreamIteratorExpired):
        impatient.stream_records(iterator, 10)
    with pytest.raises(StreamIteratorExpired):
        impatient.stream_records(f"{stream.arn}|1|unknown", 10)
    assert len(stream.kept()) == 1  # a new iterator reads on


def test_a_registration_names_a_stream_and_shard_that_exist(emulator: Emulator) -> None:
    stream = Stream(emulator)
    with pytest.raises(OSError, match="404"):
        emulator.stream_consumer(stream.arn, "shardId-none", "x", None)
    with pytest.raises(OSError, match="404"):
        emulator.stream_consumer(stream.arn.replace(stream.table, "missing"), stream.shard, "x", None)
    with pytest.raises(OSError, match="400"):
        emulator.stream_consumer("not-an-arn", stream.shard, "x", None)


def test_the_stream_trims_patch_matches_the_pinned_moto() -> None:
    stream_trims.check_internals()  # raises when moto numbers, stamps or iterates stream records another way
