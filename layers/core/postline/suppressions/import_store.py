"""Suppression import jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py).

    JOB#<account>  SUPPRESSION_IMPORT#<id>   an import job with its checkpoint; purge_at (TTL) 30 days
                                             after it ended

The worker claims the job under a lease; each checkpoint, and the end, is written only by the attempt
holding it (the whole job, conditional on status processing and that attempt).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from postline.shared.jobs import JobKind, JobTable
from postline.suppressions.imports import ImportStatus, SuppressionImport

JOB_PURGE_AFTER = timedelta(days=30)


def _purge_at(job: SuppressionImport) -> datetime:
    return (job.completed_at or job.created_at) + JOB_PURGE_AFTER


IMPORTS = JobKind(prefix="SUPPRESSION_IMPORT", model=SuppressionImport, purge_at=_purge_at)


class DynamoSuppressionImports:
    def __init__(self, client: Any, table: str) -> None:
        self._jobs = JobTable(client, table, IMPORTS)

    def create(self, job: SuppressionImport) -> None:
        if not self._jobs.create(job):
            raise RuntimeError(f"import {job.id} exists already")

    def get(self, account_id: str, import_id: str) -> SuppressionImport | None:
        return self._jobs.get(account_id, import_id)

    def uploaded(self, job: SuppressionImport, size_bytes: int) -> SuppressionImport | None:
        """A pending job's file has arrived: it is no longer awaiting it, and has its size."""
        return self._jobs.move(
            job,
            {ImportStatus.PENDING},
            ImportStatus.PENDING,
            updates={"awaiting_upload": False, "size_bytes": size_bytes},
        )

    def abandon(self, job: SuppressionImport) -> SuppressionImport | None:
        """A pending job whose file never came fails."""
        return self._jobs.move(job, {ImportStatus.PENDING}, ImportStatus.FAILED, updates={
            "error_message": job.error_message, "completed_at": job.completed_at, "awaiting_upload": False,
        })  # fmt: skip

    def claim(self, job: SuppressionImport, now: datetime, lease: timedelta) -> SuppressionImport | None:
        """pending, or processing under a lease that ran out -> processing by the next attempt."""
        return self._jobs.take_lease(job, now, lease, waiting={ImportStatus.PENDING}, held=ImportStatus.PROCESSING)

    def save(self, job: SuppressionImport) -> bool:
        """Stores the job as its attempt leaves it (a checkpoint, or its end) if that attempt still
        holds it; False when it lost the job."""
        return self._jobs.finish(job, job.attempt, held=ImportStatus.PROCESSING)

    def release(self, job: SuppressionImport) -> None:
        self._jobs.release_lease(job, job.attempt, held=ImportStatus.PROCESSING)
