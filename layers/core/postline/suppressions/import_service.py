"""Suppression imports: POST /v3/suppressions/import, GET /v3/suppressions/imports/{id}, and the worker.

The route stores the CSV in S3 (imports/<account>/<id>.csv), writes the job (pending) and queues it;
it counts as a call in the bulk routes' window and is audited (suppressions.imported). The worker
claims the job under a lease (processing) and reads the file as a stream from the job's checkpoint,
CHUNK_ROWS rows at a time: it checks them (imports.parse_row), writes the chunk's new entries in
batches (those already listed are left as they are), then stores the checkpoint, conditional on
still holding the job. After MAX_CHUNKS_PER_RUN chunks it gives the lease back and queues the job
again, so no invocation runs long; at the end of the file the job is done. An attempt that dies
(a crash, a timeout) leaves its lease to run out; the message's redelivery claims the job as the
next attempt and goes on from the last checkpoint, so nothing is counted twice.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from contextlib import suppress
from datetime import timedelta

from postline.audit.ports import AuditStore
from postline.audit.service import new_audit_entry
from postline.keys.identity import Principal
from postline.shared.csv_files import UPLOAD_WINDOW, CountedLines, RowError, RowErrorReason, csv_rows
from postline.shared.errors import NotFound
from postline.shared.ports import Clock, IdFactory
from postline.suppressions.domain import SuppressionSource, new_suppression
from postline.suppressions.imports import (
    CHUNK_ROWS,
    Chunk,
    ImportRow,
    ImportStatus,
    SuppressionImport,
    checkpointed,
    header_columns,
    parse_row,
)
from postline.suppressions.models import (
    SuppressionImportAccepted,
    SuppressionImportRequest,
    SuppressionImportView,
    import_view,
)
from postline.suppressions.ports import BulkWindow, ImportFiles, ImportJobs, ImportQueue, SuppressionStore
from postline.suppressions.service import admit_bulk_call

LEASE = timedelta(seconds=930)  # the worker's 900 s timeout and a margin, under the queue's 960 s visibility
MAX_CHUNKS_PER_RUN = 300  # 300,000 rows an invocation, then the job is queued again
MAX_ATTEMPTS = 3  # deliveries of one message; then the job fails rather than waiting in the DLQ
GAVE_UP = "The import could not be completed; start it again (rows already added stay on the list)."
NO_UPLOAD = "No file was uploaded to the import's upload_url within the hour."
RUNNING = (ImportStatus.PENDING, ImportStatus.PROCESSING)


class ImportBusyError(Exception):
    """Another attempt holds the job's lease: the message is retried after its visibility timeout."""


class _BadFileError(Exception):
    pass


class _LostJobError(Exception):
    """A newer attempt took the job (this one's lease ran out): it carries on, this one stops."""


class SuppressionImportService:
    def __init__(
        self,
        *,
        jobs: ImportJobs,
        files: ImportFiles,
        queue: ImportQueue,
        store: SuppressionStore,
        window: BulkWindow,
        audit: AuditStore,
        ids: IdFactory,
        clock: Clock,
        chunk_rows: int = CHUNK_ROWS,
        chunks_per_run: int = MAX_CHUNKS_PER_RUN,
    ) -> None:
        self._jobs = jobs
        self._files = files
        self._queue = queue
        self._store = store
        self._window = window
        self._audit = audit
        self._ids = ids
        self._clock = clock
        self._chunk_rows = chunk_rows
        self._chunks_per_run = chunks_per_run

    # -- the API -----------------------------------------------------------------------------------

    def start(self, principal: Principal, request: SuppressionImportRequest) -> SuppressionImportAccepted:
        account_id = principal.account.id
        now = self._clock.now()
        admit_bulk_call(self._window, now, account_id)
        data = request.csv.encode() if request.csv is not None else None
        job = SuppressionImport(
            id=self._ids.new_id(),
            account_id=account_id,
            type=request.type,
            status=ImportStatus.PENDING,
            filename=request.filename,
            size_bytes=len(data) if data is not None else 0,
            awaiting_upload=data is None,
            upload_expires_at=None if data is not None else now + UPLOAD_WINDOW,
            created_at=now,
        )
        upload_url = None
        if data is not None:
            self._files.store(account_id, job.id, data)
        else:
            upload_url = self._files.upload_url(account_id, job.id, int(UPLOAD_WINDOW.total_seconds()))
        self._jobs.create(job)
        if data is not None:
            self._queue.enqueue(job)
        details = f"{job.type.value}: {job.filename}, " + (
            f"{job.size_bytes} bytes" if data is not None else "uploaded to a presigned URL"
        )
        self._audit.record(
            new_audit_entry(self._ids, principal.actor(), account_id, "suppressions.imported", job.id, details, now=now)
        )
        return SuppressionImportAccepted(
            import_id=job.id, status=job.status, upload_url=upload_url, upload_expires_at=job.upload_expires_at
        )

    def get(self, principal: Principal, import_id: str) -> SuppressionImportView:
        job = self._jobs.get(principal.account.id, import_id)
        if job is None:
            raise NotFound(f"No suppression import {import_id} in this account.")
        if job.awaiting_upload and job.status is ImportStatus.PENDING:
            job = self._look_for_upload(job)
        return import_view(job)

    def _look_for_upload(self, job: SuppressionImport) -> SuppressionImport:
        """The first poll that finds the presigned upload's file queues the import (two at once queue it
        twice: the worker runs it once); past the upload window without a file, the import fails."""
        size = self._files.size(job)
        if size is not None:
            moved = self._jobs.uploaded(job, size)
            if moved is not None:
                self._queue.enqueue(moved)
                return moved
            return job
        now = self._clock.now()
        if job.upload_expires_at is not None and now >= job.upload_expires_at:
            failed = job.model_copy(update={"error_message": NO_UPLOAD, "completed_at": now})
            return self._jobs.abandon(failed) or job
        return job

    # -- the worker --------------------------------------------------------------------------------

    def run(self, account_id: str, import_id: str, *, receive_count: int) -> None:
        """Reads on from the job's checkpoint. Raises to have the message retried."""
        job = self._jobs.get(account_id, import_id)
        if job is None or job.status not in RUNNING or job.awaiting_upload:
            return  # done already, or gone: a repeated message (or no file yet: its first poll queues it)
        claimed = self._jobs.claim(job, self._clock.now(), LEASE)
        if claimed is None:
            raise ImportBusyError(f"import {import_id} is being read by another attempt")
        if receive_count > MAX_ATTEMPTS:  # earlier attempts died without a word (timeouts): stop here
            self._jobs.save(self._failed(claimed, GAVE_UP))
            return
        try:
            self._read(claimed)
        except _LostJobError:
            return
        except _BadFileError as error:
            self._fail(claimed, str(error))
        except Exception:
            if receive_count >= MAX_ATTEMPTS:
                with suppress(Exception):
                    self._fail(claimed, GAVE_UP)
                return
            self._jobs.release(claimed)
            raise

    def _fail(self, claimed: SuppressionImport, message: str) -> None:
        """Fails the job as its last checkpoint left it (this run's chunks counted), if this attempt holds it."""
        latest = self._jobs.get(claimed.account_id, claimed.id)
        self._jobs.save(self._failed(latest if latest is not None else claimed, message))

    def _read(self, job: SuppressionImport) -> SuppressionImport:
        lines = self._files.lines(job)
        try:
            return self._chunks(job, lines, csv_rows(lines))
        except csv.Error as error:  # csv_rows reports a cell past the csv module's limit; anything else
            raise _BadFileError(f"The file could not be read as CSV: {error}") from error

    def _chunks(
        self, job: SuppressionImport, lines: CountedLines, reader: Iterator[list[str] | RowErrorReason]
    ) -> SuppressionImport:
        current = job
        if current.columns is None:
            header = next(reader, None)
            if header is None:
                raise _BadFileError("The file is empty: its first row must name its columns, one of them `email`.")
            if isinstance(header, RowErrorReason):
                raise _BadFileError("The file's first row has a cell longer than 131,072 characters.")
            try:
                columns = header_columns(header)
            except ValueError as error:
                raise _BadFileError(str(error)) from error
            current = current.model_copy(update={"columns": columns, "offset": lines.consumed})
        columns = current.columns or {}
        number = 1 + current.processed_rows  # the last row read: the header is row 1
        for _ in range(self._chunks_per_run):
            chunk = Chunk()
            for row in reader:
                number += 1
                if isinstance(row, RowErrorReason):  # a cell too long to read
                    parsed: ImportRow | RowError = RowError(row=number, email="", reason=row)
                elif row:
                    parsed = parse_row(columns, row, number)
                else:
                    parsed = RowError(row=number, email="", reason=RowErrorReason.MISSING_EMAIL)
                if isinstance(parsed, RowError):
                    chunk.errors.append(parsed)
                else:
                    chunk.rows.append(parsed)
                if chunk.read >= self._chunk_rows:
                    break
            if chunk.read:
                self._write(current, chunk)
                current = self._save(checkpointed(current, chunk, lines.consumed, self._lease_until()))
            if chunk.read < self._chunk_rows:  # the end of the file
                done = current.model_copy(
                    update={
                        "status": ImportStatus.DONE,
                        "total_rows": current.processed_rows,
                        "completed_at": self._clock.now(),
                        "lease_until": None,
                    }
                )
                return self._save(done)
        # Bounded work per invocation: the next one goes on from this checkpoint.
        self._jobs.release(current)
        self._queue.enqueue(current)
        return current

    def _write(self, job: SuppressionImport, chunk: Chunk) -> None:
        rows = chunk.distinct()
        present = self._store.present(job.account_id, job.type, [row.email for row in rows])
        now = self._clock.now()
        self._store.put_many(
            [
                new_suppression(
                    job.account_id,
                    job.type,
                    row.email,
                    row.created_at or now,
                    reason=row.reason,
                    source=SuppressionSource.IMPORT,
                )
                for row in rows
                if row.email not in present
            ]
        )

    def _save(self, job: SuppressionImport) -> SuppressionImport:
        if not self._jobs.save(job):
            raise _LostJobError(job.id)
        return job

    def _lease_until(self) -> int:
        return int((self._clock.now() + LEASE).timestamp())

    def _failed(self, job: SuppressionImport, message: str) -> SuppressionImport:
        return job.model_copy(
            update={
                "status": ImportStatus.FAILED,
                "error_message": message,
                "completed_at": self._clock.now(),
                "lease_until": None,
            }
        )
