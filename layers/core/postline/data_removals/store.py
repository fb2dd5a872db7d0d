"""Data removals in the jobs table (layout and lifecycle: shared/jobs.py), and their queue.

    JOB#<account>  REMOVAL#<id>                  a removal: status, position, counts, receipt;
                                                 kept six years (purge_at) for its receipt
    JOB#<account>  REMOVAL#ERASED#<keyed hash>   a removal of that address completed here (the
                                                 next one reports already_erased)

The request's job is written in one transaction with its audit entry (resources table).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.data_removals.domain import JOB_KEPT, DataRemovalJob, RemovalStatus, erasure_hash_input
from postline.keys.hasher import PepperedHasher
from postline.shared.dynamo import epoch
from postline.shared.jobs import JobKind, JobTable
from postline.subaccounts.ports import SubaccountStore


def _purge_at(job: DataRemovalJob) -> datetime:
    return job.created_at + JOB_KEPT


REMOVALS = JobKind(prefix="REMOVAL", model=DataRemovalJob, purge_at=_purge_at)
_MARKER = "ERASED"


class DynamoRemovalJobs:
    def __init__(self, client: Any, table: str, audit_table: str) -> None:
        self._db = client
        self._table = table
        self._audit_table = audit_table
        self._jobs = JobTable(client, table, REMOVALS)

    def create(self, job: DataRemovalJob, audit: AuditEntry) -> None:
        self._db.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": self._jobs.item(job),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                audit_put(self._audit_table, audit),
            ]
        )

    def get(self, account_id: str, removal_id: str) -> DataRemovalJob | None:
        return self._jobs.get(account_id, removal_id)

    def claim(self, job: DataRemovalJob, now: datetime, lease: timedelta) -> DataRemovalJob | None:
        return self._jobs.take_lease(job, now, lease, waiting={RemovalStatus.PENDING}, held=RemovalStatus.PROCESSING)

    def advance(self, job: DataRemovalJob) -> bool:
        moved = self._jobs.move(
            job,
            {RemovalStatus.PROCESSING},
            RemovalStatus.PROCESSING,
            updates={
                "step": job.step,
                "cursor": job.cursor,
                "pending": job.pending.model_dump(mode="json") if job.pending is not None else None,
                "counts": job.counts.model_dump(mode="json"),
            },
            condition="attempt = :attempt",
            condition_values={":attempt": job.attempt},
        )
        return moved is not None

    def release(self, job: DataRemovalJob) -> None:
        self._jobs.release_lease(job, job.attempt, held=RemovalStatus.PROCESSING)

    def finish(self, job: DataRemovalJob, audit: AuditEntry | None) -> bool:
        stored = self._jobs.finish(job, job.attempt, held=RemovalStatus.PROCESSING)
        if stored and audit is not None:
            self._db.transact_write_items(TransactItems=[audit_put(self._audit_table, audit)])
        return stored

    def erased_before(self, account_id: str, address_hash: str) -> bool:
        found = self._db.get_item(
            TableName=self._table, Key=self._jobs.key(account_id, _MARKER, address_hash), ConsistentRead=True
        )
        return "Item" in found

    def mark_erased(self, account_id: str, address_hash: str, removal_id: str, now: datetime) -> None:
        self._db.put_item(
            TableName=self._table,
            Item={
                **self._jobs.key(account_id, _MARKER, address_hash),
                "removal_id": {"S": removal_id},
                "erased_at": {"S": now.isoformat()},
                "purge_at": epoch(now + JOB_KEPT),
            },
        )


class SqsRemovalQueue:
    def __init__(self, client: Any, url: str) -> None:
        self._sqs = client
        self._url = url

    def enqueue(self, job: DataRemovalJob) -> None:
        # Ids only: the address never travels through the queue.
        body = json.dumps({"account_id": job.account_id, "removal_id": job.id})
        self._sqs.send_message(QueueUrl=self._url, MessageBody=body)


class SubaccountOrganisation:
    """An organisation's subaccounts, from the subaccounts area's store (all its pages)."""

    def __init__(self, store: SubaccountStore) -> None:
        self._store = store

    def subaccount_ids(self, parent_id: str) -> list[str]:
        ids: list[str] = []
        page = 1
        while True:
            found, total = self._store.list_subaccounts(parent_id, page=page, per_page=100)
            ids += [account.id for account in found]
            if not found or page * 100 >= total:
                return ids
            page += 1


class PepperedAddressHasher:
    """The keyed hash of domain.erasure_hash_input under the platform's pepper (keys/hasher.py)."""

    def __init__(self, hasher: PepperedHasher) -> None:
        self._hasher = hasher

    def hash(self, account_id: str, address: str) -> str:
        return self._hasher.hash(erasure_hash_input(account_id, address))
