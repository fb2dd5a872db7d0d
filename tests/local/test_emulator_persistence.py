"""The emulator's snapshot brings back what the service keeps in AWS: items, queued and in-flight
messages, objects, secrets and KMS keys that still decrypt what they encrypted."""

from __future__ import annotations

import gc
import logging
import pickle
import platform
import re
import socket
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws
from moto.backends import get_backend

from devtools.local import emulator as emulator_module
from devtools.local import persistence
from devtools.local.cloudformation import ACCOUNT_ID, REGION
from devtools.local.emulator import Emulator

pytestmark = pytest.mark.e2e


def test_a_restarted_emulator_has_what_it_had_at_its_snapshot(tmp_path: Path) -> None:
    state = tmp_path / "emulator.pickle"
    first = Emulator(port=0, state_file=state)
    first.start()
    try:
        assert first.restored() is None
        dynamodb, sqs, kms = first.client("dynamodb"), first.client("sqs"), first.client("kms")
        dynamodb.create_table(
            TableName="things",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        dynamodb.put_item(TableName="things", Item={"pk": {"S": "idem#key-1"}, "status": {"S": "COMPLETED"}})
        queue = sqs.create_queue(QueueName="send")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="one")
        sqs.send_message(QueueUrl=queue, MessageBody="two")
        held = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1, VisibilityTimeout=3600)["Messages"]
        assert len(held) == 1  # in flight for an hour when the snapshot is taken
        key = kms.create_key()["KeyMetadata"]["KeyId"]
        sealed = kms.encrypt(KeyId=key, Plaintext=b"content key")["CiphertextBlob"]
        signing = kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
        first.client("s3").create_bucket(Bucket="content")
        first.client("s3").put_object(Bucket="content", Key="m/1", Body=b"body")
        first.snapshot({"stack": {"Things": {"ref": "things", "attributes": {}}}})
    finally:
        first.stop()

    second = Emulator(port=0, state_file=state)
    second.start()
    try:
        sqs = second.client("sqs")
        assert second.restored() == {"stack": {"Things": {"ref": "things", "attributes": {}}}}
        item = second.client("dynamodb").get_item(TableName="things", Key={"pk": {"S": "idem#key-1"}})["Item"]
        assert item["status"] == {"S": "COMPLETED"}
        queue = sqs.get_queue_url(QueueName="send")["QueueUrl"]
        bodies = {m["Body"] for m in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]}
        # The consumer that held one stopped with the emulator: it is visible again, not hidden an hour.
        assert bodies == {"one", "two"}
        assert second.client("kms").decrypt(CiphertextBlob=sealed)["Plaintext"] == b"content key"
        signature = second.client("kms").sign(
            KeyId=signing, Message=b"m", SigningAlgorithm="RSASSA_PKCS1_V1_5_SHA_256"
        )["Signature"]
        assert signature
        assert second.client("s3").get_object(Bucket="content", Key="m/1")["Body"].read() == b"body"
    finally:
        second.stop()


def _sequence_numbers(
    emulator: Emulator, iterator: str, consumer: str | None = None, read: str | None = None
) -> list[str]:
    page = emulator.stream_records(iterator, 100, consumer, read)
    return [record["dynamodb"]["SequenceNumber"] for record in page["Records"]]


def test_a_trimmed_stream_comes_back_with_its_consumers_positions(tmp_path: Path) -> None:
    """What the consumers have all read is gone before the snapshot and stays gone; what one of
    them has not read comes back; each consumer goes on from the last record it acknowledged, even
    when the runtime's document names an older one (taken before its last acknowledgement)."""
    state = tmp_path / "emulator.pickle"
    first = Emulator(port=0, state_file=state)
    first.start()
    try:
        dynamodb, streams = first.client("dynamodb"), first.client("dynamodbstreams")
        arn = dynamodb.create_table(
            TableName="events",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
        )["TableDescription"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        first.stream_consumer(arn, shard, "fan-out", None)
        first.stream_consumer(arn, shard, "metrics", None)
        for n in range(6):
            dynamodb.put_item(TableName="events", Item={"pk": {"S": f"e{n}"}})
        horizon = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        numbers = _sequence_numbers(first, horizon["ShardIterator"])
        after = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=numbers[5]
        )
        assert _sequence_numbers(first, after["ShardIterator"], "fan-out", numbers[5]) == []  # read all six
        after = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=numbers[1]
        )
        assert _sequence_numbers(first, after["ShardIterator"], "metrics", numbers[1]) == numbers[2:]  # read two
        first.snapshot({"checkpoints": {"fan-out": numbers[3]}})
    finally:
        first.stop()

    second = Emulator(port=0, state_file=state)
    second.start()
    try:
        streams = second.client("dynamodbstreams")
        horizon = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        assert _sequence_numbers(second, horizon["ShardIterator"]) == numbers[2:]  # the two both read: gone
        assert second.stream_consumer(arn, shard, "fan-out", numbers[3]) == numbers[5]  # not the document's
        assert second.stream_consumer(arn, shard, "metrics", numbers[1]) is None  # from the oldest kept
        second.client("dynamodb").put_item(TableName="events", Item={"pk": {"S": "e6"}})
        after = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=numbers[5]
        )
        assert _sequence_numbers(second, after["ShardIterator"], "fan-out", numbers[5]) == [str(int(numbers[5]) + 1)]
    finally:
        second.stop()


def test_an_unreadable_snapshot_is_set_aside_and_the_emulator_starts_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "emulator.pickle"
    state.write_bytes(b"not a pickle")
    caplog.set_level(logging.INFO, logger=emulator_module.__name__)
    emulator = Emulator(port=0, state_file=state)
    emulator.start()
    try:
        assert emulator.restored() is None
        assert emulator.client("sqs").list_queues().get("QueueUrls", []) == []
    finally:
        emulator.stop()
    assert (tmp_path / "emulator.unreadable").read_bytes() == b"not a pickle"
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [
        f"the snapshot {state} is corrupt (invalid load key, 'n'.): it is kept as {tmp_path / 'emulator.unreadable'}, "
        "and the emulator starts empty"
    ]


# The wait for each step of the emulator's start, made small here (it is 30 s): its start, loading
# aside, takes well under a second on a quiet machine and a few on a busy one.
START_WAIT = 3.0


class _Pause:
    """Unpickles as time.sleep(seconds): the time a snapshot of tens of MB takes to load, in a small
    one, so that the load outlasts START_WAIT however fast the machine is."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __reduce__(self) -> tuple[Any, tuple[float]]:
        return time.sleep, (self.seconds,)


def _new_table() -> tuple[Any, str]:
    """A new table (a new name each time: this process's moto may hold what an earlier test
    restored), made in the backend persistence.save pickles, not through a client: the request
    routing of this process's moto may have been patched by an earlier test. Within mock_aws."""
    table = f"things-{uuid.uuid4().hex[:8]}"
    backend = get_backend("dynamodb")[ACCOUNT_ID][REGION]
    backend.create_table(
        table,
        schema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        throughput=None,
        attr=[{"AttributeName": "pk", "AttributeType": "S"}],
        global_indexes=None,
        indexes=None,
        streams=None,
        billing_mode="PAY_PER_REQUEST",
        sse_specification=None,
        tags=[],
        deletion_protection_enabled=None,
        warm_throughput=None,
    )
    return backend, table


def _snapshot(path: Path, items: int, **runtime: Any) -> str:
    """A snapshot as the emulator writes it (persistence.save of moto's backends, with the runtime's
    document), made in this process: one table of `items` items, put straight into moto's model.
    The table's name is new each time: this process's moto may hold what an earlier test restored."""
    with mock_aws():
        backend, table = _new_table()
        for i in range(items):
            item = {"pk": {"S": f"thing#{i:06d}"}, "body": {"S": "x" * 200}, "n": {"N": str(i)}}
            backend.put_item(table, item)
        persistence.save(path, {"stack": {}, **runtime})
    return table


def test_a_snapshot_slower_to_load_than_the_start_wait_is_loaded_and_the_load_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "emulator.pickle"
    table = _snapshot(state, 2_000, pause=_Pause(START_WAIT + 1))
    megabytes = state.stat().st_size / 1_000_000
    monkeypatch.setattr(emulator_module, "START_TIMEOUT_SECONDS", START_WAIT)
    caplog.set_level(logging.INFO, logger=emulator_module.__name__)

    emulator = Emulator(port=0, state_file=state)
    emulator.start()
    try:
        restored = emulator.restored()
        last = emulator.client("dynamodb").get_item(TableName=table, Key={"pk": {"S": "thing#001999"}})
    finally:
        emulator.stop()

    assert restored == {"stack": {}, "pause": None}
    assert last["Item"]["n"] == {"N": "1999"}
    said = [record.getMessage() for record in caplog.records if record.name == emulator_module.__name__]
    assert said[0] == f"loading state from {state} ({megabytes:.1f} MB)", said
    loaded = re.fullmatch(rf"loaded state from {re.escape(str(state))} in (\d+\.\d) s", said[-1])
    assert loaded, said
    assert float(loaded[1]) > START_WAIT  # what this test is about: the load outlasted the wait


def test_a_snapshot_that_fails_midway_leaves_the_previous_one_whole(tmp_path: Path) -> None:
    state = tmp_path / "emulator.pickle"
    _snapshot(state, 50)
    before = state.read_bytes()
    with mock_aws(), pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        persistence.save(state, {"stack": {}, "unpicklable": lambda: None})
    assert state.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["emulator.pickle"]  # no partial left


def test_a_snapshot_leaves_the_items_it_pickled_no_larger(tmp_path: Path) -> None:
    """pickle's own way with an object reads its `__dict__`, which CPython then keeps beside the
    inline attributes: 64 bytes more per attribute value after every item's first snapshot."""
    state = tmp_path / "emulator.pickle"
    _snapshot(state, 10)
    with mock_aws():
        backend, table = _new_table()
        for i in range(2_000):
            values = {f"a{k}": {"S": f"v{k}"} for k in range(8)}
            backend.put_item(table, {"pk": {"S": f"thing#{i:06d}"}, "m": {"M": values}})
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            persistence.save(state, {"stack": {}})
            gc.collect()
            kept = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(before, "filename"))
        finally:
            tracemalloc.stop()
        restored = pickle.loads(state.read_bytes())  # noqa: S301 - the file this test wrote
    attributes = 2_000 * 10  # each item: pk, m, and m's 8 values
    assert kept < attributes * 16, f"{kept / attributes:.0f} bytes more per attribute value"
    items = restored["backends"]["dynamodb"][ACCOUNT_ID][REGION].tables[table].items
    assert len(items) == 2_000


def test_freed_memory_goes_back_to_the_system_where_the_c_library_is_glibc() -> None:
    assert persistence.release_freed_memory() is (platform.libc_ver()[0] == "glibc")


def test_restore_reports_how_far_it_has_read(tmp_path: Path) -> None:
    state = tmp_path / "emulator.pickle"
    _snapshot(state, 5_000)
    megabytes = state.stat().st_size / 1_000_000
    progress: list[str] = []
    with mock_aws():  # restore loads into this process's moto
        restored = persistence.restore(state, progress=progress.append, every=0.01)
    assert restored == {"stack": {}}
    assert progress, "no progress while it loaded"
    pattern = rf"loading state: (\d+\.\d) of {megabytes:.1f} MB \(\d+%\) after \d+ s"
    assert all(re.fullmatch(pattern, line) for line in progress), progress


def test_a_port_in_use_is_named_as_such(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        began = time.monotonic()
        with pytest.raises(OSError, match=rf"port {port} of 127\.0\.0\.1 is in use"):
            Emulator(port=port, state_file=tmp_path / "emulator.pickle").start()
    assert time.monotonic() - began < 10  # told before anything is loaded


def test_a_start_that_does_not_answer_in_time_is_not_blamed_on_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emulator_module, "START_TIMEOUT_SECONDS", 0.01)
    with pytest.raises(OSError, match=r"did not start within 0\.01 s") as raised:
        Emulator(port=0).start()
    assert "in use" not in str(raised.value)
