"""`postline verify resume`: a paused bulk job resumed at once, with the real stores (moto), instead
of at its next 15-minute credit check; that pending check then ends its chain; nothing is charged
twice; a job that is not paused, or an account still without credits, is a conflict."""

from __future__ import annotations

import pytest

from postline.shared.errors import NotFound, PaymentRequired, ValidationFailed
from postline.usage.domain import month_key
from postline.verification.bulk import BulkCreate, BulkStatus
from tests.adapters.test_bulk_verification import NOW, Harness
from tests.aws_stack import InProcessStack


def test_a_paused_job_resumes_at_once_when_the_operator_asks(stack: InProcessStack) -> None:
    limit: dict[str, int | None] = {"credits": 40}
    h = Harness(stack)
    h.service._verify_limit = lambda account_id: limit["credits"]
    accepted = h.service.start(h.principal(), BulkCreate(emails=[f"r{n}@d01.test" for n in range(150)]))
    for message in h.queue.messages():
        h.service.run_chunk(message)
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.PAUSED
    (check,) = h.queue.checks

    with pytest.raises(PaymentRequired, match="no verification credits left") as refused:
        h.service.resume(h.account.id, accepted.job_id)  # still none: the job stays paused
    assert (refused.value.status, refused.value.code) == (402, "insufficient_credits")
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.PAUSED

    limit["credits"] = None  # the operator raised the plan
    queued = len(h.queue.jobs)
    resumed = h.service.resume(h.account.id, accepted.job_id)
    assert (resumed.status, resumed.processed_count, resumed.error_message) == (BulkStatus.PROCESSING, 40, None)
    assert len(h.queue.jobs) == queued + 1  # every chunk queued again
    h.service.run_chunk(check)  # the chain's pending check, 15 minutes on: its token is gone, it ends
    assert len(h.queue.jobs) == queued + 1 and len(h.queue.checks) == 1
    with pytest.raises(ValidationFailed, match="is processing: only a paused job resumes"):
        h.service.resume(h.account.id, accepted.job_id)

    for message in h.queue.messages()[-2:]:
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, h.used()) == (BulkStatus.COMPLETED, 150, 150)
    assert h.checked == 150 + 10  # the pause's group: 25 checked, 15 recorded at 40, 10 checked again
    with pytest.raises(NotFound):
        h.service.resume(h.account.id, "vjob_nope")


def test_a_group_with_a_result_another_run_recorded_is_recorded_one_by_one(stack: InProcessStack) -> None:
    """Two runs of one chunk at once (SQS delivers a message twice): the other run recorded a result
    after this run looked; this run's group transaction is cancelled, and its results are recorded
    one at a time, the other's skipped: counts and credits exact."""
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(emails=[f"g{n}@d01.test" for n in range(60)]))
    job = h.jobs.get(h.account.id, accepted.job_id)
    assert job is not None
    ((index, address), *_) = h.jobs.chunk(job, 0)[7:]
    running = h.jobs.move(job, {BulkStatus.QUEUED}, BulkStatus.PROCESSING)
    assert running is not None
    other = h.checker.check_address(h.account.id, address, h.clock.now())
    assert h.jobs.record(running, index, other, month=month_key(NOW), limit=None).value == "new"
    h.jobs.recorded = lambda job, indexes: set()  # type: ignore[method-assign]  # this run looked before
    (message,) = h.queue.messages()
    h.service.run_chunk(message)
    done = h.service.get(h.principal(), accepted.job_id)
    assert (done.status, done.processed_count, done.summary.valid, h.used()) == (BulkStatus.COMPLETED, 60, 60, 60)
