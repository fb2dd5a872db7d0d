"""What event exports need: the job table, the file store and the queue.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.exports.domain import ExportJob, FileExportJob


class ExportJobs(Protocol):
    def create_or_find(self, job: ExportJob, now: datetime) -> ExportJob:
        """Stores the new job unless one of the same fingerprint is still pending or processing,
        which it returns instead."""
        ...

    def get(self, account_id: str, export_id: str) -> ExportJob | None: ...

    def claim(self, job: ExportJob, now: datetime, lease: timedelta) -> ExportJob | None:
        """Makes the job processing as its next attempt, under a lease; None while another attempt
        holds a live lease, or once the job ended."""
        ...

    def release(self, job: ExportJob) -> None:
        """Ends the lease of the job's (failed) attempt, so the next delivery may claim it at once."""
        ...

    def finish(self, job: ExportJob) -> bool:
        """Stores the job completed or failed, only if its attempt still holds it; frees its fingerprint."""
        ...


class ExportUpload(Protocol):
    def write(self, data: bytes) -> None: ...

    def complete(self) -> None:
        """Makes the file appear, whole."""
        ...

    def abort(self) -> None: ...


class ExportFiles(Protocol):
    def upload(self, job: FileExportJob) -> ExportUpload:
        """Starts writing the job's one file, discarding what an earlier attempt left unfinished."""
        ...

    def download_url(self, job: FileExportJob, expires_in: int) -> str: ...


class ExportQueue(Protocol):
    def enqueue(self, job: ExportJob) -> None: ...
