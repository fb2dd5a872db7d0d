"""Bulk verification jobs (POST /v3/validate/bulk): their statuses, stored job, and API shapes.

A job holds the distinct addresses of its list (duplicates are answered once; `total_count`
counts distinct addresses), split into chunks of CHUNK_SIZE, each a queue message. The list is a
JSON array (`emails`), a CSV file in the body (`csv`), or, with neither, a CSV file PUT to the
presigned `upload_url` the POST answers (bulk_csv.py reads the files). Statuses:

    uploading -> pending   the first GET of the job that finds the uploaded file (or the worker
                           reading the file, whichever comes first)
    uploading -> failed    no file within UPLOAD_WINDOW of the POST (can_retry)
    pending -> queued      the worker read the file (stored in S3) into chunks; a `csv` body
                           starts here
    pending -> failed      not a file it can read: no `email` column, not CSV, too many rows, or
                           no address in it (can_retry)
    queued -> processing -> catch_all_processing -> packaging -> completed
    catch_all_processing   every address has its result; the catch-all ones are scored with the
                           account's history of each address (catch_all.py), then `packaging`
    processing -> paused   the account's verification credits ran out mid-job
    paused -> processing   a credit check (every RESUME_CHECK_SECONDS, or `postline verify
                           resume` at once) finds credits again: a higher plan, or a new month;
                           every chunk is queued again
    queued -> failed       the chunks could not be queued (can_retry: true: start it again)
    any -> deleted         DELETE on the job (its chunks, results and file are removed by the worker)
    completed, paused, failed -> expired   RESULTS_KEPT after the job was created (shown on read,
                           never stored)
`packaging`: every result is recorded and the worker writes the result file, signs it and records
its proof (proof_service.py); `completed` once it has. A test-mode job is completed in the POST
itself and has no file. A completed job's `suppress` and `webhook_url` are carried out by the
worker (bulk_completion.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Self

from pydantic import ConfigDict, Field, HttpUrl, StringConstraints, model_validator

from postline.shared.base import Model
from postline.shared.csv_files import MAX_CSV_BODY, MAX_ERRORS, RowError
from postline.shared.verification_results import VerificationResult
from postline.verification.models import ValidationResult
from postline.verification.proofs import ResultFile

RESULTS_KEPT = timedelta(days=30)  # a job's results and result file, from its creation; then `expired`
JOB_KEPT = timedelta(days=60)  # the job item itself: GET answers `expired` between the two
RESUME_CHECK_SECONDS = 900  # a paused job looks for new credits this often (SQS's longest delay)
CHUNK_SIZE = 100  # addresses a queue message carries: a worker finishes one well inside its timeout
MAX_ADDRESSES = 10_000  # per JSON request, and per test-mode job (larger lists: a CSV file)
JOBS_PER_MINUTE = 10  # the interface's limit of POST /v3/validate/bulk, per account
MAX_PAGE = 1_000


class BulkStatus(StrEnum):
    PENDING = "pending"
    UPLOADING = "uploading"
    QUEUED = "queued"
    PROCESSING = "processing"
    CATCH_ALL_PROCESSING = "catch_all_processing"
    PACKAGING = "packaging"
    COMPLETED = "completed"
    FAILED = "failed"
    EXPIRED = "expired"
    DELETED = "deleted"
    PAUSED = "paused"


class Recorded(StrEnum):
    """What recording a chunk's result(s) did (verification/ports.py BulkJobs.record)."""

    NEW = "new"
    ALREADY = "already"  # recorded by an earlier run of the chunk: nothing changed
    NO_CREDITS = "no_credits"  # the month's credits are spent: nothing changed
    STOPPED = "stopped"  # the job is no longer running (deleted, paused, failed): nothing changed


_EXPIRING = frozenset({BulkStatus.COMPLETED, BulkStatus.PAUSED, BulkStatus.FAILED})


def empty_summary() -> dict[str, int]:
    return {result.value: 0 for result in VerificationResult}


def distinct(addresses: list[str]) -> list[str]:
    """Each address once, in first-seen order; the same address in another case is the same one."""
    seen: dict[str, str] = {}
    for address in addresses:
        seen.setdefault(address.strip().lower(), address.strip())
    return list(seen.values())


def chunked_by_domain(addresses: list[str]) -> list[list[tuple[int, str]]]:
    """The (index, address) pairs in chunks of CHUNK_SIZE, grouped by domain (each address keeps
    its index: results stay in the list's order). A domain's addresses share as few chunks, and
    so as few worker containers, as they can: each container asks DNS about a domain once (its
    cache), so a list of a few domains is not asked about once per chunk."""
    pairs = sorted(enumerate(addresses), key=lambda pair: (pair[1].rpartition("@")[2].lower(), pair[0]))
    return [pairs[start : start + CHUNK_SIZE] for start in range(0, len(pairs), CHUNK_SIZE)]


class BulkJob(Model):
    """The stored job (the jobs table, kind VERIFY)."""

    id: str
    account_id: str
    status: BulkStatus
    test: bool
    filename: str | None = None
    total_count: int
    processed_count: int = 0
    skipped: int = 0  # a CSV file's rows without an address (bulk_csv.py)
    errors: list[RowError] = Field(default_factory=list)  # the first MAX_ERRORS of them
    upload_expires_at: datetime | None = None  # an `uploading` job's presigned URL's end
    summary: dict[str, int] = Field(default_factory=empty_summary)
    chunks: int
    webhook_url: str | None = None
    suppress: bool = False
    effects_done: bool = False  # suppress and webhook_url carried out (bulk_completion.py)
    result_file: ResultFile | None = None  # a completed live job's signed CSV (proof_service.py)
    resume_token: str | None = None  # a paused job's one live credit check (bulk_service.py)
    error_message: str | None = None
    created_at: datetime
    completed_at: datetime | None = None
    deleted_at: datetime | None = None

    def results_expire_at(self) -> datetime:
        return self.created_at + RESULTS_KEPT

    def expired(self, now: datetime) -> bool:
        """A completed, paused or failed job whose results' time is up: shown as `expired`, never
        stored (the results and the file are removed by TTL and the bucket's lifecycle rule; a
        paused job's credit checks stop)."""
        return self.status in _EXPIRING and now >= self.results_expire_at()


class BulkCreate(Model):
    model_config = ConfigDict(extra="forbid")

    emails: list[str] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_ADDRESSES,
        description="The addresses, as your list holds them. Or send `csv`, or neither to upload a file.",
    )
    csv: Annotated[str, StringConstraints(min_length=1, max_length=MAX_CSV_BODY)] | None = Field(
        default=None,
        description="A CSV file's text: a header row naming an `email` column (other columns are ignored), "
        "then a row per address. Up to 5,000,000 characters; send neither `csv` nor `emails` to PUT a larger "
        "file to the `upload_url` the reply holds (live keys).",
    )
    filename: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)] | None = Field(
        default=None, description="The file's name, shown on the job (a CSV job's default: list.csv)."
    )
    webhook_url: HttpUrl | None = Field(
        default=None,
        description="On completion the job is POSTed here, signed with the webhooks' Ed25519 header.",
    )
    suppress: bool = Field(
        default=False,
        description="Add the undeliverable results to the bounces list (source verification). Live keys only.",
    )

    @model_validator(mode="after")
    def _one_list(self) -> Self:
        if self.emails is not None and self.csv is not None:
            raise ValueError("Send the list as `emails` or as `csv`, not both.")
        if self.emails is not None and self.filename is not None:
            raise ValueError("`filename` names a CSV file: send it with `csv` or an upload.")
        return self


class BulkVerificationJobAccepted(Model):
    job_id: str
    status: BulkStatus
    total_count: int
    message: str
    upload_url: str | None = Field(
        default=None,
        description="With neither `emails` nor `csv`: PUT the CSV file here (`Content-Type: text/csv`) within "
        "the hour, then poll GET /v3/validate/bulk/{id}: the first poll that finds the file queues it.",
    )
    upload_expires_at: datetime | None = None


class BulkSummary(Model):
    valid: int = 0
    invalid: int = 0
    catch_all: int = 0
    unknown: int = 0
    do_not_mail: int = 0
    spamtrap: int = 0
    abuse: int = 0


class BulkVerificationJob(Model):
    job_id: str
    status: BulkStatus
    filename: str | None
    total_count: int
    processed_count: int
    summary: BulkSummary
    created_at: datetime
    completed_at: datetime | None
    webhook_url: str | None
    error_message: str | None
    can_retry: bool
    skipped: int = Field(description="A CSV file's rows without an address: not checked, not charged.")
    errors: list[RowError] = Field(description=f"The first {MAX_ERRORS} skipped rows (row 1 is the header).")

    @classmethod
    def of(cls, job: BulkJob, now: datetime | None = None) -> BulkVerificationJob:
        return cls(
            job_id=job.id,
            status=BulkStatus.EXPIRED if now is not None and job.expired(now) else job.status,
            filename=job.filename,
            total_count=job.total_count,
            processed_count=job.processed_count,
            summary=BulkSummary(**job.summary),
            created_at=job.created_at,
            completed_at=job.completed_at,
            webhook_url=job.webhook_url,
            error_message=job.error_message,
            can_retry=job.status is BulkStatus.FAILED,
            skipped=job.skipped,
            errors=job.errors,
        )


class BulkResultsPage(Model):
    items: list[ValidationResult]
    total: int
    page: int
    limit: int


class ChunkMessage(Model):
    account_id: str
    job_id: str
    chunk: int  # -1: no addresses, only the completion's effects (a test-mode job's webhook)
    purge: bool = False  # a deleted job: remove its chunks and results
    resume_token: str | None = None  # a paused job's credit check, RESUME_CHECK_SECONDS after the last
    read_file: bool = False  # a CSV job's file: read it into chunks, then queue them
