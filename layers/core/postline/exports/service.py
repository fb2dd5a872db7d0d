"""Event exports: POST /v3/events/export, GET /v3/events/export/{id}, and the worker that writes the CSV.

The lifecycle (exports/file_service.py) and the worker's steps (exports/writing.py) are those of
every file export: equivalent running exports are one job, and each of the worker's steps is
conditional, so a redelivered or concurrent message cannot write a second file or leave a
half-written one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Unpack

from postline.accounts.domain import retention_days
from postline.events.ports import EventStream
from postline.events.query import plan_query
from postline.exports.domain import CSV_HEADER, MAX_EXPORT_ROWS, ExportJob, csv_row, new_export, too_many_rows_message
from postline.exports.file_service import DOWNLOAD_URL_SECONDS, FileExportService
from postline.exports.models import EventExportAccepted, EventExportRequest
from postline.exports.ports import FileExportPorts
from postline.exports.writing import GAVE_UP, MAX_ATTEMPTS, ExportBusyError
from postline.keys.identity import Principal

__all__ = ["DOWNLOAD_URL_SECONDS", "GAVE_UP", "MAX_ATTEMPTS", "ExportBusyError", "ExportService"]


class ExportService(FileExportService[ExportJob]):
    label = "export"
    action = "events.exported"
    header = CSV_HEADER

    def __init__(
        self, *, events: EventStream, max_rows: int = MAX_EXPORT_ROWS, **ports: Unpack[FileExportPorts[ExportJob]]
    ) -> None:
        super().__init__(max_rows=max_rows, too_many_rows=too_many_rows_message(max_rows), **ports)
        self._events = events

    def start(self, principal: Principal, request: EventExportRequest) -> EventExportAccepted:
        now = self._clock.now()
        account = principal.account
        filters = request.filters(
            now=now, retention_days=retention_days(account, now), account_created=account.created_at
        )
        job = new_export(self._ids.new_id(), account.id, filters, request.fingerprint(account.id), now)
        running = self.start_job(principal, job, now)
        return EventExportAccepted(export_id=running.id, status=running.status)

    def rows(self, job: ExportJob) -> Iterator[tuple[str, ...]]:
        return map(csv_row, self._events.stream(job.account_id, plan_query(job.filters, job.window)))
