"""Suppression exports: POST /v3/suppressions/export, GET /v3/suppressions/exports/{id}, and the worker.

The lifecycle of every file export (exports/file_service.py), as the event export has it: equivalent
running exports (same list) are one job; the worker claims it under a lease, streams the entries (a
page of the index at a time) into the job's one S3 key as a multipart upload that appears only when
complete, and only the attempt holding the job may mark it completed or failed. The download URL is
presigned on each GET, never past the file's 7 days.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Unpack

from postline.exports.file_service import FileExportService
from postline.exports.ports import FileExportPorts
from postline.keys.identity import Principal
from postline.suppressions.exports import CSV_HEADER, SuppressionExport, csv_row, new_suppression_export
from postline.suppressions.models import SuppressionExportAccepted, SuppressionExportRequest
from postline.suppressions.ports import SuppressionStore


class SuppressionExportService(FileExportService[SuppressionExport]):
    label = "suppression export"
    action = "suppressions.exported"
    header = CSV_HEADER

    def __init__(self, *, store: SuppressionStore, **ports: Unpack[FileExportPorts[SuppressionExport]]) -> None:
        super().__init__(**ports)
        self._store = store

    def start(self, principal: Principal, request: SuppressionExportRequest) -> SuppressionExportAccepted:
        now = self._clock.now()
        job = new_suppression_export(self._ids.new_id(), principal.account.id, request.type, now)
        running = self.start_job(principal, job, now, details=request.type.value if request.type else "all lists")
        return SuppressionExportAccepted(export_id=running.id, status=running.status)

    def rows(self, job: SuppressionExport) -> Iterator[tuple[str, ...]]:
        return map(csv_row, self._store.stream(job.account_id, job.type))
