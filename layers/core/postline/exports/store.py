"""Event export jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py).

    JOB#<account>  EXPORT#<id>             an export job; purge_at (TTL) well after its file is gone
    JOB#<account>  EXPORT_FP#<fingerprint> the running job of equivalent filters: job_id, active_until

Equivalent exports are one job: a new job is written together with its fingerprint item unless a
live one exists, and the job's end removes it. active_until bounds how long a job that never ended
(its messages dead-lettered) can hold the fingerprint. The worker claims the job under a lease,
and only the attempt holding it may finish it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from postline.exports.domain import RUNNING, ExportJob, ExportStatus
from postline.shared.jobs import JobKind, JobTable

FINGERPRINT_LIFETIME = timedelta(days=1)
JOB_PURGE_AFTER = timedelta(days=30)  # a job reads as `expired`, not 404, for a month after its file


def _purge_at(job: ExportJob) -> datetime:
    return (job.expires_at or job.created_at) + JOB_PURGE_AFTER


EXPORTS = JobKind(prefix="EXPORT", model=ExportJob, purge_at=_purge_at)


class DynamoExportJobs:
    def __init__(self, client: Any, table: str) -> None:
        self._jobs = JobTable(client, table, EXPORTS)

    def create_or_find(self, job: ExportJob, now: datetime) -> ExportJob:
        """Stores `job` unless an equivalent one is still running; returns the one that runs."""
        return self._jobs.create_or_find(job, job.fingerprint, now, running=RUNNING, lifetime=FINGERPRINT_LIFETIME)

    def get(self, account_id: str, export_id: str) -> ExportJob | None:
        return self._jobs.get(account_id, export_id)

    def claim(self, job: ExportJob, now: datetime, lease: timedelta) -> ExportJob | None:
        """pending, or processing under a lease that ran out -> processing under a new lease, as the
        next attempt; None when another attempt holds a live lease or the job ended."""
        return self._jobs.take_lease(job, now, lease, waiting={ExportStatus.PENDING}, held=ExportStatus.PROCESSING)

    def release(self, job: ExportJob) -> None:
        """Gives the lease of a failed attempt back, so the job's next delivery need not wait it out."""
        self._jobs.release_lease(job, job.attempt, held=ExportStatus.PROCESSING)

    def finish(self, job: ExportJob) -> bool:
        """Stores the ended job (completed or failed) if its attempt is still the current one, and
        frees its fingerprint."""
        return self._jobs.finish(job, job.attempt, held=ExportStatus.PROCESSING, fingerprint=job.fingerprint)
