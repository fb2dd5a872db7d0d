"""Keeping queues shallow: moto's SQS costs grow with the number of messages a queue holds.

moto computes every queue attribute, including message counts that scan the whole queue, on each
SendMessage: a queue of n messages makes a send O(n), and 5,000 jobs cost minutes (real SQS is flat).
The benchmark therefore empties queues between rounds (untimed) and, while one request enqueues
thousands of jobs, empties the queue every few milliseconds, on both sides alike.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

from botocore.exceptions import ClientError

_PURGE_INTERVAL_SECONDS = 0.02
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


def depth(sqs: Any, queue_url: str) -> int:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=names)["Attributes"]
    return sum(int(attributes[name]) for name in names)


class Purger:
    """A thread that empties a queue every few milliseconds until the block ends: jobs go as fast as
    they come, as if a dispatcher took them, at the cost of one cheap call (moto empties a queue
    by dropping its list). Needs moto's once-a-minute purge rule off (see STRICT_PURGE)."""

    def __init__(self, sqs: Any, queue_url: str, interval: float = _PURGE_INTERVAL_SECONDS) -> None:
        self._sqs = sqs
        self._queue_url = queue_url
        self._interval = interval
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._purge, name="bench-purger", daemon=True)
        self.purges = 0

    def __enter__(self) -> Purger:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stopping.set()
        self._thread.join()

    def _purge(self) -> None:
        while not self._stopping.wait(self._interval):
            empty(self._sqs, self._queue_url)
            self.purges += 1
