"""Webhook resend jobs in the jobs table, and the resend queue.

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
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import cancellation_codes, conditional_failed, epoch, from_attrs, key, to_attrs
from postline.webhook_resend.domain import ResendJob, ResendMessage, ResendStatus

JOB_PURGE_AFTER = timedelta(days=90)  # a job stays readable this long
MARKER_PURGE_AFTER = timedelta(days=15)  # longer than any message lives in the queue (14 days)
_SEND_BATCH = 10  # SQS SendMessageBatch's limit
CONFLICT_TRIES = 5  # writes of the job item that met another worker's write, before giving up
_CONFLICT_PAUSE = 0.05  # seconds; doubled per try, full jitter


def _pk(account_id: str) -> str:
    return f"JOB#{account_id}"


def _job_key(account_id: str, job_id: str) -> dict[str, Any]:
    return key(_pk(account_id), f"RESEND#{job_id}")


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
        self._pause = pause

    def _retrying_conflicts(self, write: Callable[[], None]) -> None:
        for attempt in range(CONFLICT_TRIES):
            try:
                write()
                return
            except ClientError as error:
                if not _conflicted(error) or attempt == CONFLICT_TRIES - 1:
                    raise
            self._pause(random.uniform(0, _CONFLICT_PAUSE * 2**attempt))

    def create(self, job: ResendJob) -> None:
        self._db.put_item(
            TableName=self._table,
            Item={
                **_job_key(job.account_id, job.id),
                **to_attrs(job.model_dump(mode="json")),
                "purge_at": epoch(job.created_at + JOB_PURGE_AFTER),
            },
            ConditionExpression="attribute_not_exists(pk)",
        )

    def get(self, account_id: str, job_id: str) -> ResendJob | None:
        item = self._db.get_item(TableName=self._table, Key=_job_key(account_id, job_id), ConsistentRead=True).get(
            "Item"
        )
        return ResendJob.model_validate(from_attrs(item)) if item else None

    def start(self, job: ResendJob, matched: int) -> ResendJob:
        try:
            response = self._db.update_item(
                TableName=self._table,
                Key=_job_key(job.account_id, job.id),
                UpdateExpression="SET #status = :running, matched = :matched",
                ConditionExpression="#status = :queued",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":running": {"S": ResendStatus.RUNNING.value},
                    ":queued": {"S": ResendStatus.QUEUED.value},
                    ":matched": {"N": str(matched)},
                },
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise
            stored = self.get(job.account_id, job.id)
            if stored is None:
                raise RuntimeError(f"resend job {job.id} is gone") from error
            return stored
        return ResendJob.model_validate(from_attrs(response["Attributes"]))

    def stop(self, job: ResendJob, error_message: str, now: datetime) -> None:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=_job_key(job.account_id, job.id),
                UpdateExpression="SET #status = :completed, error_message = :message, completed_at = :now",
                ConditionExpression="#status <> :completed",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":completed": {"S": ResendStatus.COMPLETED.value},
                    ":message": {"S": error_message},
                    ":now": {"S": now.isoformat()},
                },
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise

    def count(self, job: ResendJob, delivery_id: str, *, succeeded: bool) -> bool:
        outcome = "succeeded" if succeeded else "failed"

        def write() -> None:
            self._db.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": {
                                **key(_pk(job.account_id), f"RESEND#{job.id}#COUNTED#{delivery_id}"),
                                "purge_at": epoch(job.created_at + MARKER_PURGE_AFTER),
                            },
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": _job_key(job.account_id, job.id),
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
        def write() -> None:
            self._db.update_item(
                TableName=self._table,
                Key=_job_key(job.account_id, job.id),
                UpdateExpression="SET #status = :completed, completed_at = :now",
                ConditionExpression="#status = :running AND attempted >= matched",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":completed": {"S": ResendStatus.COMPLETED.value},
                    ":running": {"S": ResendStatus.RUNNING.value},
                    ":now": {"S": now.isoformat()},
                },
            )

        try:
            self._retrying_conflicts(write)
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        return True


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
