"""Exactly-once counting from a DynamoDB stream: a watermark per source partition.

Stream records of one partition key arrive in order (one shard, one batch at a time, whatever the
ParallelizationFactor), so a consumer that commits its writes in one transaction with the new
sequence number of each partition it read, conditional on the number it started from, counts a
record exactly once: a replayed batch, a retry after a crash between the write and Lambda's
checkpoint, or a re-batched redelivery skips what was committed, and a concurrent run loses the
condition and retries. A per-batch marker would not survive re-batching; a marker per record costs
a write per record.

Each consumer kept its own watermarks (its own key prefix) in the counters table. Since 2026-11-28
the metrics roll-up and the recipient-activity consumer write none: each counter item keeps a mark
per partition instead (shared/stream_marks.py: one write unit per item, no transaction). They still
read the watermarks written before (`read`), which expire TTL_SECONDS after their last write; that
read can go once every stack has run the new consumers for that long.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from postline.shared.dynamo import batch_get, key

TTL_SECONDS = 3 * 24 * 3600  # longer than a stream keeps records (24 h)
_SEQUENCE_WIDTH = 40  # stream sequence numbers are decimal strings of up to 40 digits


def padded(sequence_number: str) -> str:
    """A sequence number that compares as a string in the order of the numbers."""
    return sequence_number.zfill(_SEQUENCE_WIDTH)


def read(client: Any, table: str, prefix: str, partitions: list[str]) -> dict[str, str]:
    """partition -> its watermark (padded), for those that have one."""
    keys = [key(f"{prefix}{partition}", "-") for partition in dict.fromkeys(partitions)]
    found = batch_get(client, table, keys, projection="pk, seq")
    return {item["pk"]["S"].removeprefix(prefix): item["seq"]["S"] for item in found}


def stream_epoch(stamp: Any) -> float:
    """A record's ApproximateCreationDateTime in epoch seconds: boto3 parses it, Lambda sends a number."""
    return stamp.timestamp() if isinstance(stamp, datetime) else float(stamp)
