"""Event exports (spec 2 EventExportAccepted and ExportJob, spec 4 Event export, spec 8 limits).

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
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from postline.domain.errors import ValidationFailed
from postline.domain.event_query import EventFilters, Window, event_view
from postline.domain.events import Event
from postline.domain.times import UtcDatetime

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


class EventExportRequest(EventFilters):
    """POST /v3/events/export: the filters of GET /v3/events over a window within retention."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    since: UtcDatetime = Field(description="Events at or after (ISO 8601); within the account's retention.")
    until: UtcDatetime = Field(description="Events at or before (ISO 8601); not in the future.")
    format: Literal["csv"] = Field(default="csv", description="Only csv.")

    def filters(self, *, now: datetime, retention_days: int, account_created: datetime) -> EventFilters:
        """The filters to run: the window checked against now and retention, since raised to when the
        account was created (nothing is older; fewer partitions to walk)."""
        if self.until > now:
            raise ValidationFailed("until: must not be in the future")
        if self.since < now - timedelta(days=retention_days):
            raise ValidationFailed(f"since: must be within the account's {retention_days}-day retention")
        fields = self.model_dump(exclude={"format"})
        return EventFilters(**{**fields, "since": min(max(self.since, account_created), self.until)})


class ExportJob(BaseModel):
    """The stored job. `attempt` counts claims: only the current attempt may finish the job."""

    id: str
    account_id: str
    status: ExportStatus
    filters: EventFilters
    fingerprint: str  # of the account and the requested filters: equivalent running jobs are one
    filename: str
    row_count: int | None = None
    error_message: str | None = None
    attempt: int = 0
    created_at: datetime
    completed_at: datetime | None = None
    expires_at: datetime | None = None

    def completed(self, row_count: int, now: datetime) -> ExportJob:
        return self.model_copy(
            update={
                "status": ExportStatus.COMPLETED,
                "row_count": row_count,
                "completed_at": now,
                "expires_at": now + FILE_LIFETIME,
            }
        )

    def failed(self, message: str, now: datetime) -> ExportJob:
        return self.model_copy(update={"status": ExportStatus.FAILED, "error_message": message, "completed_at": now})

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at

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


class ExportMessage(BaseModel):
    """What the export queue carries: which job to run."""

    account_id: str
    export_id: str


class EventExportAccepted(BaseModel):
    export_id: str
    status: ExportStatus = Field(description="pending for a new job; an equivalent running job is returned as-is.")


class ExportJobView(BaseModel):
    """GET /v3/events/export/{id} (spec 2, ExportJob)."""

    id: str
    status: ExportStatus
    filename: str
    row_count: int | None = Field(description="Rows written; set on completion.")
    download_url: str | None = Field(
        description="Presigned GET of the CSV once completed; never valid past expires_at."
    )
    error_message: str | None = Field(description="Why the export failed, e.g. more than 1,000,000 rows.")
    created_at: datetime
    completed_at: datetime | None
    expires_at: datetime | None = Field(description="When the file is deleted: 7 days after completion.")


def export_view(job: ExportJob, now: datetime, download_url: str | None) -> ExportJobView:
    expired = job.status is ExportStatus.COMPLETED and job.expired(now)
    return ExportJobView(
        id=job.id,
        status=ExportStatus.EXPIRED if expired else job.status,
        filename=job.filename,
        row_count=job.row_count,
        download_url=None if expired or job.status is not ExportStatus.COMPLETED else download_url,
        error_message=job.error_message,
        created_at=job.created_at,
        completed_at=job.completed_at,
        expires_at=job.expires_at,
    )


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
