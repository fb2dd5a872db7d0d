"""Emptying queues between rounds (untimed), so that no dispatcher takes the benchmark's jobs later.

(moto's own SQS costs grew with the depth of a queue; the emulator's patch, devtools/moto_patches/
moto_sqs.py, makes them flat, and section c measures the batch at two sizes to keep it so.)
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

# moto refuses a second PurgeQueue within 60 s unless this is "false" in the emulator's environment.
STRICT_PURGE = "MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR"


def empty(sqs: Any, queue_url: str) -> None:
    """Removes every message (PurgeQueue; moto may refuse a second purge within 60 s: then by hand)."""
    try:
        sqs.purge_queue(QueueUrl=queue_url)
        return
    except ClientError as error:
        if error.response["Error"]["Code"] not in (
            "PurgeQueueInProgress",
            "AWS.SimpleQueueService.PurgeQueueInProgress",
        ):
            raise
    while messages := sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []):
        entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
        sqs.delete_message_batch(QueueUrl=queue_url, Entries=entries)
