"""The lifecycle every file export shares: event exports (exports/service.py) and suppression
exports (suppressions/export_service.py) are each a FileExportService that names its job in
messages, its audit action, its CSV header, and how it reads its rows.

- start_job: the new job, or the equivalent one still running (one job per fingerprint), is queued
  again while it is pending (in case its message was lost; a repeated message is a no-op for the
  worker), and the request is audited;
- get: the job as GET answers it, with a fresh download URL while its file is kept;
- run: the worker writes the job's file (exports/writing.py), each step conditional.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar, Generic, Unpack

from postline.audit.service import new_audit_entry
from postline.exports.domain import ExportStatus, FileExportJob
from postline.exports.models import ExportJobView, export_view
from postline.exports.ports import ExportFiles, FileExportPorts, Job
from postline.exports.writing import run_export
from postline.keys.identity import Principal
from postline.shared.errors import NotFound

DOWNLOAD_URL_SECONDS = 3600  # a fresh URL on each GET; never past the file's expiry


class FileExportService(ABC, Generic[Job]):
    label: ClassVar[str]  # the job in messages: "No <label> <id> in this account."
    action: ClassVar[str]  # the audit action of a started export
    header: ClassVar[Sequence[str]]  # the file's first row

    def __init__(
        self,
        *,
        max_rows: int | None = None,  # a job that matches more fails with `too_many_rows`
        too_many_rows: str = "",
        **ports: Unpack[FileExportPorts[Job]],
    ) -> None:
        self._jobs = ports["jobs"]
        self._queue = ports["queue"]
        self._files = ports["files"]
        self._audit = ports["audit"]
        self._ids = ports["ids"]
        self._clock = ports["clock"]
        self._max_rows = max_rows
        self._too_many_rows = too_many_rows

    @abstractmethod
    def rows(self, job: Job) -> Iterable[Sequence[Any]]:
        """The job's rows, in the file's order."""

    # -- the API -----------------------------------------------------------------------------------

    def start_job(self, principal: Principal, job: Job, now: datetime, *, details: str | None = None) -> Job:
        """Starts `job` (made at `now`), or finds the equivalent one still running; returns the one that runs."""
        running = self._jobs.create_or_find(job, now)
        if running.status is ExportStatus.PENDING:
            # A new job, or one not started yet: queued again in case its message was lost (a
            # repeated message is a no-op for the worker).
            self._queue.enqueue(running)
        actor, account_id = principal.actor(), principal.account.id
        self._audit.record(new_audit_entry(self._ids, actor, account_id, self.action, running.id, details, now=now))
        return running

    def get(self, principal: Principal, export_id: str) -> ExportJobView:
        job = self._jobs.get(principal.account.id, export_id)
        if job is None:
            raise NotFound(f"No {self.label} {export_id} in this account.")
        return job_view(job, self._files, self._clock.now())

    # -- the worker --------------------------------------------------------------------------------

    def run(self, account_id: str, export_id: str, *, receive_count: int) -> None:
        """Writes the job's file (exports/writing.py). Raises to have the message retried."""
        run_export(
            self._jobs, self._files, self._clock, account_id, export_id,
            receive_count=receive_count,
            header=self.header,
            rows=self.rows,
            max_rows=self._max_rows,
            too_many_rows=self._too_many_rows,
            label=self.label,
        )  # fmt: skip


def job_view(job: FileExportJob, files: ExportFiles, now: datetime) -> ExportJobView:
    """A file export as GET answers it: a fresh download URL on each read while the completed file
    is kept, never valid past its expiry."""
    url = None
    if job.status is ExportStatus.COMPLETED and job.expires_at is not None and not job.expired(now):
        lifetime = min(DOWNLOAD_URL_SECONDS, int((job.expires_at - now).total_seconds()))
        url = files.download_url(job, max(lifetime, 1))
    return export_view(job, now, url)
