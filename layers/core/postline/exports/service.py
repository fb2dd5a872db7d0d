"""Event exports: POST /v3/events/export, GET /v3/events/export/{id}, and the worker that writes the CSV.

The worker's steps are each conditional, so a redelivered or concurrent message cannot write a
second file or leave a half-written one: it claims the job as a new attempt under a lease, writes
the job's single S3 key as a multipart upload (visible only once complete), and only the attempt
that still holds the job may mark it completed or failed.
"""

from __future__ import annotations

import csv
import io
from contextlib import suppress
from datetime import datetime, timedelta

from postline.audit.domain import audit_entry
from postline.audit.ports import AuditStore
from postline.auth.identity import Principal
from postline.events.ports import EventStream
from postline.events.query import plan_query
from postline.exports.domain import (
    CSV_HEADER,
    MAX_EXPORT_ROWS,
    RUNNING,
    ExportJob,
    ExportStatus,
    FileExportJob,
    csv_row,
    new_export,
    too_many_rows_message,
)
from postline.exports.models import EventExportAccepted, EventExportRequest, ExportJobView, export_view
from postline.exports.ports import ExportFiles, ExportJobs, ExportQueue, ExportUpload
from postline.retention.domain import retention_days
from postline.shared.errors import NotFound
from postline.shared.ports import Clock, IdFactory

LEASE = timedelta(seconds=930)  # the worker's 900 s timeout and a margin, under the queue's 960 s visibility
MAX_ATTEMPTS = 3  # deliveries of one job's message; then it fails rather than waiting in the DLQ
DOWNLOAD_URL_SECONDS = 3600  # a fresh URL on each GET; never past the file's expiry
_FLUSH_CHARS = 64 * 1024  # CSV text handed to the upload at a time
GAVE_UP = "The export could not be completed; start it again."


class ExportBusyError(Exception):
    """Another attempt holds the job's lease: the message is retried after its visibility timeout."""


class _TooManyRowsError(Exception):
    pass


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
        """Writes the job's file. Raises to have the message retried (up to MAX_ATTEMPTS deliveries)."""
        job = self._jobs.get(account_id, export_id)
        if job is None or job.status not in RUNNING:
            return  # done already, or gone: a repeated message
        claimed = self._jobs.claim(job, self._clock.now(), LEASE)
        if claimed is None:
            raise ExportBusyError(f"export {export_id} is being written by another attempt")
        if receive_count > MAX_ATTEMPTS:  # earlier attempts died without a word (timeouts): stop here
            self._jobs.finish(claimed.failed(GAVE_UP, self._clock.now()))
            return
        upload = self._files.upload(claimed)
        try:
            rows = self._write(claimed, upload)
            upload.complete()
        except _TooManyRowsError:
            self._abort(upload)
            self._jobs.finish(claimed.failed(too_many_rows_message(self._max_rows), self._clock.now()))
            return
        except Exception:
            self._abort(upload)
            if receive_count >= MAX_ATTEMPTS:
                self._jobs.finish(claimed.failed(GAVE_UP, self._clock.now()))
                return
            self._jobs.release(claimed)
            raise
        self._jobs.finish(claimed.completed(rows, self._clock.now()))

    def _write(self, job: ExportJob, upload: ExportUpload) -> int:
        """Streams the rows into the upload in small pieces; returns how many were written."""
        text = io.StringIO()
        writer = csv.writer(text)
        writer.writerow(CSV_HEADER)
        rows = 0
        for event in self._events.stream(job.account_id, plan_query(job.filters, job.window)):
            rows += 1
            if rows > self._max_rows:
                raise _TooManyRowsError
            writer.writerow(csv_row(event))
            if text.tell() >= _FLUSH_CHARS:
                upload.write(text.getvalue().encode())
                text.seek(0)
                text.truncate()
        upload.write(text.getvalue().encode())
        return rows

    @staticmethod
    def _abort(upload: ExportUpload) -> None:
        # It may be gone already (completed, or aborted by a newer attempt); the bucket's lifecycle
        # rule removes whatever incomplete upload is left.
        with suppress(Exception):
            upload.abort()


def job_view(job: FileExportJob, files: ExportFiles, now: datetime) -> ExportJobView:
    """A file export as GET answers it (event and suppression exports): a fresh download URL on each
    read while the completed file is kept, never valid past its expiry."""
    url = None
    if job.status is ExportStatus.COMPLETED and job.expires_at is not None and not job.expired(now):
        lifetime = min(DOWNLOAD_URL_SECONDS, int((job.expires_at - now).total_seconds()))
        url = files.download_url(job, max(lifetime, 1))
    return export_view(job, now, url)
