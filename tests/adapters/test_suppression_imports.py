"""Suppression imports against moto: the CSV stored in S3 and read back as a stream from checkpoints,
row errors numbered with the header as row 1, exact counts after a worker dies between writing a
chunk and checkpointing it (the message redelivered once the lease ran out), bounded runs that queue
the job on, and files that fail the job."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.suppressions.domain import SuppressionSource, SuppressionType
from postline.suppressions.import_files import S3ImportFiles
from postline.suppressions.import_service import LEASE, ImportBusyError, SuppressionImportService
from postline.suppressions.import_store import DynamoSuppressionImports
from postline.suppressions.imports import ImportStatus, SuppressionImport
from postline.suppressions.models import SuppressionFilters, SuppressionImportRequest
from postline.wiring import audit as audit_root
from postline.wiring import shared, suppressions, usage
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 11, 1, 12, 0, 5, tzinfo=UTC)


class Queue:
    def __init__(self) -> None:
        self.queued: list[str] = []

    def enqueue(self, job: SuppressionImport) -> None:
        self.queued.append(job.id)


class WorkerDied(BaseException):  # not an Exception: the service must not catch it
    """The worker's process ending mid-run (a timeout, a crash): nothing after it runs, no lease given back."""


class DyingJobs(DynamoSuppressionImports):
    """The jobs table, where the worker dies as it is about to store its `die_at`-th checkpoint: the
    chunk's entries are written, its counts are not."""

    def __init__(self, client: Any, table: str, die_at: int) -> None:
        super().__init__(client, table)
        self.saves = 0
        self.die_at = die_at

    def save(self, job: SuppressionImport) -> bool:
        self.saves += 1
        if self.saves == self.die_at:
            raise WorkerDied
        return super().save(job)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def principal() -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, created_at=NOW - timedelta(days=60))
    return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, source_ip="127.0.0.1")


def _service(stack: InProcessStack, clock: FixedClock, queue: Queue, *, jobs: Any = None, **sizes: int) -> Any:
    return SuppressionImportService(
        jobs=jobs or DynamoSuppressionImports(wiring.client("dynamodb"), stack.env["JOBS_TABLE"]),
        files=S3ImportFiles(wiring.client("s3"), stack.env["EXPORTS_BUCKET"]),
        queue=queue,
        store=suppressions.suppressions(),
        window=usage.counter_store(),
        audit=audit_root.audit_store(),
        ids=shared.ids(),
        clock=clock,
        **sizes,
    )


def _csv(rows: int) -> str:
    """`rows` address rows after a header; every 7th is not an address, every 10th repeats the one before."""
    lines = ["Reason,EMAIL,created_at"]
    for n in range(1, rows + 1):
        email = f"user{n - 1 if n % 10 == 0 else n}@example.com"
        lines.append(f"imported {n},{'not-an-address' if n % 7 == 0 else email},")
    return "\r\n".join(lines) + "\r\n"


def _expected(rows: int) -> tuple[int, list[int]]:
    bad = [n + 1 for n in range(1, rows + 1) if n % 7 == 0]  # file rows: the header is row 1
    return rows - len(bad), bad


def test_a_file_with_bad_rows_is_imported_with_numbered_errors(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    queue = Queue()
    service = _service(stack, clock, queue)
    text = (
        "email,reason,created_at\n"
        "Ann@Example.com,complained by phone,2025-01-02T03:04:05Z\n"
        "bad@@example.com,,\n"
        ',"a reason, with a comma",\n'
        "bob@example.com,,yesterday\n"
        "\n"
        '"carl@example.com","two\nlines",\n'
        "ann@example.com,again,\n"
    )
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, csv=text))
    assert accepted.status is ImportStatus.PENDING and queue.queued == [accepted.import_id]
    service.run(principal.account.id, accepted.import_id, receive_count=1)
    view = service.get(principal, accepted.import_id)
    assert (view.status, view.total_rows, view.processed_rows, view.added, view.skipped) == (
        ImportStatus.DONE, 7, 7, 3, 4
    )  # fmt: skip
    assert [(e.row, e.email, e.reason.value) for e in view.errors or []] == [
        (3, "bad@@example.com", "invalid_syntax"),
        (4, "", "missing_email"),
        (5, "bob@example.com", "invalid_created_at"),
        (6, "", "missing_email"),
    ]
    entries, total = suppressions.suppressions().list_page(
        principal.account.id, SuppressionFilters(), page=1, per_page=10
    )
    assert total == 2
    ann = next(e for e in entries if e.email == "ann@example.com")
    assert (ann.reason, ann.source, ann.created_at) == (
        "complained by phone", SuppressionSource.IMPORT, datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    )  # fmt: skip
    assert next(e for e in entries if e.email == "carl@example.com").reason == "two\nlines"
    service.run(principal.account.id, accepted.import_id, receive_count=2)  # a repeated message: nothing
    assert service.get(principal, accepted.import_id) == view


def test_a_worker_dying_between_chunks_resumes_from_its_checkpoint_with_exact_counts(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    rows = 95
    jobs = DyingJobs(wiring.client("dynamodb"), stack.env["JOBS_TABLE"], die_at=4)  # chunk 4: written, not counted
    service = _service(stack, clock, Queue(), jobs=jobs, chunk_rows=10)
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.COMPLAINTS, csv=_csv(rows)))
    with pytest.raises(WorkerDied):
        service.run(principal.account.id, accepted.import_id, receive_count=1)
    midway = service.get(principal, accepted.import_id)
    assert (midway.status, midway.processed_rows) == (ImportStatus.PROCESSING, 30)
    with pytest.raises(ImportBusyError):  # redelivered while the dead attempt's lease runs
        service.run(principal.account.id, accepted.import_id, receive_count=2)
    clock.advance(LEASE.total_seconds() + 1)
    service.run(principal.account.id, accepted.import_id, receive_count=3)
    done = service.get(principal, accepted.import_id)
    added, bad = _expected(rows)
    assert (done.status, done.total_rows, done.processed_rows, done.added, done.skipped) == (
        ImportStatus.DONE, rows, rows, added, len(bad)
    )  # fmt: skip
    assert [e.row for e in done.errors or []] == bad  # each once, in order
    distinct = {f"user{n}@example.com" for n in range(1, rows + 1) if n % 7 and n % 10}
    listed = suppressions.suppressions().present(principal.account.id, SuppressionType.COMPLAINTS, sorted(distinct))
    assert listed == distinct


def test_a_run_reads_a_bounded_number_of_chunks_then_queues_the_job_on(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    queue = Queue()
    service = _service(stack, clock, queue, chunk_rows=10, chunks_per_run=2)
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, csv=_csv(45)))
    runs = 0
    while service.get(principal, accepted.import_id).status is not ImportStatus.DONE:
        service.run(principal.account.id, accepted.import_id, receive_count=1)
        runs += 1
    assert runs == 3 and queue.queued == [accepted.import_id] * 3  # the start, then after runs 1 and 2
    done = service.get(principal, accepted.import_id)
    assert (done.processed_rows, done.added, done.skipped) == (45, _expected(45)[0], len(_expected(45)[1]))


@pytest.mark.parametrize(
    ("text", "message"),
    [("reason,address\nx,a@example.com\n", "`email`"), ("\n", "`email`")],
)
def test_a_file_without_an_email_column_fails_the_job(
    stack: InProcessStack, clock: FixedClock, principal: Principal, text: str, message: str
) -> None:
    service = _service(stack, clock, Queue())
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, csv=text))
    service.run(principal.account.id, accepted.import_id, receive_count=1)
    failed = service.get(principal, accepted.import_id)
    assert failed.status is ImportStatus.FAILED and message in (failed.error_message or "")
    assert failed.completed_at is not None and failed.added == 0


def test_a_presigned_upload_is_queued_by_the_first_poll_that_finds_it_and_fails_after_the_hour(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    queue = Queue()
    service = _service(stack, clock, queue)
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, filename="big.csv"))
    assert accepted.upload_url and accepted.upload_expires_at == NOW + timedelta(hours=1)
    assert queue.queued == []  # nothing to read yet
    service.run(principal.account.id, accepted.import_id, receive_count=1)  # a stray message: nothing
    assert service.get(principal, accepted.import_id).status is ImportStatus.PENDING and queue.queued == []
    wiring.client("s3").put_object(
        Bucket=stack.env["EXPORTS_BUCKET"], Key=f"imports/{principal.account.id}/{accepted.import_id}.csv",
        Body=_csv(25).encode(),
    )  # fmt: skip
    assert service.get(principal, accepted.import_id).status is ImportStatus.PENDING
    assert queue.queued == [accepted.import_id]
    service.get(principal, accepted.import_id)
    assert queue.queued == [accepted.import_id]  # found once
    service.run(principal.account.id, accepted.import_id, receive_count=1)
    done = service.get(principal, accepted.import_id)
    assert (done.status, done.total_rows, done.added) == (ImportStatus.DONE, 25, _expected(25)[0])

    late = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES))
    clock.advance(3_600)
    failed = service.get(principal, late.import_id)
    assert failed.status is ImportStatus.FAILED and "within the hour" in (failed.error_message or "")


def test_a_cell_over_the_csv_modules_limit_is_a_row_error_and_the_import_goes_on(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    service = _service(stack, clock, Queue(), chunk_rows=10)
    text = (
        _csv(30)
        + "x" * 200_000 + "@example.com,too long a cell\r\n"  # row 32: one line
        + 'a reason,"' + "y" * 200_000 + '\r\n"",still the quoted cell",\r\n'  # row 33: a quoted cell on two lines
        + "kept,after@example.com,\r\n"  # row 34
    )  # fmt: skip
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, csv=text))
    service.run(principal.account.id, accepted.import_id, receive_count=1)
    done = service.get(principal, accepted.import_id)
    added, bad = _expected(30)
    assert (done.status, done.error_message, done.total_rows, done.added, done.skipped) == (
        ImportStatus.DONE, None, 33, added + 1, len(bad) + 2
    )  # fmt: skip
    assert [(e.row, e.email, e.reason.value) for e in done.errors or []][-2:] == [
        (32, "", "cell_too_long"),
        (33, "", "cell_too_long"),
    ]
    assert suppressions.suppressions().present(principal.account.id, SuppressionType.BOUNCES, ["after@example.com"])


def test_a_file_with_cr_line_ends_is_read_row_by_row(
    stack: InProcessStack, clock: FixedClock, principal: Principal
) -> None:
    service = _service(stack, clock, Queue(), chunk_rows=10)
    text = _csv(25).replace("\r\n", "\r") + '"two\rlines","cr@example.com",\r'  # classic Mac OS line ends
    accepted = service.start(principal, SuppressionImportRequest(type=SuppressionType.BOUNCES, csv=text))
    service.run(principal.account.id, accepted.import_id, receive_count=1)
    done = service.get(principal, accepted.import_id)
    added, bad = _expected(25)
    assert (done.status, done.error_message, done.total_rows, done.added) == (ImportStatus.DONE, None, 26, added + 1)
    assert [e.row for e in done.errors or []] == bad
    entries, _ = suppressions.suppressions().list_page(principal.account.id, SuppressionFilters(), page=1, per_page=100)
    assert next(e for e in entries if e.email == "cr@example.com").reason == "two\rlines"
