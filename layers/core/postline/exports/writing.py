"""Writing a file export's CSV, for every kind of file export (events, suppressions): the worker's
steps, each conditional, so a redelivered or concurrent message cannot write a second file or leave
a half-written one. It claims the job as a new attempt under a lease, streams the rows into the
job's single S3 key as a multipart upload (visible only once complete), and only the attempt that
still holds the job may mark it completed or failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from datetime import timedelta
from typing import Any

from postline.exports.domain import RUNNING
from postline.exports.ports import ExportFiles, ExportUpload, FileJobs, Job
from postline.shared.csv_files import CsvText
from postline.shared.ports import Clock

LEASE = timedelta(seconds=930)  # the worker's 900 s timeout and a margin, under the queue's 960 s visibility
MAX_ATTEMPTS = 3  # deliveries of one job's message; then it fails rather than waiting in the DLQ
GAVE_UP = "The export could not be completed; start it again."
_FLUSH_CHARS = 64 * 1024  # CSV text handed to the upload at a time


class ExportBusyError(Exception):
    """Another attempt holds the job's lease: the message is retried after its visibility timeout."""


class TooManyRowsError(Exception):
    pass


def run_export(
    jobs: FileJobs[Job],
    files: ExportFiles,
    clock: Clock,
    account_id: str,
    export_id: str,
    *,
    receive_count: int,
    header: Sequence[str],
    rows: Callable[[Job], Iterable[Sequence[Any]]],
    max_rows: int | None = None,
    too_many_rows: str = "",
    label: str = "export",
) -> None:
    """Writes the job's file. Raises to have the message retried (up to MAX_ATTEMPTS deliveries)."""
    job = jobs.get(account_id, export_id)
    if job is None or job.status not in RUNNING:
        return  # done already, or gone: a repeated message
    claimed = jobs.claim(job, clock.now(), LEASE)
    if claimed is None:
        raise ExportBusyError(f"{label} {export_id} is being written by another attempt")
    if receive_count > MAX_ATTEMPTS:  # earlier attempts died without a word (timeouts): stop here
        jobs.finish(claimed.failed(GAVE_UP, clock.now()))
        return
    upload = files.upload(claimed)
    try:
        written = write_csv(upload, header, rows(claimed), max_rows)
        upload.complete()
    except TooManyRowsError:
        _abort(upload)
        jobs.finish(claimed.failed(too_many_rows, clock.now()))
        return
    except Exception:
        _abort(upload)
        if receive_count >= MAX_ATTEMPTS:
            jobs.finish(claimed.failed(GAVE_UP, clock.now()))
            return
        jobs.release(claimed)
        raise
    jobs.finish(claimed.completed(written, clock.now()))


def write_csv(upload: ExportUpload, header: Sequence[str], rows: Iterable[Sequence[Any]], max_rows: int | None) -> int:
    """Streams the rows into the upload in small pieces (shared/csv_files.py's writer: formulas
    neutralised); returns how many were written. Raises TooManyRowsError at the first row past
    `max_rows`."""
    text = CsvText()
    text.row(header)
    written = 0
    for row in rows:
        written += 1
        if max_rows is not None and written > max_rows:
            raise TooManyRowsError
        text.row(row)
        if text.pending >= _FLUSH_CHARS:
            upload.write(text.take())
    upload.write(text.take())
    return written


def _abort(upload: ExportUpload) -> None:
    # It may be gone already (completed, or aborted by a newer attempt); the bucket's lifecycle
    # rule removes whatever incomplete upload is left.
    with suppress(Exception):
        upload.abort()
