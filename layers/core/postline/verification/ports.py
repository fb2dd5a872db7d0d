"""What address verification needs from DNS, SMTP, RDAP and its stores.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.events.domain import Event
    from postline.shared.csv_files import CountedLines
    from postline.shared.mx import MailRoute
    from postline.suppressions.domain import Suppression, SuppressionType
    from postline.verification.activity import ActivityChunk, Recipient, Seen
    from postline.verification.bulk import BulkJob, BulkStatus, Recorded
    from postline.verification.domain import MailboxProbe, Registration
    from postline.verification.models import Activity, ValidationResult
    from postline.verification.proofs import BulkResultFile, ProofEntry, ResultFile
    from postline.webhook_delivery.domain import Delivery


class MailRoutes(Protocol):
    def route(self, domain: str) -> MailRoute:
        """Where the domain's mail goes, as DNS says (a DNS failure is a route with lookup_error)."""
        ...


class MailboxProber(Protocol):
    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        """RCPT TO the address at the domain's best MX that answers (EHLO, MAIL FROM, RCPT, QUIT; no
        DATA); unless `catch_all` is already known, a random address at the domain too."""
        ...


class Registrations(Protocol):
    def registered_at(self, domain: str) -> Registration:
        """When the registry says the domain was registered (RDAP), or why it does not say."""
        ...


class DomainFacts(Protocol):
    """Per-domain answers worth keeping across calls and functions (TTL-expired)."""

    def catch_all(self, domain: str, now: datetime) -> bool | None: ...

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None: ...

    def registration(self, domain: str, now: datetime) -> Registration | None:
        """The registry's answer kept from an earlier check (a date, or that it could not be
        reached), None when nothing unexpired is kept."""
        ...

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        """Keeps a date for thirty days and an unreachable registry for an hour (anything else is
        not kept: the registry is asked again)."""
        ...


class ComplaintLists(Protocol):
    """The account's suppression lists as verification reads them (suppressions/store.py)."""

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        """Which of these lower-case addresses are on the account's `kind` list: batched reads
        (BatchGetItem, 100 keys a call), never one read per address."""
        ...


class Credits(Protocol):
    def count_validation(self, account_id: str, window_start: int, *, expires_at: int, route: str = "validate") -> int:
        """Atomically add one call to the account's window of a verification route; the new count."""
        ...

    def consume_verification(
        self, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
    ) -> bool:
        """Count `count` verifications against the month (`verify`, or `test_verify` for test keys)
        unless that passes `limit`; False, counting nothing, when it would."""
        ...

    def used_verifications(self, account_id: str, *, month: str) -> int:
        """Live credits the month has used."""
        ...

    def release_verification(self, account_id: str, *, month: str, test: bool) -> None:
        """Give back one counted verification whose checks then failed to run."""
        ...


class ActivityReader(Protocol):
    def activity(self, account_id: str, address: str) -> Activity: ...

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        """Several lower-case addresses' at once (a bulk chunk's); those never seen are left out."""
        ...


class ResultUpload(Protocol):
    def write(self, data: bytes) -> None: ...

    def complete(self) -> None:
        """Makes the file appear, whole."""
        ...

    def abort(self) -> None: ...


class BulkJobs(Protocol):
    """Bulk verification jobs, their chunks and their results (verification/bulk_store.py)."""

    def create(self, job: BulkJob, chunks: list[list[tuple[int, str]]]) -> None:
        """The chunks first, then the job: a job that exists has all its chunks."""
        ...

    def write_chunks(self, job: BulkJob, chunks: Iterable[list[tuple[int, str]]]) -> int:
        """A CSV job's chunks as they are read; how many. Written again from the same file, each
        chunk overwrites itself with the same pairs."""
        ...

    def store_results(self, job: BulkJob, results: list[tuple[int, ValidationResult]]) -> None:
        """A test-mode job's results, all at once (nothing is charged)."""
        ...

    def get(self, account_id: str, job_id: str) -> BulkJob | None: ...

    def chunk(self, job: BulkJob, n: int) -> list[tuple[int, str]]: ...

    def recorded(self, job: BulkJob, indexes: list[int]) -> set[int]:
        """Which of these indexes have their result already."""
        ...

    def record_many(
        self, job: BulkJob, results: list[tuple[int, ValidationResult]], *, month: str, limit: int | None
    ) -> Recorded | None:
        """Several results recorded as one would be, in one transaction (each result only if it is
        not there yet; for a live job as many credits, only if the month has them all). NEW: all
        recorded; STOPPED: the job is no longer running; None: nothing recorded (one was recorded
        already, or the month has fewer credits left than results): record them one at a time."""
        ...

    def record(self, job: BulkJob, index: int, result: ValidationResult, *, month: str, limit: int | None) -> Recorded:
        """One result, with the job's counts and (live) its credit, in one transaction."""
        ...

    def move(self, job: BulkJob, from_statuses: set[BulkStatus], to: BulkStatus, **updates: Any) -> BulkJob | None:
        """One of `from_statuses` -> `to`, with `updates` set in the same write; None when the job
        is in none of them."""
        ...

    def pass_resume_check(self, job: BulkJob, token: str, to: BulkStatus, new_token: str | None) -> BulkJob | None:
        """A paused job's credit check, only if `token` is still the job's: -> `to` (paused: the
        next check's token; processing: resumed). Of two deliveries of one check, one passes."""
        ...

    def finish_if_done(self, job: BulkJob) -> BulkJob | None:
        """processing -> catch_all_processing once every distinct address has its result."""
        ...

    def complete(self, job: BulkJob, now: datetime, result_file: ResultFile) -> BulkJob | None:
        """packaging -> completed, with the file and its proof; None when the job moved meanwhile."""
        ...

    def all_results(self, job: BulkJob) -> Iterator[ValidationResult]:
        """Every result in the list's order, a page at a time: memory stays flat."""
        ...

    def indexed_results(self, job: BulkJob) -> Iterator[tuple[int, ValidationResult]]: ...

    def rewrite_result(self, job: BulkJob, index: int, result: ValidationResult) -> bool:
        """A recorded result replaced (the catch-all scoring); False when it is gone."""
        ...

    def results(self, job: BulkJob, *, page: int, limit: int) -> list[ValidationResult]: ...

    def purge(self, job: BulkJob) -> int:
        """Removes a job's chunks and results (the job item stays, `deleted`); how many."""
        ...


class ResultFiles(Protocol):
    """A bulk job's one result file (verification/proof_store.py)."""

    def upload(self, account_id: str, job_id: str) -> ResultUpload:
        """Starts writing the job's file, discarding what an earlier attempt left unfinished."""
        ...

    def download_url(self, account_id: str, job_id: str, filename: str, expires_in: int) -> str: ...

    def remove(self, account_id: str, job_id: str) -> None: ...


class ProofRegistry(Protocol):
    def get(self, fingerprint: str) -> ProofEntry | None: ...

    def register(self, entry: ProofEntry) -> ProofEntry:
        """Stores the entry, or returns the one its fingerprint has already."""
        ...


class ProofSigner(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the active platform key."""
        ...

    def public_key(self, kid: str) -> bytes | None:
        """The raw public half of a stored key."""
        ...


class CsvFiles(Protocol):
    """shared/csv_files.py's S3CsvFiles: imports/<account>/<job id>.csv."""

    def store(self, account_id: str, file_id: str, data: bytes) -> None: ...

    def upload_url(self, account_id: str, file_id: str, expires_in: int) -> str: ...

    def size(self, account_id: str, file_id: str) -> int | None: ...

    def lines(self, account_id: str, file_id: str, offset: int = 0, size: int | None = None) -> CountedLines: ...

    def remove(self, account_id: str, file_id: str) -> None: ...


class BulkQueue(Protocol):
    def enqueue(self, job: BulkJob) -> None: ...

    def enqueue_completion(self, job: BulkJob) -> None:
        """One message with no chunk: the worker carries out the completed job's effects."""
        ...

    def enqueue_purge(self, job: BulkJob) -> None:
        """One message: the worker removes a deleted job's chunks and results."""
        ...

    def enqueue_resume_check(self, job: BulkJob, token: str) -> None:
        """One message, delivered RESUME_CHECK_SECONDS later: is there a credit again?"""
        ...

    def enqueue_read(self, job: BulkJob) -> None:
        """One message: the worker reads a CSV job's file into chunks and queues them."""
        ...


class Completion(Protocol):
    def run(self, job: BulkJob) -> None: ...


class Proofs(Protocol):
    def package(self, job: BulkJob, results: Iterable[ValidationResult]) -> ResultFile: ...

    def file(self, job: BulkJob) -> BulkResultFile: ...

    def remove(self, job: BulkJob) -> None: ...


class PositionedEvents(Protocol):
    def positioned_events(self, records: list[dict[str, Any]]) -> list[tuple[str, str, Event]]: ...


class ActivityCounters(Protocol):
    def watermarks(self, partitions: list[str]) -> dict[str, str]: ...

    def seen(self, recipients: list[Recipient]) -> dict[Recipient, Seen]: ...

    def apply(self, chunk: ActivityChunk, seen: dict[Recipient, Seen]) -> int:
        """Each recipient's events its item does not hold yet, added; `seen` updated to what the
        items hold after. Returns how many events it added."""
        ...


class JobResults(Protocol):
    def results(self, job: BulkJob, *, page: int, limit: int) -> list[ValidationResult]: ...


class SuppressionWrites(Protocol):
    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]: ...

    def put_many(self, entries: list[Suppression]) -> None: ...


class Deliverer(Protocol):
    def deliver(self, delivery: Delivery) -> None: ...
