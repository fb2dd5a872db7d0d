"""Suppression export jobs in the jobs table (its layout and the jobs' lifecycle: shared/jobs.py).

    JOB#<account>  SUPPRESSION_EXPORT#<id>              an export job; purge_at (TTL) a month after its file
    JOB#<account>  SUPPRESSION_EXPORT_FP#<fingerprint>  the running export of the same list

The file itself is written like an event export's (exports/files.py: exports/<account>/<id>.csv).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from postline.exports.domain import ExportStatus
from postline.shared.jobs import JobKind, JobTable
from postline.suppressions.exports import FINGERPRINT_LIFETIME, RUNNING, SuppressionExport

JOB_PURGE_AFTER = timedelta(days=30)


def _purge_at(job: SuppressionExport) -> datetime:
    return (job.expires_at or job.created_at) + JOB_PURGE_AFTER


SUPPRESSION_EXPORTS = JobKind(prefix="SUPPRESSION_EXPORT", model=SuppressionExport, purge_at=_purge_at)


class DynamoSuppressionExports:
    def __init__(self, client: Any, table: str) -> None:
        self._jobs = JobTable(client, table, SUPPRESSION_EXPORTS)

    def create_or_find(self, job: SuppressionExport, now: datetime) -> SuppressionExport:
        return self._jobs.create_or_find(job, job.fingerprint, now, running=RUNNING, lifetime=FINGERPRINT_LIFETIME)

    def get(self, account_id: str, export_id: str) -> SuppressionExport | None:
        return self._jobs.get(account_id, export_id)

    def claim(self, job: SuppressionExport, now: datetime, lease: timedelta) -> SuppressionExport | None:
        return self._jobs.take_lease(job, now, lease, waiting={ExportStatus.PENDING}, held=ExportStatus.PROCESSING)

    def release(self, job: SuppressionExport) -> None:
        self._jobs.release_lease(job, job.attempt, held=ExportStatus.PROCESSING)

    def finish(self, job: SuppressionExport) -> bool:
        return self._jobs.finish(job, job.attempt, held=ExportStatus.PROCESSING, fingerprint=job.fingerprint)
