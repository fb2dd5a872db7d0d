"""A bulk job's catch_all_processing phase with the real stores (moto): after every address has
its result, the catch-all ones are scored with the account's history of each address before the
file is written; a worker that dies in the phase leaves the job `catch_all_processing`, and the
message's redelivery scores again (idempotently) and completes it; `suppress` acts on the scores."""

from __future__ import annotations

import pytest

from postline.shared.errors import Conflict
from postline.suppressions.domain import SuppressionType
from postline.verification.bulk import BulkCreate, BulkStatus
from postline.verification.catch_all import BOUNCED, ENGAGED
from postline.verification.models import Activity
from tests.adapters.test_bulk_verification import Dying, Harness
from tests.aws_stack import InProcessStack


class History:
    """The account's activity per address; dies once on the second read of `die_on` (the first is
    the mailbox check's, the second the scoring's)."""

    def __init__(self, known: dict[str, Activity], die_on: str) -> None:
        self.known = known
        self.die_on = die_on
        self.reads: dict[str, int] = {}
        self.died = False

    def activity(self, account_id: str, address: str) -> Activity:
        self.reads[address] = self.reads.get(address, 0) + 1
        if address == self.die_on and self.reads[address] == 2 and not self.died:
            self.died = True
            raise Dying("the worker was killed while scoring the catch-alls")
        return self.known.get(address, Activity())

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        """The mailbox checks' read: a chunk's addresses at once."""
        for address in addresses:
            self.reads[address] = self.reads.get(address, 0) + 1
        return {a: self.known[a] for a in addresses if a in self.known}


def test_catch_all_results_are_scored_with_the_accounts_history_in_their_own_phase(stack: InProcessStack) -> None:
    h = Harness(stack)  # d00.test is a catch-all
    emails = [f"u{n}@d0{n % 3}.test" for n in range(30)]  # u0, u3, ... u27 at d00: 10 catch-alls
    history = History(
        {
            "u3@d00.test": Activity(seen=True, total_sends=4, delivered=4, opened=2, clicked=1),
            "u6@d00.test": Activity(seen=True, total_sends=2, delivered=1, bounced=1),
            "u1@d01.test": Activity(seen=True, total_sends=1, bounced=1),  # not a catch-all: left alone
        },
        die_on="u9@d00.test",
    )
    h.checker._activity = history
    accepted = h.service.start(h.principal(), BulkCreate(emails=emails, suppress=True))
    (message,) = h.queue.messages()
    with pytest.raises(Dying):
        h.service.run_chunk(message)  # every result recorded; the scoring dies part-way
    cut = h.service.get(h.principal(), accepted.job_id)
    assert (cut.status, cut.processed_count, cut.summary.catch_all) == (BulkStatus.CATCH_ALL_PROCESSING, 30, 10)
    with pytest.raises(Conflict):  # no file yet: packaging has not begun
        h.service.file(h.principal(), accepted.job_id)

    h.service.run_chunk(message)  # SQS delivers it again: the phase is run again whole
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.processed_count) == (BulkStatus.COMPLETED, 30)
    assert job.summary.model_dump()["catch_all"] == 10 and job.summary.valid == 20  # statuses do not move
    assert h.used() == 30
    results = {r.address: r for r in h.service.results(h.principal(), accepted.job_id, page=1, limit=100).items}
    engaged, bounced, plain = results["u3@d00.test"], results["u6@d00.test"], results["u9@d00.test"]
    assert (engaged.status.value, engaged.sub_status, engaged.recommendation.value, engaged.confidence) == (
        "catch_all",
        ENGAGED,
        "mail",
        0.85,
    )
    assert engaged.activity.opened == 2 and engaged.reason.count("; scored:") == 1
    assert (bounced.sub_status, bounced.recommendation.value, bounced.risk.value) == (BOUNCED, "suppress", "high")
    assert (plain.sub_status, plain.recommendation.value, plain.confidence) == ("accept_all", "caution", 0.5)
    assert results["u1@d01.test"].sub_status == "" and results["u1@d01.test"].recommendation.value == "mail"
    assert results["u1@d01.test"].activity.bounced == 1  # the history, read with the chunk's in one batch
    assert history.reads["u1@d01.test"] == 1  # with the chunk, and never alone
    # `suppress` adds the catch-all whose mail bounced, and only it.
    listed = h.suppressions.present(h.account.id, SuppressionType.BOUNCES, emails)
    assert listed == {"u6@d00.test"}


def test_a_job_without_catch_alls_passes_through_the_phase(stack: InProcessStack) -> None:
    h = Harness(stack)
    accepted = h.service.start(h.principal(), BulkCreate(emails=["a@d01.test", "b@d02.test"]))
    for message in h.queue.messages():
        h.service.run_chunk(message)
    job = h.service.get(h.principal(), accepted.job_id)
    assert (job.status, job.summary.catch_all, job.processed_count) == (BulkStatus.COMPLETED, 0, 2)
