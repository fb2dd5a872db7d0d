"""Event exports in the domain and the service, over in-memory fakes of the jobs table, S3 and SQS."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from postline.accounts.domain import Account, Plan
from postline.events.domain import Event, EventType
from postline.events.query import QueryPlan
from postline.exports.domain import CSV_HEADER, RUNNING, ExportJob, ExportStatus, csv_row, too_many_rows_message
from postline.exports.models import EventExportRequest
from postline.exports.service import DOWNLOAD_URL_SECONDS, GAVE_UP, MAX_ATTEMPTS, ExportBusyError, ExportService
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import NotFound, ValidationFailed
from tests.fakes.keys import InMemoryStore
from tests.fakes.shared import FixedClock, SequentialIds

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
CREATED = NOW - timedelta(days=100)


def _request(**fields: Any) -> EventExportRequest:
    return EventExportRequest(**{"since": NOW - timedelta(days=2), "until": NOW - timedelta(hours=1), **fields})


# -- the request -------------------------------------------------------------------------------------


def test_the_window_must_be_within_retention_and_not_in_the_future() -> None:
    with pytest.raises(ValidationFailed, match="until"):
        _request(until=NOW + timedelta(seconds=1)).filters(now=NOW, retention_days=30, account_created=CREATED)
    with pytest.raises(ValidationFailed, match="30-day retention"):
        _request(since=NOW - timedelta(days=31)).filters(now=NOW, retention_days=30, account_created=CREATED)
    filters = _request().filters(now=NOW, retention_days=30, account_created=CREATED)
    assert (filters.since, filters.until) == (NOW - timedelta(days=2), NOW - timedelta(hours=1))


def test_since_is_raised_to_the_accounts_creation() -> None:
    created = NOW - timedelta(hours=5)
    filters = _request(tag="x").filters(now=NOW, retention_days=30, account_created=created)
    assert (filters.since, filters.tag) == (created, "x")


@pytest.mark.parametrize(
    "fields",
    [
        {"since": None},
        {"until": None},
        {"since": NOW, "until": NOW - timedelta(seconds=1)},
        {"format": "xlsx"},
        {"metadata": {f"k{n}": "v" for n in range(4)}},
        {"metadata": {"bad key": "v"}},
        {"event": "duplicate"},
        {"colour": "blue"},
    ],
)
def test_an_invalid_request_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        _request(**fields)


def test_equivalent_requests_share_a_fingerprint() -> None:
    first = _request(recipient="Ann@Example.com").fingerprint("acct_1")
    assert _request(recipient="ann@example.com", format="csv").fingerprint("acct_1") == first
    assert _request(recipient="ann@example.com", tag="t").fingerprint("acct_1") != first


def _event(n: int, **fields: Any) -> Event:
    at = NOW - timedelta(hours=2, minutes=n)
    values: dict[str, Any] = {
        "id": f"evt_{n:04d}",
        "account_id": "acct_1",
        "type": EventType.DELIVERED,
        "message_id": f"msg_{n}",
        "recipient": f"r{n}@example.com",
        "timestamp": at,
        "tags": ["a", "b,c"],
        "metadata": {"order": str(n)},
        "data": {"smtp_response": "250 OK", "test": True},
        "created_at": at,
        "expires_at": 0,
    }
    return Event(**{**values, **fields})


def test_a_row_is_the_event_as_the_api_shows_it() -> None:
    row = csv_row(_event(7))
    assert row[:5] == ("evt_0007", "delivered", "msg_7", "r7@example.com", "2026-03-14T09:53:00Z")
    assert json.loads(row[5]) == ["a", "b,c"]
    assert json.loads(row[6]) == {"order": "7", "smtp_response": "250 OK", "test": True}
    assert csv_row(_event(1, recipient=None, metadata=None, data={}, tags=[]))[3:] == (
        "",
        "2026-03-14T09:59:00Z",
        "[]",
        "",
    )


# -- fakes -------------------------------------------------------------------------------------------


class FakeJobs:
    """The jobs table's rules: one running job per fingerprint, leases, attempts."""

    def __init__(self) -> None:
        self.jobs: dict[str, ExportJob] = {}
        self.leases: dict[str, datetime] = {}
        self.fingerprints: dict[str, str] = {}

    def create_or_find(self, job: ExportJob, now: datetime) -> ExportJob:
        running_id = self.fingerprints.get(job.fingerprint)
        if running_id is not None and self.jobs[running_id].status in RUNNING:
            return self.jobs[running_id]
        self.fingerprints[job.fingerprint] = job.id
        self.jobs[job.id] = job
        return job

    def get(self, account_id: str, export_id: str) -> ExportJob | None:
        job = self.jobs.get(export_id)
        return job if job is not None and job.account_id == account_id else None

    def claim(self, job: ExportJob, now: datetime, lease: timedelta) -> ExportJob | None:
        current = self.jobs[job.id]
        live = current.status is ExportStatus.PROCESSING and self.leases.get(job.id, now) > now
        if current.status not in RUNNING or live:
            return None
        claimed = current.model_copy(update={"status": ExportStatus.PROCESSING, "attempt": current.attempt + 1})
        self.jobs[job.id], self.leases[job.id] = claimed, now + lease
        return claimed

    def release(self, job: ExportJob) -> None:
        if self.jobs[job.id].attempt == job.attempt:
            self.leases[job.id] = datetime.min.replace(tzinfo=UTC)

    def finish(self, job: ExportJob) -> bool:
        current = self.jobs[job.id]
        if current.status is not ExportStatus.PROCESSING or current.attempt != job.attempt:
            return False
        self.jobs[job.id] = job
        self.fingerprints.pop(job.fingerprint, None)
        return True


class FakeUpload:
    def __init__(self, files: FakeFiles, job: ExportJob) -> None:
        self._files, self._job, self.data, self.writes = files, job, bytearray(), 0

    def write(self, data: bytes) -> None:
        self.data += data
        self.writes += 1

    def complete(self) -> None:
        self._files.objects[self._job.id] = bytes(self.data)

    def abort(self) -> None:
        self._files.aborted += 1


class FakeFiles:
    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.aborted = 0
        self.uploads: list[FakeUpload] = []

    def upload(self, job: ExportJob) -> FakeUpload:
        self.uploads.append(FakeUpload(self, job))
        return self.uploads[-1]

    def download_url(self, job: ExportJob, expires_in: int) -> str:
        return f"https://s3.test/{job.id}?expires_in={expires_in}"


class FakeQueue:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def enqueue(self, job: ExportJob) -> None:
        self.sent.append(job.id)


class FakeStream:
    """Events newest first; `fail_after` rows raises, once, as a broken connection would."""

    def __init__(self, events: list[Event], fail_after: int | None = None) -> None:
        self.events = sorted(events, key=lambda e: (e.timestamp, e.id), reverse=True)
        self.fail_after = fail_after
        self.plans: list[QueryPlan] = []

    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        self.plans.append(plan)
        for index, event in enumerate(self.events):
            if index == self.fail_after:
                self.fail_after = None
                raise ConnectionError("the table went away")
            yield event


class Setup:
    def __init__(self, events: list[Event], *, max_rows: int = 1_000_000, fail_after: int | None = None) -> None:
        self.clock = FixedClock(NOW)
        self.jobs, self.files, self.queue = FakeJobs(), FakeFiles(), FakeQueue()
        self.stream, self.audit = FakeStream(events, fail_after), InMemoryStore()
        self.service = ExportService(
            jobs=self.jobs,
            queue=self.queue,
            files=self.files,
            events=self.stream,
            audit=self.audit,
            ids=SequentialIds(),
            clock=self.clock,
            max_rows=max_rows,
        )
        account = Account(id="acct_1", plan=Plan.FREE, created_at=CREATED)
        self.principal = Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE)

    def rows(self, export_id: str) -> list[list[str]]:
        return list(csv.reader(io.StringIO(self.files.objects[export_id].decode())))


# -- starting and reading ------------------------------------------------------------------------------


def test_a_new_export_is_pending_queued_and_audited() -> None:
    setup = Setup([])
    accepted = setup.service.start(setup.principal, _request(event="delivered"))
    assert accepted.status is ExportStatus.PENDING
    assert setup.queue.sent == [accepted.export_id]
    (entry,) = setup.audit.audit_entries()
    assert (entry.action, entry.target, entry.account_id) == ("events.exported", accepted.export_id, "acct_1")
    view = setup.service.get(setup.principal, accepted.export_id)
    assert (view.status, view.download_url, view.row_count, view.completed_at) == ("pending", None, None, None)


def test_an_equivalent_running_export_is_returned_as_is() -> None:
    setup = Setup([_event(1)])
    first = setup.service.start(setup.principal, _request(tag="a"))
    assert setup.service.start(setup.principal, _request(tag="a")) == first
    assert setup.service.start(setup.principal, _request(tag="b")).export_id != first.export_id
    setup.jobs.claim(setup.jobs.jobs[first.export_id], NOW, timedelta(minutes=16))
    again = setup.service.start(setup.principal, _request(tag="a"))
    assert (again.export_id, again.status) == (first.export_id, ExportStatus.PROCESSING)
    setup.clock.advance(60 * 17)  # its lease ran out: run it
    setup.service.run("acct_1", first.export_id, receive_count=1)
    assert setup.service.start(setup.principal, _request(tag="a")).export_id != first.export_id  # it ended


def test_another_accounts_export_is_not_found() -> None:
    setup = Setup([])
    accepted = setup.service.start(setup.principal, _request())
    stranger = Principal(account=Account(id="acct_2", created_at=CREATED), scope=Scope.READ_ONLY, env=Environment.LIVE)
    with pytest.raises(NotFound):
        setup.service.get(stranger, accepted.export_id)


# -- the worker --------------------------------------------------------------------------------------


def test_the_worker_writes_the_csv_newest_first_and_completes() -> None:
    events = [_event(n) for n in range(5)]
    setup = Setup(events)
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=1)
    rows = setup.rows(export_id)
    assert rows[0] == list(CSV_HEADER)
    assert [row[0] for row in rows[1:]] == [f"evt_{n:04d}" for n in range(5)]  # evt_0000 is the newest
    view = setup.service.get(setup.principal, export_id)
    assert (view.status, view.row_count, view.completed_at) == ("completed", 5, NOW)
    assert view.expires_at == NOW + timedelta(days=7)
    assert view.download_url == f"https://s3.test/{export_id}?expires_in={DOWNLOAD_URL_SECONDS}"
    (plan,) = setup.stream.plans
    assert (plan.window.since, plan.window.until) == (NOW - timedelta(days=2), NOW - timedelta(hours=1))


def test_the_csv_goes_to_the_upload_in_pieces() -> None:
    setup = Setup([_event(n, metadata={"pad": "x" * 190}) for n in range(2000)])
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=1)
    (upload,) = setup.files.uploads
    assert upload.writes > 5  # about 64 KiB at a time, not one string of everything
    assert len(setup.rows(export_id)) == 2001


def test_a_download_url_never_outlives_the_file_and_an_old_export_reads_expired() -> None:
    setup = Setup([_event(1)])
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=1)
    setup.clock.advance(7 * 86400 - 120)
    assert setup.service.get(setup.principal, export_id).download_url == f"https://s3.test/{export_id}?expires_in=120"
    setup.clock.advance(120)
    view = setup.service.get(setup.principal, export_id)
    assert (view.status, view.download_url, view.row_count) == ("expired", None, 1)


def test_more_rows_than_the_cap_fails_without_a_file() -> None:
    setup = Setup([_event(n) for n in range(6)], max_rows=5)
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=1)
    view = setup.service.get(setup.principal, export_id)
    assert (view.status, view.error_message, view.download_url) == ("failed", too_many_rows_message(5), None)
    assert view.error_message is not None and "5 rows" in view.error_message
    assert setup.files.objects == {} and setup.files.aborted == 1


def test_exactly_the_cap_completes() -> None:
    setup = Setup([_event(n) for n in range(5)], max_rows=5)
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=1)
    assert setup.service.get(setup.principal, export_id).row_count == 5


def test_a_failed_attempt_aborts_its_upload_and_the_redelivery_restarts_cleanly() -> None:
    setup = Setup([_event(n) for n in range(10)], fail_after=4)
    export_id = setup.service.start(setup.principal, _request()).export_id
    with pytest.raises(ConnectionError):
        setup.service.run("acct_1", export_id, receive_count=1)
    assert setup.files.objects == {} and setup.files.aborted == 1
    assert setup.jobs.jobs[export_id].status is ExportStatus.PROCESSING  # its lease given back
    setup.service.run("acct_1", export_id, receive_count=2)  # at once: no lease to wait out
    assert len(setup.rows(export_id)) == 11
    assert setup.jobs.jobs[export_id].attempt == 2
    setup.service.run("acct_1", export_id, receive_count=3)  # a duplicate message: nothing happens
    assert len(setup.files.uploads) == 2


def test_the_last_delivery_fails_the_job_instead_of_raising() -> None:
    setup = Setup([_event(1)], fail_after=0)
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=MAX_ATTEMPTS)
    view = setup.service.get(setup.principal, export_id)
    assert (view.status, view.error_message) == ("failed", GAVE_UP)


def test_a_delivery_after_attempts_that_died_silently_fails_the_job() -> None:
    setup = Setup([_event(1)])
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.service.run("acct_1", export_id, receive_count=MAX_ATTEMPTS + 1)
    assert setup.service.get(setup.principal, export_id).status == "failed"
    assert setup.files.uploads == []


def test_a_job_another_attempt_holds_is_retried_later() -> None:
    setup = Setup([_event(1)])
    export_id = setup.service.start(setup.principal, _request()).export_id
    setup.jobs.claim(setup.jobs.jobs[export_id], NOW, timedelta(minutes=16))
    with pytest.raises(ExportBusyError):
        setup.service.run("acct_1", export_id, receive_count=1)
    assert setup.files.uploads == []
