"""Webhook resend jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py), and
the resend queue.

    JOB#<account>  RESEND#<id>                      the job; counters updated with ADD; purge_at (TTL)
    JOB#<account>  RESEND#<id>#COUNTED#<delivery>   one per resend counted: a redelivered attempt
                                                    message finds it and does not count twice

A count is one transaction: the marker (on the condition that it does not exist) and the ADD to
the job's counters. Whoever brings `attempted` up to `matched` completes the job; the completion
is conditional too, so it happens once. Every attempt message of a job writes the same job item,
so concurrent workers collide (TransactionConflict): both writes retry in-process a few times
with jittered backoff before the message fails and SQS delivers it again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from postline.shared.dynamo import cancellation_codes, epoch
from postline.shared.jobs import JobKind, JobTable
from postline.webhook_resend.domain import ResendJob, ResendMessage, ResendStatus

JOB_PURGE_AFTER = timedelta(days=90)  # a job stays readable this long
MARKER_PURGE_AFTER = timedelta(days=15)  # longer than any message lives in the queue (14 days)
_SEND_BATCH = 10  # SQS SendMessageBatch's limit
CONFLICT_TRIES = 5  # writes of the job item that met another worker's write, before giving up
_CONFLICT_PAUSE = 0.05  # seconds; doubled per try, full jitter
_NOT_COMPLETED = frozenset(ResendStatus) - {ResendStatus.COMPLETED}

RESENDS = JobKind(prefix="RESEND", model=ResendJob, purge_at=lambda job: job.created_at + JOB_PURGE_AFTER)

T = TypeVar("T")


def _conflicted(error: ClientError) -> bool:
    """Another write of the same item was in progress: a transaction cancelled for it, or a plain
    write refused because a transaction held the item."""
    return (
        "TransactionConflict" in cancellation_codes(error)
        or error.response["Error"]["Code"] == "TransactionConflictException"
    )


class DynamoResendJobs:
    def __init__(self, client: Any, table: str, *, pause: Callable[[float], None] = time.sleep) -> None:
        self._db = client
        self._table = table
        self._jobs = JobTable(client, table, RESENDS)
        self._pause = pause

    def _retrying_conflicts(self, write: Callable[[], T]) -> T:
        for attempt in range(CONFLICT_TRIES - 1):
            try:
                return write()
            except ClientError as error:
                if not _conflicted(error):
                    raise
            self._pause(random.uniform(0, _CONFLICT_PAUSE * 2**attempt))
        return write()  # the last try: a conflict now fails the message

    def create(self, job: ResendJob) -> None:
        if not self._jobs.create(job):
            raise RuntimeError(f"resend job {job.id} exists already")

    def get(self, account_id: str, job_id: str) -> ResendJob | None:
        return self._jobs.get(account_id, job_id)

    def start(self, job: ResendJob, matched: int) -> ResendJob:
        started = self._jobs.move(job, {ResendStatus.QUEUED}, ResendStatus.RUNNING, updates={"matched": matched})
        if started is not None:
            return started
        stored = self.get(job.account_id, job.id)  # started or stopped already
        if stored is None:
            raise RuntimeError(f"resend job {job.id} is gone")
        return stored

    def stop(self, job: ResendJob, error_message: str, now: datetime) -> None:
        self._jobs.move(
            job,
            _NOT_COMPLETED,
            ResendStatus.COMPLETED,
            updates={"error_message": error_message, "completed_at": now.isoformat()},
        )

    def count(self, job: ResendJob, delivery_id: str, *, succeeded: bool) -> bool:
        outcome = "succeeded" if succeeded else "failed"

        def write() -> None:
            self._db.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": {
                                **self._jobs.key(job.account_id, job.id, "COUNTED", delivery_id),
                                "purge_at": epoch(job.created_at + MARKER_PURGE_AFTER),
                            },
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": self._jobs.key(job.account_id, job.id),
                            "UpdateExpression": f"ADD attempted :one, {outcome} :one",
                            "ConditionExpression": "attribute_exists(pk)",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )

        try:
            self._retrying_conflicts(write)
        except ClientError as error:
            if cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]:
                return False
            raise
        return True

    def complete_if_done(self, job: ResendJob, now: datetime) -> bool:
        completed = self._retrying_conflicts(
            lambda: self._jobs.move(
                job,
                {ResendStatus.RUNNING},
                ResendStatus.COMPLETED,
                updates={"completed_at": now.isoformat()},
                condition="attempted >= matched",
            )
        )
        return completed is not None


class SqsResendQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue_job(self, job: ResendJob) -> None:
        message = ResendMessage(account_id=job.account_id, job_id=job.id)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())

    def enqueue_attempts(self, job: ResendJob, delivery_ids: list[str]) -> None:
        for start in range(0, len(delivery_ids), _SEND_BATCH):
            entries = {
                str(n): ResendMessage(
                    account_id=job.account_id, job_id=job.id, delivery_id=delivery_id
                ).model_dump_json()
                for n, delivery_id in enumerate(delivery_ids[start : start + _SEND_BATCH])
            }
            for _ in range(3):  # entries SQS could not take are sent again (a repeat is harmless)
                response = self._sqs.send_message_batch(
                    QueueUrl=self._url,
                    Entries=[{"Id": entry_id, "MessageBody": body} for entry_id, body in entries.items()],
                )
                entries = {failure["Id"]: entries[failure["Id"]] for failure in response.get("Failed", [])}
                if not entries:
                    break
            if entries:
                raise RuntimeError(f"resend job {job.id}: SQS refused {len(entries)} attempt messages")
