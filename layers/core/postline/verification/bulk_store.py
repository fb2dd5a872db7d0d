"""Bulk verification jobs in the jobs table (layout and lifecycle: shared/jobs.py), and their queue.

    JOB#<account>  VERIFY#<id>              the job: status, counts, summary (a map of counts)
    JOB#<account>  VERIFY#<id>#C#<n>        chunk n: [index, address] pairs, CHUNK_SIZE at most
    JOB#<account>  VERIFY#<id>#R#<index>    the result of the distinct address at `index`

A result is recorded in one transaction with what it changes: the result item (only if it is not
there yet), the job's processed_count and summary, and, for a live job, one verification credit
(only while the month has one left). So a chunk that runs twice (a worker died, SQS delivered the
message again) records nothing twice and charges nothing twice, and counts are exact.
Results sort by index, so a page is one key range, whatever its number.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import (
    batch_delete,
    batch_get,
    batch_write,
    cancellation_codes,
    conditional_failed,
    from_attrs,
)
from postline.shared.jobs import JobKind, JobTable
from postline.verification.bulk import JOB_KEPT, RESUME_CHECK_SECONDS, BulkJob, BulkStatus, ChunkMessage, Recorded
from postline.verification.models import ValidationResult
from postline.verification.proofs import ResultFile
from postline.verification.store import credit_update

_ENQUEUE_BATCH = 10  # SQS SendMessageBatch's limit
_CHUNK_WRITES = 100  # a CSV job's chunk items written together (four BatchWriteItem calls)


def _purge_at(job: BulkJob) -> datetime:
    """A job's chunks and results: gone (TTL) when they expire."""
    return job.results_expire_at()


def _job_purge_at(job: BulkJob) -> datetime:
    """The job item outlives its results, so GET can say `expired` before it says 404."""
    return job.created_at + JOB_KEPT


VERIFICATIONS = JobKind(prefix="VERIFY", model=BulkJob, purge_at=_job_purge_at)


def _index_key(index: int) -> str:
    return f"{index:08d}"


class DynamoBulkJobs:
    def __init__(self, client: Any, jobs_table: str, counters_table: str) -> None:
        self._db = client
        self._table = jobs_table
        self._counters = counters_table
        self._jobs = JobTable(client, jobs_table, VERIFICATIONS)

    def create(self, job: BulkJob, chunks: list[list[tuple[int, str]]]) -> None:
        """The chunks first, then the job: a job that exists has all its chunks."""
        purge = {"N": str(int(_purge_at(job).timestamp()))}
        batch_write(
            self._db,
            [
                (
                    self._table,
                    {
                        **self._jobs.key(job.account_id, job.id, "C", f"{n:06d}"),
                        "addresses": {"S": _pairs(chunk)},
                        "purge_at": purge,
                    },
                )
                for n, chunk in enumerate(chunks)
            ],
        )
        if not self._jobs.create(job):
            raise RuntimeError(f"bulk job {job.id} exists already")

    def write_chunks(self, job: BulkJob, chunks: Iterable[list[tuple[int, str]]]) -> int:
        """A CSV job's chunks as they are read, _CHUNK_WRITES at a time (memory stays flat); how
        many. Written again from the same file, each chunk overwrites itself with the same pairs."""
        purge = {"N": str(int(_purge_at(job).timestamp()))}
        count = 0
        batch: list[tuple[str, dict[str, Any]]] = []
        for chunk in chunks:
            key = self._jobs.key(job.account_id, job.id, "C", f"{count:06d}")
            batch.append((self._table, {**key, "addresses": {"S": _pairs(chunk)}, "purge_at": purge}))
            count += 1
            if len(batch) >= _CHUNK_WRITES:
                batch_write(self._db, batch)
                batch = []
        batch_write(self._db, batch)
        return count

    def store_results(self, job: BulkJob, results: list[tuple[int, ValidationResult]]) -> None:
        """A test-mode job's results, all at once (nothing is charged)."""
        purge = {"N": str(int(_purge_at(job).timestamp()))}
        batch_write(
            self._db,
            [
                (self._table, {**self._result_key(job, index), "result": {"S": r.model_dump_json()}, "purge_at": purge})
                for index, r in results
            ],
        )

    def get(self, account_id: str, job_id: str) -> BulkJob | None:
        return self._jobs.get(account_id, job_id)

    def chunk(self, job: BulkJob, n: int) -> list[tuple[int, str]]:
        item = self._db.get_item(
            TableName=self._table, Key=self._jobs.key(job.account_id, job.id, "C", f"{n:06d}"), ConsistentRead=True
        ).get("Item")
        return _unpairs(item["addresses"]["S"]) if item else []

    def recorded(self, job: BulkJob, indexes: list[int]) -> set[int]:
        """Which of these indexes have their result already."""
        found = batch_get(self._db, self._table, [self._result_key(job, i) for i in indexes], projection="sk")
        return {int(item["sk"]["S"].rsplit("#", 1)[1]) for item in found}

    def record_many(
        self, job: BulkJob, results: list[tuple[int, ValidationResult]], *, month: str, limit: int | None
    ) -> Recorded | None:
        """Several results recorded as one would be, in one transaction: each result (only if it is
        not there yet), the job's counts added up once, and for a live job as many credits (only if
        the month has them all). NEW: all recorded; STOPPED: the job is no longer running; None:
        nothing recorded because one was recorded already (a run of the chunk before) or the month
        has fewer credits left than results: record them one at a time (record()) to find which."""
        purge = {"N": str(int(_purge_at(job).timestamp()))}
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {**self._result_key(job, index), "result": {"S": r.model_dump_json()}, "purge_at": purge},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            for index, r in results
        ]
        counts = Counter(r.status.value for _, r in results)
        names = {"#status": "status", **{f"#r{n}": status for n, status in enumerate(counts)}}
        values = {
            ":count": {"N": str(len(results))},
            ":queued": {"S": BulkStatus.QUEUED.value},
            ":processing": {"S": BulkStatus.PROCESSING.value},
            **{f":r{n}": {"N": str(count)} for n, count in enumerate(counts.values())},
        }
        adds = ", ".join(["processed_count :count", *(f"summary.#r{n} :r{n}" for n in range(len(counts)))])
        items.append(
            {
                "Update": {
                    "TableName": self._table,
                    "Key": self._jobs.key(job.account_id, job.id),
                    "UpdateExpression": f"ADD {adds}",
                    "ConditionExpression": "#status IN (:queued, :processing)",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": values,
                }
            }
        )
        if not job.test:
            charge = credit_update(self._counters, job.account_id, month=month, limit=limit, test=False,
                                   count=len(results))  # fmt: skip
            if charge is None:
                return None
            items.append({"Update": charge})
        try:
            self._db.transact_write_items(TransactItems=items)
        except ClientError as error:
            codes = cancellation_codes(error)
            if len(codes) > len(results) and codes[len(results)] == "ConditionalCheckFailed":
                return Recorded.STOPPED
            if "ConditionalCheckFailed" in codes:
                return None
            raise
        return Recorded.NEW

    def record(self, job: BulkJob, index: int, result: ValidationResult, *, month: str, limit: int | None) -> Recorded:
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {
                        **self._result_key(job, index),
                        "result": {"S": result.model_dump_json()},
                        "purge_at": {"N": str(int(_purge_at(job).timestamp()))},
                    },
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": self._jobs.key(job.account_id, job.id),
                    "UpdateExpression": "ADD processed_count :one, summary.#result :one",
                    # Only while it runs: a job deleted (or paused) mid-chunk takes nothing more.
                    "ConditionExpression": "#status IN (:queued, :processing)",
                    "ExpressionAttributeNames": {"#result": result.status.value, "#status": "status"},
                    "ExpressionAttributeValues": {
                        ":one": {"N": "1"},
                        ":queued": {"S": BulkStatus.QUEUED.value},
                        ":processing": {"S": BulkStatus.PROCESSING.value},
                    },
                }
            },
        ]
        if not job.test:
            charge = credit_update(self._counters, job.account_id, month=month, limit=limit, test=False)
            if charge is None:
                return Recorded.NO_CREDITS
            items.append({"Update": charge})
        try:
            self._db.transact_write_items(TransactItems=items)
        except ClientError as error:
            codes = cancellation_codes(error)
            if codes[:1] == ["ConditionalCheckFailed"]:
                return Recorded.ALREADY
            if codes[1:2] == ["ConditionalCheckFailed"]:
                return Recorded.STOPPED
            if len(codes) > 2 and codes[2] == "ConditionalCheckFailed":
                return Recorded.NO_CREDITS
            raise
        return Recorded.NEW

    def move(self, job: BulkJob, from_statuses: set[BulkStatus], to: BulkStatus, **updates: Any) -> BulkJob | None:
        return self._jobs.move(job, {str(s) for s in from_statuses}, str(to), updates=updates)

    def pass_resume_check(self, job: BulkJob, token: str, to: BulkStatus, new_token: str | None) -> BulkJob | None:
        """A paused job's credit check, only if `token` is still the job's: -> `to` (paused: the
        next check's token; processing: resumed, error_message cleared). Of two deliveries of
        one check, one passes: the job's checks stay one chain."""
        if to is BulkStatus.PAUSED:
            assert new_token is not None, "a paused job's next check needs its token"
            update = "SET #status = :to, resume_token = :new"
        else:
            update = "SET #status = :to REMOVE resume_token, error_message"
        values: dict[str, Any] = {
            ":to": {"S": str(to)},
            ":paused": {"S": str(BulkStatus.PAUSED)},
            ":token": {"S": token},
        }
        if new_token:
            values[":new"] = {"S": new_token}
        try:
            response = self._db.update_item(
                TableName=self._table,
                Key=self._jobs.key(job.account_id, job.id),
                UpdateExpression=update,
                ConditionExpression="#status = :paused AND resume_token = :token",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if conditional_failed(error):
                return None
            raise
        return BulkJob.model_validate(from_attrs(response["Attributes"]))

    def finish_if_done(self, job: BulkJob) -> BulkJob | None:
        """processing -> catch_all_processing once every distinct address has its result (only one
        chunk's run gets it: that one scores the catch-alls and writes the file)."""
        return self._jobs.move(
            job,
            {str(BulkStatus.PROCESSING)},
            str(BulkStatus.CATCH_ALL_PROCESSING),
            condition="processed_count >= total_count",
        )

    def complete(self, job: BulkJob, now: datetime, result_file: ResultFile) -> BulkJob | None:
        """packaging -> completed, with the file and its proof; None when the job moved meanwhile
        (deleted)."""
        return self._jobs.move(
            job,
            {str(BulkStatus.PACKAGING)},
            str(BulkStatus.COMPLETED),
            updates={"completed_at": now.isoformat(), "result_file": result_file.model_dump(mode="json")},
        )

    def all_results(self, job: BulkJob) -> Iterator[ValidationResult]:
        """Every result in the list's order, a query page (up to 1 MB) at a time: memory stays flat."""
        for _, result in self.indexed_results(job):
            yield result

    def indexed_results(self, job: BulkJob) -> Iterator[tuple[int, ValidationResult]]:
        """Every (index, result) in the list's order, a query page at a time."""
        prefix = self._jobs.key(job.account_id, job.id, "R")["sk"]["S"]
        for page in self._db.get_paginator("query").paginate(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={
                ":pk": self._jobs.key(job.account_id, job.id)["pk"],
                ":prefix": {"S": f"{prefix}#"},
            },
            ProjectionExpression="sk, #result",
            ExpressionAttributeNames={"#result": "result"},
            ConsistentRead=True,
        ):
            for item in page["Items"]:
                index = int(item["sk"]["S"].rsplit("#", 1)[1])
                yield index, ValidationResult.model_validate_json(item["result"]["S"])

    def rewrite_result(self, job: BulkJob, index: int, result: ValidationResult) -> bool:
        """A recorded result replaced (the catch-all scoring); False when it is gone (a deleted
        job's, purged): never written back."""
        try:
            self._db.update_item(
                TableName=self._table,
                Key=self._result_key(job, index),
                UpdateExpression="SET #result = :result",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#result": "result"},
                ExpressionAttributeValues={":result": {"S": result.model_dump_json()}},
            )
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        return True

    def results(self, job: BulkJob, *, page: int, limit: int) -> list[ValidationResult]:
        first = (page - 1) * limit
        last = min(first + limit, job.total_count) - 1
        if last < first:
            return []
        prefix = self._jobs.key(job.account_id, job.id, "R")["sk"]["S"]
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND sk BETWEEN :first AND :last",
            ExpressionAttributeValues={
                ":pk": self._jobs.key(job.account_id, job.id)["pk"],
                ":first": {"S": f"{prefix}#{_index_key(first)}"},
                ":last": {"S": f"{prefix}#{_index_key(last)}"},
            },
            ConsistentRead=True,
        )
        return [ValidationResult.model_validate_json(str(from_attrs(item)["result"])) for item in response["Items"]]

    def purge(self, job: BulkJob) -> int:
        """Removes a job's chunks and results (the job item stays, `deleted`); how many. Run again,
        it removes what is left."""
        prefix = self._jobs.key(job.account_id, job.id, "")["sk"]["S"]  # VERIFY#<id>#: not the job itself
        removed = 0
        for page in self._db.get_paginator("query").paginate(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": self._jobs.key(job.account_id, job.id)["pk"], ":prefix": {"S": prefix}},
            ProjectionExpression="pk, sk",
        ):
            batch_delete(self._db, [(self._table, item) for item in page["Items"]])
            removed += len(page["Items"])
        return removed

    def _result_key(self, job: BulkJob, index: int) -> dict[str, Any]:
        return self._jobs.key(job.account_id, job.id, "R", _index_key(index))


def _pairs(chunk: list[tuple[int, str]]) -> str:
    return json.dumps(chunk)


def _unpairs(text: str) -> list[tuple[int, str]]:
    return [(int(index), str(address)) for index, address in json.loads(text)]


class SqsBulkQueue:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._url = queue_url

    def enqueue(self, job: BulkJob) -> None:
        messages = [ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=n) for n in range(job.chunks)]
        for start in range(0, len(messages), _ENQUEUE_BATCH):
            batch = messages[start : start + _ENQUEUE_BATCH]
            response = self._sqs.send_message_batch(
                QueueUrl=self._url,
                Entries=[{"Id": str(i), "MessageBody": m.model_dump_json()} for i, m in enumerate(batch)],
            )
            if response.get("Failed"):
                raise RuntimeError(f"the bulk queue refused {len(response['Failed'])} chunk messages")

    def enqueue_completion(self, job: BulkJob) -> None:
        message = ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())

    def enqueue_purge(self, job: BulkJob) -> None:
        message = ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, purge=True)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())

    def enqueue_read(self, job: BulkJob) -> None:
        message = ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, read_file=True)
        self._sqs.send_message(QueueUrl=self._url, MessageBody=message.model_dump_json())

    def enqueue_resume_check(self, job: BulkJob, token: str) -> None:
        message = ChunkMessage(account_id=job.account_id, job_id=job.id, chunk=-1, resume_token=token)
        self._sqs.send_message(
            QueueUrl=self._url, MessageBody=message.model_dump_json(), DelaySeconds=RESUME_CHECK_SECONDS
        )
