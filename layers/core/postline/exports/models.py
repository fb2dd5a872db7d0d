"""POST /v3/events/export and GET /v3/events/export/{id}: the request, the accepted reply, the job."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import ConfigDict, Field

from postline.events.query import EventFilters
from postline.exports.domain import ExportStatus, FileExportJob
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed
from postline.shared.times import UtcDatetime


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


class EventExportAccepted(Model):
    export_id: str
    status: ExportStatus = Field(description="pending for a new job; an equivalent running job is returned as-is.")


class ExportJobView(Model):
    """An export job as GET /v3/events/export/{id} returns it."""

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


def export_view(job: FileExportJob, now: datetime, download_url: str | None) -> ExportJobView:
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
