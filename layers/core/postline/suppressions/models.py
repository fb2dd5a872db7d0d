"""/v3/suppressions: what the routes take and return (the interface's Suppression, BulkSuppressionResult
and BulkSuppressionDeleteResult). The entry itself is returned as stored (domain.Suppression)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator

from postline.exports.domain import ExportStatus
from postline.shared.addresses import normalize_email
from postline.shared.base import Model
from postline.shared.csv_files import MAX_CSV_BODY, RowError
from postline.shared.times import UtcDatetime
from postline.suppressions.domain import MAX_BULK, SkipReason, SuppressionType
from postline.suppressions.imports import ImportStatus, SuppressionImport

Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=1_000)]
Submitted = Annotated[str, StringConstraints(max_length=1_000)]  # checked by the rules, so a bad one is skipped
CONFIRM = (
    "Required (true) to remove an unsubscribes entry: the address asked not to be mailed, and mailing it "
    "again is your call; recorded in the audit entry."
)


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class SuppressionCreate(_Strict):
    type: SuppressionType
    email: Annotated[str, StringConstraints(max_length=1_000)] = Field(description="Stored lowercased.")
    reason: Reason | None = None
    override_unsubscribes: bool = Field(
        default=False, description="Allowlist entries only: the address is mailed even if it unsubscribed."
    )

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return normalize_email(value)

    @model_validator(mode="after")
    def _override(self) -> SuppressionCreate:
        if self.override_unsubscribes and self.type is not SuppressionType.ALLOWLIST:
            raise ValueError("override_unsubscribes is only for allowlist entries")
        return self


class SuppressionRemoval(_Strict):
    """The optional body of DELETE /v3/suppressions/{id} and /v3/suppressions/{type}/{email}."""

    remove_unsubscribes: bool = Field(default=False, description=CONFIRM)


class BulkEntry(_Strict):
    email: Submitted
    reason: Reason | None = None


class BulkSuppressionRequest(_Strict):
    """POST /v3/suppressions/bulk: up to 10,000 entries of one type."""

    type: SuppressionType
    entries: list[BulkEntry] = Field(min_length=1, max_length=MAX_BULK)
    override_unsubscribes: bool = Field(default=False, description="Allowlist only: for every entry of the call.")

    @model_validator(mode="after")
    def _override(self) -> BulkSuppressionRequest:
        if self.override_unsubscribes and self.type is not SuppressionType.ALLOWLIST:
            raise ValueError("override_unsubscribes is only for allowlist entries")
        return self


class SkippedEntry(Model):
    index: int = Field(description="Zero-based, in the request's entries.")
    email: str = Field(description="As submitted.")
    reason: SkipReason


class BulkSuppressionResult(Model):
    added: int = Field(description="Entries on the list after the call, including those already there.")
    skipped: list[SkippedEntry]


class BulkSuppressionDelete(_Strict):
    """DELETE /v3/suppressions/bulk: up to 10,000 addresses of one type."""

    type: SuppressionType
    emails: list[Submitted] = Field(min_length=1, max_length=MAX_BULK)
    remove_unsubscribes: bool = Field(default=False, description=CONFIRM)


class BulkSuppressionDeleteResult(Model):
    removed: int = Field(description="Entries this call removed.")
    not_found: int = Field(
        description="Entries that were not on the list (invalid addresses and repeats in the call included)."
    )


class SuppressionFilters(Model):
    """GET /v3/suppressions' filters."""

    model_config = ConfigDict(frozen=True)

    type: SuppressionType | None = None
    email_prefix: str | None = None  # lowercased
    since: UtcDatetime | None = None
    until: UtcDatetime | None = None


MAX_IMPORT_BODY = MAX_CSV_BODY


class SuppressionImportRequest(_Strict):
    """POST /v3/suppressions/import: a CSV file, in the body, added to one list."""

    type: SuppressionType
    filename: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)] = "import.csv"
    csv: Annotated[str, StringConstraints(min_length=1, max_length=MAX_IMPORT_BODY)] | None = Field(
        default=None,
        description="The file's text: a header row naming `email` (required), `reason`, `created_at`, then a row "
        "per address. Up to 5,000,000 characters; leave it out to upload a larger file to `upload_url` instead.",
    )


class SuppressionImportAccepted(Model):
    import_id: str
    status: ImportStatus
    upload_url: str | None = Field(
        default=None,
        description="Without `csv` in the request: PUT the file here (`Content-Type: text/csv`) within the hour, "
        "then poll GET /v3/suppressions/imports/{id}: the first poll that finds the file starts the import.",
    )
    upload_expires_at: datetime | None = None


class SuppressionImportView(Model):
    """The interface's SuppressionImport."""

    id: str
    type: SuppressionType
    status: ImportStatus
    filename: str
    total_rows: int | None = Field(description="Rows after the header; set once the file is read whole.")
    processed_rows: int
    added: int = Field(description="Rows whose address is on the list now, including those already there.")
    skipped: int
    errors: list[RowError] | None = Field(description="The first 500 skipped rows (row 1 is the header).")
    error_message: str | None
    created_at: datetime
    completed_at: datetime | None


def import_view(job: SuppressionImport) -> SuppressionImportView:
    return SuppressionImportView(
        id=job.id,
        type=job.type,
        status=job.status,
        filename=job.filename,
        total_rows=job.total_rows,
        processed_rows=job.processed_rows,
        added=job.added,
        skipped=job.skipped,
        errors=job.errors if job.status in (ImportStatus.DONE, ImportStatus.FAILED) or job.errors else None,
        error_message=job.error_message,
        created_at=job.created_at,
        completed_at=job.completed_at,
    )


class SuppressionExportRequest(_Strict):
    """POST /v3/suppressions/export: one list, or every list when `type` is left out."""

    type: SuppressionType | None = None


class SuppressionExportAccepted(Model):
    export_id: str
    status: ExportStatus = Field(description="pending for a new job; an equivalent running job is returned as-is.")
