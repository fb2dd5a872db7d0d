"""The jobs table: long-running account jobs (event exports; later imports, bulk verification).

    JOB#<account>  EXPORT#<id>             an export job; purge_at (TTL) well after its file is gone
    JOB#<account>  EXPORT_FP#<fingerprint> the running job of equivalent filters: job_id, active_until

Dedupe without a scan: a new job is written together with its fingerprint item, on the condition
that no live fingerprint item exists; the job's end removes it. active_until bounds how long a
job that never ended (its messages dead-lettered) can hold the fingerprint.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.exports.domain import RUNNING, ExportJob, ExportStatus
from postline.shared.dynamo import cancellation_codes, conditional_failed, epoch, from_attrs, key, to_attrs

FINGERPRINT_LIFETIME = timedelta(days=1)
JOB_PURGE_AFTER = timedelta(days=30)  # a job reads as `expired`, not 404, for a month after its file
_CREATE_TRIES = 3


def _pk(account_id: str) -> str:
    return f"JOB#{account_id}"


def _job_key(account_id: str, export_id: str) -> dict[str, Any]:
    return key(_pk(account_id), f"EXPORT#{export_id}")


def _fingerprint_key(account_id: str, fingerprint: str) -> dict[str, Any]:
    return key(_pk(account_id), f"EXPORT_FP#{fingerprint}")


def _purge_at(job: ExportJob) -> datetime:
    return (job.expires_at or job.created_at) + JOB_PURGE_AFTER


def _job(attrs: dict[str, Any]) -> ExportJob:
    return ExportJob.model_validate(from_attrs(attrs))


class DynamoExportJobs:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def create_or_find(self, job: ExportJob, now: datetime) -> ExportJob:
        """Stores `job` unless an equivalent one is still running; returns the one that runs."""
        for _ in range(_CREATE_TRIES):
            try:
                self._db.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": {
                                    **_fingerprint_key(job.account_id, job.fingerprint),
                                    "job_id": {"S": job.id},
                                    "active_until": epoch(now + FINGERPRINT_LIFETIME),
                                    "purge_at": epoch(now + FINGERPRINT_LIFETIME),
                                },
                                "ConditionExpression": "attribute_not_exists(pk) OR active_until < :now",
                                "ExpressionAttributeValues": {":now": epoch(now)},
                            }
                        },
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": self._item(job),
                                "ConditionExpression": "attribute_not_exists(pk)",
                            }
                        },
                    ]
                )
                return job
            except ClientError as error:
                if cancellation_codes(error)[:1] != ["ConditionalCheckFailed"]:
                    raise
            running = self._running(job.account_id, job.fingerprint)
            if running is not None:
                return running
        raise RuntimeError(f"export {job.id}: the fingerprint item kept changing")

    def _running(self, account_id: str, fingerprint: str) -> ExportJob | None:
        """The job the fingerprint points at if it still runs; else clears the stale pointer."""
        pointer = self._db.get_item(
            TableName=self._table, Key=_fingerprint_key(account_id, fingerprint), ConsistentRead=True
        ).get("Item")
        if pointer is None:
            return None
        job = self.get(account_id, pointer["job_id"]["S"])
        if job is not None and job.status in RUNNING:
            return job
        self._clear_fingerprint(account_id, fingerprint, pointer["job_id"]["S"])  # its end did not get to it
        return None

    def get(self, account_id: str, export_id: str) -> ExportJob | None:
        item = self._db.get_item(TableName=self._table, Key=_job_key(account_id, export_id), ConsistentRead=True).get(
            "Item"
        )
        return _job(item) if item else None

    def claim(self, job: ExportJob, now: datetime, lease: timedelta) -> ExportJob | None:
        """pending, or processing under a lease that ran out -> processing under a new lease, as the
        next attempt; None when another attempt holds a live lease or the job ended."""
        try:
            response = self._db.update_item(
                TableName=self._table,
                Key=_job_key(job.account_id, job.id),
                UpdateExpression="SET #status = :processing, attempt = attempt + :one, lease_until = :until",
                ConditionExpression="#status = :pending OR (#status = :processing AND lease_until < :now)",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":processing": {"S": ExportStatus.PROCESSING.value},
                    ":pending": {"S": ExportStatus.PENDING.value},
                    ":one": {"N": "1"},
                    ":until": epoch(now + lease),
                    ":now": epoch(now),
                },
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if conditional_failed(error):
                return None
            raise
        return _job(response["Attributes"])

    def release(self, job: ExportJob) -> None:
        """Gives the lease of a failed attempt back, so the job's next delivery need not wait it out."""
        try:
            self._db.update_item(
                TableName=self._table,
                Key=_job_key(job.account_id, job.id),
                UpdateExpression="SET lease_until = :zero",
                ConditionExpression="#status = :processing AND attempt = :attempt",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":zero": {"N": "0"},
                    ":processing": {"S": ExportStatus.PROCESSING.value},
                    ":attempt": {"N": str(job.attempt)},
                },
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise

    def finish(self, job: ExportJob) -> bool:
        """Stores the ended job (completed or failed) if its attempt is still the current one."""
        try:
            self._db.put_item(  # the whole job, which drops the lease
                TableName=self._table,
                Item=self._item(job),
                ConditionExpression="#status = :processing AND attempt = :attempt",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":processing": {"S": ExportStatus.PROCESSING.value},
                    ":attempt": {"N": str(job.attempt)},
                },
            )
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        self._clear_fingerprint(job.account_id, job.fingerprint, job.id)
        return True

    def _clear_fingerprint(self, account_id: str, fingerprint: str, job_id: str) -> None:
        try:
            self._db.delete_item(
                TableName=self._table,
                Key=_fingerprint_key(account_id, fingerprint),
                ConditionExpression="job_id = :job",
                ExpressionAttributeValues={":job": {"S": job_id}},
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise  # else it already points at a newer job, or is gone

    def _item(self, job: ExportJob) -> dict[str, Any]:
        return {
            **_job_key(job.account_id, job.id),
            **to_attrs(job.model_dump(mode="json")),
            "purge_at": epoch(_purge_at(job)),
        }
