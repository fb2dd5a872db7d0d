"""Suppression imports: a CSV of addresses added to one list by a queue worker, in bounded chunks.

The file has a header row naming its columns: `email` (required), `reason` and `created_at` (ISO 8601)
optional, any order, any case; other columns are ignored. Rows are numbered as a spreadsheet shows
them: the header is row 1, the first address row 2. A row whose address is not one (invalid_syntax),
is empty (missing_email), whose created_at is not a time (invalid_created_at) or with a cell too
long for the csv module to read (cell_too_long; shared/csv_files.py csv_rows) is skipped, and the
first MAX_ERRORS of those are reported. Lines end in CRLF, LF or a lone CR. Every other row counts
as added: adds are idempotent, so an address already on the list, or repeated in the file, counts
too. Cells are read with read_cell, so the quote an export put before a formula's start goes again
(an exported list imports back as it was).

A job's progress is a checkpoint: rows and bytes read so far with the counts they gave, stored only by
the attempt holding the job's lease, after its chunk's entries are written. A crash between the write
and the checkpoint re-reads that chunk from the checkpoint's byte, rewrites nothing (the entries are
there) and counts it once: the counts are those of the checkpoint plus the chunk's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from postline.shared.addresses import normalize_email
from postline.shared.base import Model
from postline.shared.csv_files import MAX_ERRORS, MAX_SHOWN, RowError, RowErrorReason, column_positions, read_cell
from postline.shared.times import utc
from postline.suppressions.domain import SuppressionType

CHUNK_ROWS = 1_000  # rows read, checked and written between two checkpoints
COLUMNS = ("email", "reason", "created_at")
FILE_LIFETIME = timedelta(days=7)  # the bucket's lifecycle rule deletes imports/ objects after as long


class ImportStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class SuppressionImport(Model):
    """The stored job; `offset`, `rows_read` and `columns` are the checkpoint the next chunk starts from."""

    id: str
    account_id: str
    type: SuppressionType
    status: ImportStatus
    filename: str
    size_bytes: int
    total_rows: int | None = None
    processed_rows: int = 0
    added: int = 0
    skipped: int = 0
    errors: list[RowError] = []
    error_message: str | None = None
    created_at: datetime
    completed_at: datetime | None = None
    awaiting_upload: bool = False  # created for a presigned upload that has not been seen yet
    upload_expires_at: datetime | None = None
    offset: int = 0  # bytes of the file read up to the checkpoint
    columns: dict[str, int] | None = None  # column name -> position, once the header is read
    attempt: int = 0
    lease_until: int | None = None  # epoch seconds, while an attempt holds the job


def header_columns(header: list[str]) -> dict[str, int]:
    """The known columns' positions; ValueError without an email column."""
    return column_positions(header, COLUMNS)


@dataclass(frozen=True)
class ImportRow:
    email: str  # normalized
    reason: str | None
    created_at: datetime | None


def parse_row(columns: dict[str, int], row: list[str], number: int) -> ImportRow | RowError:
    def cell(name: str) -> str:
        position = columns.get(name)
        return read_cell(row[position].strip()) if position is not None and position < len(row) else ""

    submitted = cell("email")
    if not submitted:
        return RowError(row=number, email=submitted[:MAX_SHOWN], reason=RowErrorReason.MISSING_EMAIL)
    try:
        email = normalize_email(submitted)
    except ValueError:
        return RowError(row=number, email=submitted[:MAX_SHOWN], reason=RowErrorReason.INVALID_SYNTAX)
    created_at = None
    if stamp := cell("created_at"):
        try:
            created_at = utc(datetime.fromisoformat(stamp))
        except (ValueError, OverflowError):
            return RowError(row=number, email=submitted[:MAX_SHOWN], reason=RowErrorReason.INVALID_CREATED_AT)
    return ImportRow(email=email, reason=cell("reason")[:1_000] or None, created_at=created_at)


@dataclass
class Chunk:
    """One chunk's rows, sorted: what to write and what it adds to the job's counts."""

    rows: list[ImportRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)

    @property
    def read(self) -> int:
        return len(self.rows) + len(self.errors)

    def distinct(self) -> list[ImportRow]:
        """The rows to write: the first of each address (a batch write takes a key once)."""
        seen: dict[str, ImportRow] = {}
        for row in self.rows:
            seen.setdefault(row.email, row)
        return list(seen.values())


def checkpointed(job: SuppressionImport, chunk: Chunk, offset: int, lease_until: int) -> SuppressionImport:
    """The job after `chunk`: its counts added, its first errors kept, the file read up to `offset`."""
    room = MAX_ERRORS - len(job.errors)
    return job.model_copy(
        update={
            "processed_rows": job.processed_rows + chunk.read,
            "added": job.added + len(chunk.rows),
            "skipped": job.skipped + len(chunk.errors),
            "errors": job.errors + chunk.errors[: max(room, 0)],
            "offset": offset,
            "lease_until": lease_until,
        }
    )
