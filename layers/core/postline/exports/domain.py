"""Event exports: POST /v3/events/export and GET /v3/events/export/{id} (README, Events: Exports).

A job selects events with the filters of GET /v3/events over a required window and writes them
as CSV, newest first (the order GET /v3/events lists them), one row per event:

    id,type,message_id,recipient,timestamp,tags,metadata

tags is a JSON array, metadata the JSON object GET /v3/events shows (send metadata merged with
provider details; empty when it is null), recipient empty for message-level events.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Self

from postline.events.domain import Event
from postline.events.models import event_view
from postline.events.query import EventFilters, Window
from postline.shared.base import Model

MAX_EXPORT_ROWS = 1_000_000
FILE_LIFETIME = timedelta(days=7)  # the bucket's lifecycle rule deletes exports/ objects after as long
CSV_HEADER = ("id", "type", "message_id", "recipient", "timestamp", "tags", "metadata")


class ExportStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    EXPIRED = "expired"  # shown once a completed file's time is up; never stored


RUNNING = frozenset({ExportStatus.PENDING, ExportStatus.PROCESSING})


class FileExportJob(Model):
    """A job that writes one CSV file for download (event and suppression exports). `attempt` counts
    claims: only the current attempt may finish the job."""

    id: str
    account_id: str
    status: ExportStatus
    filename: str
    row_count: int | None = None
    error_message: str | None = None
    attempt: int = 0
    created_at: datetime
    completed_at: datetime | None = None
    expires_at: datetime | None = None

    def completed(self, row_count: int, now: datetime) -> Self:
        return self.model_copy(
            update={
                "status": ExportStatus.COMPLETED,
                "row_count": row_count,
                "completed_at": now,
                "expires_at": now + FILE_LIFETIME,
            }
        )

    def failed(self, message: str, now: datetime) -> Self:
        return self.model_copy(update={"status": ExportStatus.FAILED, "error_message": message, "completed_at": now})

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at


class ExportJob(FileExportJob):
    """The stored event export job."""

    filters: EventFilters
    fingerprint: str  # of the account and the requested filters: equivalent running jobs are one

    @property
    def window(self) -> Window:
        since, until = self.filters.since, self.filters.until
        if since is None or until is None:
            raise ValueError(f"export {self.id} has no window")  # EventExportRequest requires both
        return Window(since, until)


def new_export(export_id: str, account_id: str, filters: EventFilters, fingerprint: str, now: datetime) -> ExportJob:
    return ExportJob(
        id=export_id,
        account_id=account_id,
        status=ExportStatus.PENDING,
        filters=filters,
        fingerprint=fingerprint,
        filename=f"events-{now:%Y%m%dT%H%M%SZ}-{export_id}.csv",
        created_at=now,
    )


class ExportMessage(Model):
    """What the export queue carries: which job to run."""

    account_id: str
    export_id: str


def csv_row(event: Event) -> tuple[str, ...]:
    """One CSV row: the event as GET /v3/events shows it."""
    view = event_view(event).model_dump(mode="json")
    return (
        view["id"],
        view["type"],
        view["message_id"],
        view["recipient"] or "",
        view["timestamp"],
        json.dumps(view["tags"], separators=(",", ":")),
        json.dumps(view["metadata"], separators=(",", ":"), sort_keys=True) if view["metadata"] else "",
    )


def too_many_rows_message(limit: int) -> str:
    return f"The export matched more than {limit:,} rows; narrow the window or the filters."
