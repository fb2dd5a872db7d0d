"""The outbox in an adapter test: what SendOutboxFunction does with the messages table's stream
(sending/outbox.py), run by the test where Lambda's event source mapping would run it."""

from __future__ import annotations

from postline import wiring
from postline.config import Messages
from postline.sending.store import inserted_messages
from postline.wiring import sending

_READ: dict[tuple[str, str], str] = {}  # (stream, shard) -> the last record relayed


def relay_outbox() -> int:
    """Queues the jobs of the messages stored since the last call; the number queued."""
    db, streams = wiring.client("dynamodb"), wiring.client("dynamodbstreams")
    arn = db.describe_table(TableName=wiring.settings(Messages).table)["Table"]["LatestStreamArn"]
    queued = 0
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        shard_id = shard["ShardId"]
        last = _READ.get((arn, shard_id))
        position = (
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": last}
            if last
            else {"ShardIteratorType": "TRIM_HORIZON"}
        )
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, **position)["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator, Limit=1000)
            if not page["Records"]:
                break
            queued += sending.outbox().relay(inserted_messages(page["Records"]))
            _READ[(arn, shard_id)] = page["Records"][-1]["dynamodb"]["SequenceNumber"]
            iterator = page.get("NextShardIterator")
    return queued
