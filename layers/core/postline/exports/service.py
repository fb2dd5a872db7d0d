"""Event exports: POST /v3/events/export, GET /v3/events/export/{id}, and the worker that writes the CSV.

The worker's steps (exports/writing.py, shared with suppression exports) are each conditional, so
a redelivered or concurrent message cannot write a second file or leave a half-written one.
"""

from __future__ import annotations

from datetime import datetime

from postline.accounts.domain import retention_days
from postline.audit.domain import audit_entry
from postline.audit.ports import AuditStore
from postline.events.ports import EventStream
from postline.events.query import plan_query
from postline.exports.domain import (
    CSV_HEADER,
    MAX_EXPORT_ROWS,
    ExportStatus,
    FileExportJob,
    csv_row,
    new_export,
    too_many_rows_message,
)
from postline.exports.models import EventExportAccepted, EventExportRequest, ExportJobView, export_view
from postline.exports.ports import ExportFiles, ExportJobs, ExportQueue
from postline.exports.writing import GAVE_UP, MAX_ATTEMPTS, ExportBusyError, run_export
from postline.keys.identity import Principal
from postline.shared.errors import NotFound
from postline.shared.ports import Clock, IdFactory

DOWNLOAD_URL_SECONDS = 3600  # a fresh URL on each GET; never past the file's expiry
__all__ = ["GAVE_UP", "MAX_ATTEMPTS", "ExportBusyError", "ExportService", "job_view"]


class ExportService:
    def __init__(
        self,
        *,
        jobs: ExportJobs,
        queue: ExportQueue,
        files: ExportFiles,
        events: EventStream,
        audit: AuditStore,
        ids: IdFactory,
        clock: Clock,
        max_rows: int = MAX_EXPORT_ROWS,
    ) -> None:
        self._jobs = jobs
        self._queue = queue
        self._files = files
        self._events = events
        self._audit = audit
        self._ids = ids
        self._clock = clock
        self._max_rows = max_rows

    # -- the API -----------------------------------------------------------------------------------

    def start(self, principal: Principal, request: EventExportRequest) -> EventExportAccepted:
        now = self._clock.now()
        account = principal.account
        filters = request.filters(
            now=now, retention_days=retention_days(account, now), account_created=account.created_at
        )
        job = new_export(self._ids.new_id(), account.id, filters, request.fingerprint(account.id), now)
        running = self._jobs.create_or_find(job, now)
        if running.status is ExportStatus.PENDING:
            # A new job, or one not started yet: queued again in case its message was lost (a
            # repeated message is a no-op for the worker).
            self._queue.enqueue(running)
        self._audit.record(
            audit_entry(
                entry_id=self._ids.new_id(),
                account_id=account.id,
                actor=principal.actor(),
                action="events.exported",
                target=running.id,
                now=now,
            )
        )
        return EventExportAccepted(export_id=running.id, status=running.status)

    def get(self, principal: Principal, export_id: str) -> ExportJobView:
        job = self._jobs.get(principal.account.id, export_id)
        if job is None:
            raise NotFound(f"No export {export_id} in this account.")
        return job_view(job, self._files, self._clock.now())

    # -- the worker --------------------------------------------------------------------------------

    def run(self, account_id: str, export_id: str, *, receive_count: int) -> None:
        """Writes the job's file (exports/writing.py). Raises to have the message retried."""
        run_export(
            self._jobs, self._files, self._clock, account_id, export_id,
            receive_count=receive_count,
            header=CSV_HEADER,
            rows=lambda job: map(csv_row, self._events.stream(job.account_id, plan_query(job.filters, job.window))),
            max_rows=self._max_rows,
            too_many_rows=too_many_rows_message(self._max_rows),
        )  # fmt: skip


def job_view(job: FileExportJob, files: ExportFiles, now: datetime) -> ExportJobView:
    """A file export as GET answers it (event and suppression exports): a fresh download URL on each
    read while the completed file is kept, never valid past its expiry."""
    url = None
    if job.status is ExportStatus.COMPLETED and job.expires_at is not None and not job.expired(now):
        lifetime = min(DOWNLOAD_URL_SECONDS, int((job.expires_at - now).total_seconds()))
        url = files.download_url(job, max(lifetime, 1))
    return export_view(job, now, url)
