"""What file exports need (event and suppression exports): the job table, the file store and the
queue. The job table and the queue are generic in the kind of job (exports/domain.py ExportJob,
suppressions/exports.py SuppressionExport).

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Generic, Protocol, TypedDict, TypeVar

if TYPE_CHECKING:
    from postline.audit.ports import AuditStore
    from postline.exports.domain import FileExportJob
    from postline.shared.ports import Clock, IdFactory

Job = TypeVar("Job", bound="FileExportJob")
Job_contra = TypeVar("Job_contra", bound="FileExportJob", contravariant=True)


class FileJobs(Protocol[Job]):
    """The job table of one kind of file export, as the worker uses it."""

    def get(self, account_id: str, export_id: str) -> Job | None: ...

    def claim(self, job: Job, now: datetime, lease: timedelta) -> Job | None:
        """Makes the job processing as its next attempt, under a lease; None while another attempt
        holds a live lease, or once the job ended."""
        ...

    def release(self, job: Job) -> None:
        """Ends the lease of the job's (failed) attempt, so the next delivery may claim it at once."""
        ...

    def finish(self, job: Job) -> bool:
        """Stores the job completed or failed, only if its attempt still holds it; frees its fingerprint."""
        ...


class ExportJobs(FileJobs[Job], Protocol[Job]):
    """The job table of one kind of file export, as its routes and its worker use it."""

    def create_or_find(self, job: Job, now: datetime) -> Job:
        """Stores the new job unless one of the same fingerprint is still pending or processing,
        which it returns instead."""
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


class ExportQueue(Protocol[Job_contra]):
    def enqueue(self, job: Job_contra) -> None: ...


class FileExportPorts(TypedDict, Generic[Job]):
    """What every file export service is built from (exports/file_service.py), as keyword arguments."""

    jobs: ExportJobs[Job]
    queue: ExportQueue[Job]
    files: ExportFiles
    audit: AuditStore
    ids: IdFactory
    clock: Clock
