"""The jobs table's shared lifecycle (shared/jobs.py) against moto, through a kind of its own:
create, create-or-find by fingerprint, conditional status moves, leases, and the stored items."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from postline.shared.jobs import JobKind, JobTable
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
LEASE = timedelta(minutes=10)
RUNNING = frozenset({"pending", "processing"})
DAY = timedelta(days=1)


class SampleJob(BaseModel):
    id: str
    account_id: str
    status: str = "pending"
    attempt: int = 0
    counted: int = 0
    wanted: int = 0
    note: str | None = None
    created_at: datetime


SAMPLES = JobKind(prefix="SAMPLE_JOB", model=SampleJob, purge_at=lambda job: job.created_at + timedelta(days=7))


@pytest.fixture
def table(stack: InProcessStack) -> JobTable[SampleJob]:
    return JobTable(stack.client("dynamodb"), stack.env["JOBS_TABLE"], SAMPLES)


def _job(account_id: str | None = None) -> SampleJob:
    return SampleJob(id=uuid.uuid4().hex, account_id=account_id or f"acct_{uuid.uuid4().hex[:8]}", created_at=NOW)


def _raw(stack: InProcessStack, account_id: str, sk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = (
        stack.client("dynamodb")
        .get_item(
            TableName=stack.env["JOBS_TABLE"],
            Key={"pk": {"S": f"JOB#{account_id}"}, "sk": {"S": sk}},
            ConsistentRead=True,
        )
        .get("Item")
    )
    return item


def test_a_job_is_created_once_and_stored_under_its_kinds_keys(
    table: JobTable[SampleJob], stack: InProcessStack
) -> None:
    job = _job()
    assert table.create(job) is True
    assert table.create(job.model_copy(update={"note": "again"})) is False  # nothing overwritten
    assert table.get(job.account_id, job.id) == job
    assert table.get("acct_other", job.id) is None
    assert _raw(stack, job.account_id, f"SAMPLE_JOB#{job.id}") == {
        "pk": {"S": f"JOB#{job.account_id}"},
        "sk": {"S": f"SAMPLE_JOB#{job.id}"},
        "id": {"S": job.id},
        "account_id": {"S": job.account_id},
        "status": {"S": "pending"},
        "attempt": {"N": "0"},
        "counted": {"N": "0"},
        "wanted": {"N": "0"},
        "created_at": {"S": "2026-05-04T09:30:00Z"},
        "purge_at": {"N": str(int((NOW + timedelta(days=7)).timestamp()))},
    }
    assert table.key(job.account_id, job.id, "PART", "7") == {
        "pk": {"S": f"JOB#{job.account_id}"},
        "sk": {"S": f"SAMPLE_JOB#{job.id}#PART#7"},
    }


def test_create_or_find_returns_the_running_job_until_it_finished(
    table: JobTable[SampleJob], stack: InProcessStack
) -> None:
    account = f"acct_{uuid.uuid4().hex[:8]}"

    def create_or_find(fingerprint: str = "fp", now: datetime = NOW) -> SampleJob:
        return table.create_or_find(_job(account), fingerprint, now, running=RUNNING, lifetime=DAY)

    first = create_or_find()
    assert table.get(account, first.id) == first
    assert _raw(stack, account, "SAMPLE_JOB_FP#fp") == {
        "pk": {"S": f"JOB#{account}"},
        "sk": {"S": "SAMPLE_JOB_FP#fp"},
        "job_id": {"S": first.id},
        "active_until": {"N": str(int((NOW + DAY).timestamp()))},
        "purge_at": {"N": str(int((NOW + DAY).timestamp()))},
    }
    assert create_or_find() == first  # pending: the same job, no second one
    assert create_or_find("other").id != first.id

    taken = table.take_lease(first, NOW, LEASE, waiting={"pending"}, held="processing")
    assert taken is not None
    assert create_or_find() == taken  # processing still runs
    assert table.finish(taken.model_copy(update={"status": "done"}), taken.attempt, held="processing", fingerprint="fp")
    assert _raw(stack, account, "SAMPLE_JOB_FP#fp") is None  # its end freed the fingerprint

    after = create_or_find()
    assert after.id != first.id and table.get(account, after.id) == after
    # A job that never ended holds its fingerprint for `lifetime` only.
    later = NOW + DAY + timedelta(seconds=1)
    assert create_or_find(now=later).id not in {first.id, after.id}


def test_a_fingerprint_left_pointing_at_an_ended_job_is_cleared(
    table: JobTable[SampleJob], stack: InProcessStack
) -> None:
    account = f"acct_{uuid.uuid4().hex[:8]}"
    ended = table.create_or_find(_job(account), "fp", NOW, running=RUNNING, lifetime=DAY)
    assert table.move(ended, {"pending"}, "failed") is not None  # ended without freeing its fingerprint
    again = table.create_or_find(_job(account), "fp", NOW, running=RUNNING, lifetime=DAY)
    assert again.id != ended.id
    pointer = _raw(stack, account, "SAMPLE_JOB_FP#fp")
    assert pointer is not None and pointer["job_id"] == {"S": again.id}
    table.free_fingerprint(account, "fp", ended.id)  # no longer its pointer: left alone
    assert _raw(stack, account, "SAMPLE_JOB_FP#fp") == pointer


def test_a_status_move_from_the_wrong_status_does_nothing(table: JobTable[SampleJob], stack: InProcessStack) -> None:
    job = _job()
    table.create(job)
    assert table.move(job, {"processing", "paused"}, "done", updates={"note": "moved"}) is None
    assert table.get(job.account_id, job.id) == job

    moved = table.move(job, {"pending", "paused"}, "processing", updates={"note": "moved", "wanted": 2})
    assert moved is not None and (moved.status, moved.note, moved.wanted) == ("processing", "moved", 2)
    assert table.get(job.account_id, job.id) == moved
    assert table.move(job, {"pending"}, "processing", updates={"note": "twice"}) is None  # it moved already

    # The right status but not the extra condition: nothing either.
    assert table.move(job, {"processing"}, "done", condition="counted >= wanted") is None
    assert table.get(job.account_id, job.id) == moved
    finished = table.move(job, {"processing"}, "done", condition="wanted > counted")
    assert finished is not None and finished.status == "done"

    missing = _job()
    assert table.move(missing, {"pending"}, "processing") is None
    assert _raw(stack, missing.account_id, f"SAMPLE_JOB#{missing.id}") is None  # never created by a move


def test_a_live_lease_refuses_a_second_owner_and_an_expired_one_is_taken_over(table: JobTable[SampleJob]) -> None:
    job = _job()
    table.create(job)

    def take(at: datetime) -> SampleJob | None:
        return table.take_lease(job, at, LEASE, waiting={"pending"}, held="processing")

    first = take(NOW)
    assert first is not None and (first.status, first.attempt) == ("processing", 1)
    assert take(NOW + LEASE - timedelta(seconds=1)) is None  # its lease is live
    second = take(NOW + LEASE + timedelta(seconds=1))  # it ran out: the next attempt takes over
    assert second is not None and second.attempt == 2

    # The first attempt lost the job: it can neither give the lease back nor finish.
    assert table.release_lease(job, first.attempt, held="processing") is False
    assert table.finish(first.model_copy(update={"status": "done"}), first.attempt, held="processing") is False
    assert take(NOW + LEASE + timedelta(seconds=2)) is None  # the second's lease is intact

    assert table.release_lease(job, second.attempt, held="processing") is True
    third = take(NOW + LEASE + timedelta(seconds=2))  # released: taken at once
    assert third is not None and third.attempt == 3
    assert table.finish(third.model_copy(update={"status": "done", "note": "ok"}), third.attempt, held="processing")
    assert take(NOW + 10 * LEASE) is None  # ended
    stored = table.get(job.account_id, job.id)
    assert stored is not None and (stored.status, stored.attempt, stored.note) == ("done", 3, "ok")


def test_a_kind_prefix_cannot_reach_into_another_kinds_keys() -> None:
    for prefix in ("export", "EXPORT#X", "EXPORT_FP", "_EXPORT", ""):
        with pytest.raises(ValueError, match="job kind prefix"):
            JobKind(prefix=prefix, model=SampleJob, purge_at=lambda job: job.created_at)
