"""Event exports against moto: the jobs table's dedupe and leases, the events read from the events
table, the CSV in S3 as a multipart upload, redeliveries, the row cap and flat memory."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from devtools.local.emulator import Emulator
from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.events.domain import Event, EventType
from postline.events.query import EventFilters, QueryPlan
from postline.exports.domain import CSV_HEADER, ExportJob, ExportStatus, new_export
from postline.exports.files import PART_SIZE, S3ExportFiles, SqsExportQueue, export_key
from postline.exports.models import EventExportRequest
from postline.exports.service import ExportService
from postline.exports.store import DynamoExportJobs
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.wiring import events as events_root
from postline.wiring import exports, shared
from tests.aws_stack import REGION, ROOT, InProcessStack, in_process_stack
from tests.fakes.keys import InMemoryStore
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
LEASE = timedelta(minutes=16)
MEMORY_BUCKET = "exports-memory"
MEASURED = "measured: "  # the line of the child's output that carries its figures


def _principal() -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, created_at=NOW - timedelta(days=60))
    return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE)


def _event(account_id: str, n: int, at: datetime, **fields: Any) -> Event:
    values: dict[str, Any] = {
        "id": f"evt_{n:07d}",
        "account_id": account_id,
        "type": [EventType.SENT, EventType.DELIVERED][n % 2],
        "message_id": f"msg_{n // 2}",
        "recipient": f"r{n % 7}@example.com",
        "timestamp": at,
        "tags": ["t"],
        "metadata": {"n": str(n)},
        "created_at": at,
        "expires_at": int((at + timedelta(days=30)).timestamp()),
    }
    return Event(**{**values, **fields})


def _job(account_id: str, fingerprint: str = "fp", now: datetime = NOW) -> ExportJob:
    filters = EventFilters(since=now - timedelta(days=1), until=now)
    return new_export(uuid.uuid4().hex, account_id, filters, fingerprint, now)


def _service(
    stack: InProcessStack, *, stream: Any = None, max_rows: int = 1_000_000, files: Any = None
) -> ExportService:
    return ExportService(
        jobs=exports.export_jobs(),
        queue=SqsExportQueue(stack.client("sqs"), stack.env["EXPORT_QUEUE_URL"]),
        files=files or exports.export_files(),
        events=stream or events_root.event_store(),
        audit=InMemoryStore(),
        ids=shared.ids(),
        clock=FixedClock(NOW),
        max_rows=max_rows,
    )


def _request(**fields: Any) -> EventExportRequest:
    return EventExportRequest(since=NOW - timedelta(days=3), until=NOW, **fields)


def _csv(stack: InProcessStack, job: ExportJob) -> list[list[str]]:
    body = stack.client("s3").get_object(Bucket=stack.env["EXPORTS_BUCKET"], Key=export_key(job.account_id, job.id))
    return list(csv.reader(io.StringIO(body["Body"].read().decode())))


def _incomplete_uploads(stack: InProcessStack) -> list[dict[str, Any]]:
    uploads: list[dict[str, Any]] = (
        stack.client("s3").list_multipart_uploads(Bucket=stack.env["EXPORTS_BUCKET"]).get("Uploads", [])
    )
    return uploads


# -- the jobs table ------------------------------------------------------------------------------------


def test_an_equivalent_running_job_is_found_not_duplicated(stack: InProcessStack) -> None:
    jobs: DynamoExportJobs = exports.export_jobs()
    account = f"acct_{uuid.uuid4().hex[:8]}"
    first = jobs.create_or_find(_job(account), NOW)
    assert jobs.create_or_find(_job(account), NOW) == first
    assert jobs.create_or_find(_job(account, fingerprint="other"), NOW).id != first.id
    assert jobs.create_or_find(_job(f"{account}x"), NOW).id != first.id  # per account

    claimed = jobs.claim(first, NOW, LEASE)
    assert claimed is not None and (claimed.status, claimed.attempt) == (ExportStatus.PROCESSING, 1)
    assert jobs.create_or_find(_job(account), NOW).id == first.id  # processing is still running
    assert jobs.finish(claimed.completed(3, NOW))
    after = jobs.create_or_find(_job(account), NOW)
    assert after.id != first.id and after.status is ExportStatus.PENDING


def test_a_stale_or_expired_fingerprint_does_not_block_a_new_job(stack: InProcessStack) -> None:
    jobs: DynamoExportJobs = exports.export_jobs()
    db, table = stack.client("dynamodb"), stack.env["JOBS_TABLE"]
    account = f"acct_{uuid.uuid4().hex[:8]}"
    ended = jobs.create_or_find(_job(account), NOW)
    claimed = jobs.claim(ended, NOW, LEASE)
    assert claimed is not None and jobs.finish(claimed.failed("boom", NOW))
    # The job ended but its fingerprint item came back (as if the end's delete was lost).
    db.put_item(
        TableName=table,
        Item={
            "pk": {"S": f"JOB#{account}"},
            "sk": {"S": "EXPORT_FP#fp"},
            "job_id": {"S": ended.id},
            "active_until": {"N": str(int((NOW + timedelta(days=1)).timestamp()))},
        },
    )
    assert jobs.create_or_find(_job(account), NOW).id != ended.id
    # A job that never ended holds its fingerprint for a day only.
    stuck = jobs.create_or_find(_job(account, fingerprint="stuck"), NOW)
    later = NOW + timedelta(days=1, seconds=1)
    assert jobs.create_or_find(_job(account, fingerprint="stuck", now=later), later).id != stuck.id


def test_only_the_attempt_holding_the_lease_finishes_the_job(stack: InProcessStack) -> None:
    jobs: DynamoExportJobs = exports.export_jobs()
    job = jobs.create_or_find(_job(f"acct_{uuid.uuid4().hex[:8]}"), NOW)
    first = jobs.claim(job, NOW, LEASE)
    assert first is not None
    assert jobs.claim(job, NOW + LEASE - timedelta(seconds=1), LEASE) is None  # its lease is live
    second = jobs.claim(job, NOW + LEASE + timedelta(seconds=1), LEASE)  # it ran out: a new attempt
    assert second is not None and second.attempt == 2
    assert not jobs.finish(first.completed(1, NOW))  # the old attempt lost the job
    jobs.release(second)
    third = jobs.claim(job, NOW + LEASE + timedelta(seconds=2), LEASE)  # released: claimable at once
    assert third is not None and third.attempt == 3
    assert jobs.finish(third.completed(1, NOW))
    assert jobs.claim(job, NOW + 10 * LEASE, LEASE) is None  # ended
    stored = jobs.get(job.account_id, job.id)
    assert stored is not None and (stored.status, stored.row_count, stored.attempt) == ("completed", 1, 3)


# -- exporting through the real adapters -----------------------------------------------------------------


@pytest.fixture(scope="module")
def seeded(stack: InProcessStack) -> tuple[Principal, list[Event]]:
    """2,500 events over three days, plus another account's, which no export may include."""
    principal = _principal()
    account_id = principal.account.id
    events = [_event(account_id, n, NOW - timedelta(seconds=90 * n)) for n in range(2500)]
    events_root.event_store().put(events + [_event("acct_other", n, NOW - timedelta(seconds=n)) for n in range(20)])
    return principal, events


def _newest_first(events: list[Event]) -> list[str]:
    return [e.id for e in sorted(events, key=lambda e: (e.timestamp, e.id), reverse=True)]


def test_an_export_writes_every_matching_event_newest_first(
    stack: InProcessStack, seeded: tuple[Principal, list[Event]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("moto.s3.models.S3_UPLOAD_PART_MIN_SIZE", 1024)  # small parts: several of them
    principal, events = seeded
    files = S3ExportFiles(stack.client("s3"), stack.env["EXPORTS_BUCKET"], part_size=64 * 1024)
    service = _service(stack, files=files)
    for request, matches in [
        (_request(), lambda e: True),
        (_request(event="delivered", recipient="R3@example.com"), lambda e: e.id.endswith(("3", "7", "1", "5", "9"))),
    ]:
        accepted = service.start(principal, request)
        service.run(principal.account.id, accepted.export_id, receive_count=1)
        job = exports.export_jobs().get(principal.account.id, accepted.export_id)
        assert job is not None and job.status is ExportStatus.COMPLETED
        expected = _newest_first(
            [
                e
                for e in events
                if matches(e)
                and (request.event is None or (e.type, e.recipient) == (EventType.DELIVERED, "r3@example.com"))
            ]
        )
        rows = _csv(stack, job)
        assert rows[0] == list(CSV_HEADER)
        assert [row[0] for row in rows[1:]] == expected
        assert job.row_count == len(expected) > 0
    assert _incomplete_uploads(stack) == []


def test_the_worker_reads_its_message_from_the_queue(
    stack: InProcessStack, seeded: tuple[Principal, list[Event]]
) -> None:
    principal, _ = seeded
    sqs = stack.client("sqs")
    sqs.purge_queue(QueueUrl=stack.env["EXPORT_QUEUE_URL"])  # what earlier tests queued
    accepted = _service(stack).start(principal, _request(tag="t", metadata={"n": "7"}))
    (message,) = sqs.receive_message(
        QueueUrl=stack.env["EXPORT_QUEUE_URL"], AttributeNames=["All"], MaxNumberOfMessages=10
    )["Messages"]
    event = {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message["Attributes"],
                "messageAttributes": {},
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ExportQueue",
                "awsRegion": "us-east-1",
            }
        ]
    }
    previous = wiring.clock()
    wiring.set_clock(FixedClock(NOW))
    try:
        assert stack.functions["ExportFunction"].invoke(event) == {"batchItemFailures": []}
    finally:
        wiring.set_clock(previous)
    job = exports.export_jobs().get(principal.account.id, accepted.export_id)
    assert job is not None and (job.status, job.row_count) == (ExportStatus.COMPLETED, 1)


class FailingOnce:
    """The events table's stream, breaking once after `after` events (a lost connection)."""

    def __init__(self, after: int) -> None:
        self.after: int | None = after

    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        for index, event in enumerate(events_root.event_store().stream(account_id, plan)):
            if index == self.after:
                self.after = None
                raise ConnectionError("reset by peer")
            yield event


def test_a_redelivered_job_restarts_cleanly_and_writes_one_file(
    stack: InProcessStack, seeded: tuple[Principal, list[Event]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("moto.s3.models.S3_UPLOAD_PART_MIN_SIZE", 1024)
    principal, events = seeded
    files = S3ExportFiles(stack.client("s3"), stack.env["EXPORTS_BUCKET"], part_size=32 * 1024)
    service = _service(stack, stream=FailingOnce(after=600), files=files)
    accepted = service.start(principal, _request(event="sent"))
    s3, bucket = stack.client("s3"), stack.env["EXPORTS_BUCKET"]
    key = export_key(principal.account.id, accepted.export_id)

    with pytest.raises(ConnectionError):
        service.run(principal.account.id, accepted.export_id, receive_count=1)
    assert _incomplete_uploads(stack) == []  # aborted: no half-written file anywhere
    assert s3.list_objects_v2(Bucket=bucket, Prefix=key).get("KeyCount") == 0

    # A crashed attempt (say, a timeout) leaves its upload behind; the next one starts over.
    job = exports.export_jobs().get(principal.account.id, accepted.export_id)
    assert job is not None
    files.upload(job).write(b"half a file")
    service.run(principal.account.id, accepted.export_id, receive_count=2)
    assert _incomplete_uploads(stack) == []
    done = exports.export_jobs().get(principal.account.id, accepted.export_id)
    assert done is not None and (done.status, done.attempt) == (ExportStatus.COMPLETED, 2)
    assert len(_csv(stack, done)) == 1 + len([e for e in events if e.type is EventType.SENT])
    etag = s3.head_object(Bucket=bucket, Key=key)["ETag"]

    service.run(principal.account.id, accepted.export_id, receive_count=3)  # a duplicate message
    assert s3.head_object(Bucket=bucket, Key=key)["ETag"] == etag
    assert s3.list_objects_v2(Bucket=bucket, Prefix=f"exports/{principal.account.id}/")["KeyCount"] >= 1
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=key)["Contents"]] == [key]


def test_more_rows_than_the_cap_fails_and_leaves_no_file(
    stack: InProcessStack, seeded: tuple[Principal, list[Event]]
) -> None:
    principal, _ = seeded
    service = _service(stack, max_rows=100)  # the 1,000,000 of production, lowered
    accepted = service.start(principal, _request(recipient="r1@example.com"))
    service.run(principal.account.id, accepted.export_id, receive_count=1)
    job = exports.export_jobs().get(principal.account.id, accepted.export_id)
    assert job is not None and job.status is ExportStatus.FAILED
    assert job.error_message is not None and "more than 100 rows" in job.error_message
    s3, bucket = stack.client("s3"), stack.env["EXPORTS_BUCKET"]
    assert s3.list_objects_v2(Bucket=bucket, Prefix=export_key(job.account_id, job.id)).get("KeyCount") == 0
    assert _incomplete_uploads(stack) == []


def test_a_download_url_fetches_the_file(stack: InProcessStack, seeded: tuple[Principal, list[Event]]) -> None:
    principal, _ = seeded
    service = _service(stack)
    accepted = service.start(principal, _request(message_id="msg_3"))
    service.run(principal.account.id, accepted.export_id, receive_count=1)
    view = service.get(principal, accepted.export_id)
    assert view.download_url is not None
    assert "X-Amz-Signature=" in view.download_url and "X-Amz-Expires=3600" in view.download_url
    assert f"exports/{principal.account.id}/{accepted.export_id}.csv" in view.download_url


# -- memory ----------------------------------------------------------------------------------------------


class Synthetic:
    """`count` events made one at a time (nothing held): the export alone is what memory measures."""

    def __init__(self, count: int) -> None:
        self.count = count

    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        for n in range(self.count):
            yield _event(account_id, n, NOW - timedelta(milliseconds=n), metadata={"pad": "x" * 300, "n": str(n)})


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """S3 in a moto server of its own process: what it stores is not the measured process's memory."""
    emulator = Emulator(0)
    emulator.start()
    try:
        emulator.client("s3").create_bucket(Bucket=MEMORY_BUCKET)
        yield emulator
    finally:
        emulator.stop()


def _export_peak(emulator: Emulator, rows: int) -> tuple[int, int]:
    """(peak traced bytes, rows written) of one export of `rows` events, measured in a process of
    its own: tracemalloc counts every thread's allocations, and this worker may run a session
    runtime whose pumps work on meanwhile (a CI run once saw 168 MiB that were theirs)."""
    child = subprocess.run(
        [sys.executable, "-m", "tests.adapters.test_event_exports", emulator.endpoint_url, str(rows)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-4000:]
    measured = [line for line in child.stdout.splitlines() if line.startswith(MEASURED)]
    assert measured, child.stdout[-2000:]
    peak, written = json.loads(measured[-1].removeprefix(MEASURED))
    return int(peak), int(written)


def _measure_in_this_process(endpoint_url: str, rows: int) -> tuple[int, int]:
    with in_process_stack() as stack:
        s3 = boto3.client("s3", endpoint_url=endpoint_url, region_name=REGION)
        files = S3ExportFiles(s3, MEMORY_BUCKET, part_size=PART_SIZE)
        service = _service(stack, stream=Synthetic(rows), files=files)
        principal = _principal()
        accepted = service.start(principal, _request())
        tracemalloc.start()
        try:
            service.run(principal.account.id, accepted.export_id, receive_count=1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        job = exports.export_jobs().get(principal.account.id, accepted.export_id)
        assert job is not None and job.status is ExportStatus.COMPLETED
        size = s3.head_object(Bucket=MEMORY_BUCKET, Key=export_key(job.account_id, job.id))["ContentLength"]
        assert size > 2 * PART_SIZE or rows < 100_000
        return peak, job.row_count or 0


def test_memory_stays_flat_however_many_rows(emulator: Emulator) -> None:
    small_peak, small_rows = _export_peak(emulator, 20_000)
    large_peak, large_rows = _export_peak(emulator, 100_000)
    assert (small_rows, large_rows) == (20_000, 100_000)
    mib = 1024 * 1024
    assert large_peak < 50 * mib, f"peak {large_peak / mib:.1f} MiB"
    # Five times the rows (and parts): the same buffer, not five times the memory.
    assert large_peak < small_peak * 1.25 + 2 * mib, f"{small_peak / mib:.1f} -> {large_peak / mib:.1f} MiB"


if __name__ == "__main__":  # the child of _export_peak: <emulator endpoint> <rows>
    print(MEASURED + json.dumps(_measure_in_this_process(sys.argv[1], int(sys.argv[2]))), flush=True)
