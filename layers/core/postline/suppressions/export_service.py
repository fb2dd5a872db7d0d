"""Suppression exports: POST /v3/suppressions/export, GET /v3/suppressions/exports/{id}, and the worker.

As the event export (exports/service.py) does: equivalent running exports (same list) are one job; the
worker claims it under a lease, streams the entries (a page of the index at a time) into the job's one
S3 key as a multipart upload that appears only when complete, and only the attempt holding the job
may mark it completed or failed. The download URL is presigned on each GET, never past the file's
7 days.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from postline.audit.domain import audit_entry
from postline.audit.ports import AuditStore
from postline.exports.domain import ExportStatus
from postline.exports.models import ExportJobView
from postline.exports.ports import ExportFiles
from postline.exports.service import job_view
from postline.exports.writing import run_export
from postline.keys.identity import Principal
from postline.shared.errors import NotFound
from postline.shared.ports import Clock, IdFactory
from postline.suppressions.exports import CSV_HEADER, SuppressionExport, csv_row, new_suppression_export
from postline.suppressions.models import SuppressionExportAccepted, SuppressionExportRequest
from postline.suppressions.ports import SuppressionStore


class ExportJobs(Protocol):
    def create_or_find(self, job: SuppressionExport, now: datetime) -> SuppressionExport: ...

    def get(self, account_id: str, export_id: str) -> SuppressionExport | None: ...

    def claim(self, job: SuppressionExport, now: datetime, lease: timedelta) -> SuppressionExport | None: ...

    def release(self, job: SuppressionExport) -> None: ...

    def finish(self, job: SuppressionExport) -> bool: ...


class ExportQueue(Protocol):
    def enqueue(self, job: SuppressionExport) -> None: ...


class SuppressionExportService:
    def __init__(
        self,
        *,
        jobs: ExportJobs,
        queue: ExportQueue,
        files: ExportFiles,
        store: SuppressionStore,
        audit: AuditStore,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._jobs = jobs
        self._queue = queue
        self._files = files
        self._store = store
        self._audit = audit
        self._ids = ids
        self._clock = clock

    def start(self, principal: Principal, request: SuppressionExportRequest) -> SuppressionExportAccepted:
        now = self._clock.now()
        account_id = principal.account.id
        job = new_suppression_export(self._ids.new_id(), account_id, request.type, now)
        running = self._jobs.create_or_find(job, now)
        if running.status is ExportStatus.PENDING:
            self._queue.enqueue(running)  # again, in case its message was lost: a repeat is a no-op
        self._audit.record(
            audit_entry(
                entry_id=self._ids.new_id(),
                account_id=account_id,
                actor=principal.actor(),
                action="suppressions.exported",
                target=running.id,
                details=request.type.value if request.type else "all lists",
                now=now,
            )
        )
        return SuppressionExportAccepted(export_id=running.id, status=running.status)

    def get(self, principal: Principal, export_id: str) -> ExportJobView:
        job = self._jobs.get(principal.account.id, export_id)
        if job is None:
            raise NotFound(f"No suppression export {export_id} in this account.")
        return job_view(job, self._files, self._clock.now())

    def run(self, account_id: str, export_id: str, *, receive_count: int) -> None:
        """Writes the job's file (exports/writing.py). Raises to have the message retried."""
        run_export(
            self._jobs, self._files, self._clock, account_id, export_id,
            receive_count=receive_count,
            header=CSV_HEADER,
            rows=lambda job: map(csv_row, self._store.stream(job.account_id, job.type)),
            label="suppression export",
        )  # fmt: skip
