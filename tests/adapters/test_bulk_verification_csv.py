"""Bulk verification jobs from CSV files, with the real stores and S3 (moto): a file in the body,
a presigned upload found by the first poll, a file the worker cannot read, an upload that never
comes, a reading run twice; exact counts, credits and numbered row errors."""

from __future__ import annotations

from collections import Counter

import pytest
import requests

from postline.keys.access import Environment
from postline.shared.errors import PaymentRequired, ValidationFailed
from postline.usage.domain import month_key
from postline.verification.bulk import BulkCreate, BulkStatus, ChunkMessage
from tests.adapters.test_bulk_verification import DOMAINS, NOW, Harness
from tests.aws_stack import InProcessStack


def run(h: Harness, messages: list[ChunkMessage]) -> None:
    for message in messages:
        h.service.run_chunk(message)


def csv_text(rows: int, *, blank_at: int | None = None) -> str:
    """`Name,EMAIL,Note`: `rows` addresses over the 50 domains, the first 20 again in upper case,
    and an empty email cell at data row `blank_at` (file row blank_at + 1)."""
    lines = ["Name,EMAIL,Note"]
    addresses = [f"c{n}@{DOMAINS[n % 50]}" for n in range(rows)] + [f"C{n}@{DOMAINS[n % 50]}" for n in range(20)]
    for n, address in enumerate(addresses, start=1):
        if n == blank_at:
            lines.append('"Nobody, really",,"no address here"')
        lines.append(f'"Person {n}",{address},"a note, with a comma"')
    return "\r\n".join(lines) + "\r\n"


def test_a_csv_body_is_read_by_the_worker_into_chunks_with_exact_counts(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(csv=csv_text(350, blank_at=101), filename="leads.csv"))
    assert (accepted.status, accepted.total_count, accepted.upload_url) == (BulkStatus.PENDING, 0, None)
    pending = h.service.get(h.principal(), accepted.job_id)
    assert (pending.status, pending.filename, pending.total_count) == (BulkStatus.PENDING, "leads.csv", 0)
    assert h.queue.jobs == [] and len(h.queue.reads) == 1

    run(h, h.queue.reads)
    queued = h.service.get(h.principal(), accepted.job_id)
    assert (queued.status, queued.total_count, queued.skipped) == (BulkStatus.QUEUED, 350, 1)
    assert [e.model_dump(mode="json") for e in queued.errors] == [{"row": 102, "email": "", "reason": "missing_email"}]
    assert len(h.queue.messages()) == 4  # 350 distinct addresses, 100 a chunk

    run(h, h.queue.messages())
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, job.total_count) == (BulkStatus.COMPLETED, 350, 350)
    assert h.used() == 350 and h.checked == 350
    assert job.summary.catch_all == 7 and job.summary.valid == 343  # d00's: c0, c50, ... c300
    first = h.service.results(h.principal(), accepted.job_id, page=1, limit=3).items
    assert [r.address for r in first] == ["c0@d00.test", "c1@d01.test", "c2@d02.test"]  # the file's order
    assert sorted(h.routes.asked) == sorted(DOMAINS)


def test_a_presigned_upload_is_found_by_the_first_poll_and_read_once(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(filename="big.csv"))
    assert accepted.status is BulkStatus.UPLOADING and accepted.upload_url and accepted.upload_expires_at
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.UPLOADING  # no file yet
    assert h.queue.reads == []
    put = requests.put(
        accepted.upload_url, data=csv_text(120).encode(), headers={"Content-Type": "text/csv"}, timeout=30
    )
    assert put.status_code == 200, put.text
    found = h.service.get(h.principal(), accepted.job_id)
    assert found.status is BulkStatus.PENDING and len(h.queue.reads) == 1
    h.service.get(h.principal(), accepted.job_id)  # a later poll queues nothing more
    assert len(h.queue.reads) == 1

    run(h, h.queue.reads * 2)  # the reading delivered twice: its chunks are sent again, nothing counted twice
    assert len(h.queue.jobs) == 2
    run(h, h.queue.messages())
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count, job.total_count, job.skipped) == (BulkStatus.COMPLETED, 120, 120, 0)
    assert h.used() == 120 and h.checked == 120
    assert job.filename == "big.csv"

    h.service.delete(h.principal(), accepted.job_id)
    run(h, h.queue.purges)
    assert h.files.size(h.account.id, accepted.job_id) is None  # the file went with the job


def test_an_upload_that_never_comes_fails_the_job_after_the_hour(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate())
    h.clock.advance(3_599)
    assert h.service.get(h.principal(), accepted.job_id).status is BulkStatus.UPLOADING
    h.clock.advance(1)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.can_retry) == (BulkStatus.FAILED, True)
    assert job.error_message and "within the hour" in job.error_message
    assert h.queue.reads == [] and h.used() == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name,address\nA,a@d01.test\n", "one of them `email`"),
        ("email\n\n,\n", "no address to verify"),
        ("", "The file is empty"),
    ],
)
def test_a_file_the_worker_cannot_use_fails_the_job_and_charges_nothing(
    stack: InProcessStack, text: str, message: str
) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(filename="bad.csv"))
    h.files.store(h.account.id, accepted.job_id, text.encode())
    run(h, [ChunkMessage(account_id=h.account.id, job_id=accepted.job_id, chunk=-1, read_file=True)])
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.can_retry, job.total_count) == (BulkStatus.FAILED, True, 0)
    assert job.error_message and message in job.error_message
    assert h.queue.jobs == [] and h.used() == 0


def test_a_test_mode_csv_job_completes_in_the_request_and_cannot_upload(stack: InProcessStack) -> None:
    h = Harness(stack)
    text = "Email\nvalid@simulator.postline.dev\n\nnope\nVALID@simulator.postline.dev\n"
    accepted = h.service.start(h.principal(Environment.TEST), BulkCreate(csv=text))
    assert (accepted.status, accepted.total_count) == (BulkStatus.COMPLETED, 2)
    job = h.service.get(h.principal(Environment.TEST), accepted.job_id)
    assert (job.filename, job.skipped, [e.row for e in job.errors]) == ("list.csv", 1, [3])
    items = h.service.results(h.principal(Environment.TEST), accepted.job_id, page=1, limit=10).items
    assert Counter(r.status.value for r in items) == {"valid": 1, "invalid": 1}
    with pytest.raises(ValidationFailed, match="send the file's text in `csv`"):
        h.service.start(h.principal(Environment.TEST), BulkCreate())
    with pytest.raises(ValidationFailed, match="email"):
        h.service.start(h.principal(Environment.TEST), BulkCreate(csv="address\nx@y.test\n"))


@pytest.mark.parametrize("env", [Environment.TEST, Environment.LIVE])
def test_a_spreadsheets_file_reads_the_same_for_test_and_live_keys(stack: InProcessStack, env: Environment) -> None:
    """A byte-order mark and lone-CR line ends, as spreadsheets write them: one parser for both keys."""
    h = Harness(stack)
    text = "\ufeffEmail,Name\rvalid@simulator.postline.dev,Ada\r,Nobody\rnope,Bob\r"
    accepted = h.service.start(h.principal(env), BulkCreate(csv=text))
    if env is Environment.LIVE:
        run(h, h.queue.reads)
    job = h.service.get(h.principal(env), accepted.job_id)
    assert (job.total_count, job.skipped, [(e.row, e.reason.value) for e in job.errors]) == (
        2, 1, [(3, "missing_email")]
    )  # fmt: skip


def test_a_csv_job_without_credits_is_refused_before_anything_is_stored(stack: InProcessStack) -> None:
    h = Harness(stack)
    spent = h.account.limits.verify_credits
    assert h.credits.consume_verification(h.account.id, month=month_key(NOW), limit=None, test=False, count=spent)
    with pytest.raises(PaymentRequired):
        h.service.start(h.principal(), BulkCreate(csv="email\na@d01.test\n"))
    with pytest.raises(PaymentRequired):
        h.service.start(h.principal(), BulkCreate())
    assert h.queue.reads == []


def test_emails_and_csv_together_are_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        BulkCreate(emails=["a@b.test"], csv="email\na@b.test\n")
