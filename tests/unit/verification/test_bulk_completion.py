"""A completed bulk job's effects, pure parts: which results are suppressed, the webhook's body and
its deterministic delivery."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from postline.verification.bulk import BulkJob, BulkStatus, BulkVerificationJob, empty_summary
from postline.verification.bulk_completion import COMPLETED_EVENT, completion_delivery, undeliverable
from postline.verification.service import ValidationService
from tests.fakes.shared import FixedClock, SequentialIds
from tests.fakes.verification import (
    FixedRegistrations,
    InMemoryComplaintLists,
    InMemoryDomainFacts,
    InMemoryVerificationCounters,
    ScriptedProber,
    StaticActivity,
    StaticRoutes,
)

NOW = datetime(2026, 11, 24, 3, 0, 10, tzinfo=UTC)


def simulator() -> ValidationService:
    return ValidationService(
        routes=StaticRoutes({}),
        prober=ScriptedProber(),
        registrations=FixedRegistrations(),
        facts=InMemoryDomainFacts(),
        credits=InMemoryVerificationCounters(),
        activity=StaticActivity(),
        complaints=InMemoryComplaintLists(),
        ids=SequentialIds(),
        clock=FixedClock(NOW),
    )


@pytest.mark.parametrize(
    ("address", "listed"),
    [
        ("Invalid@Simulator.Postline.dev", "invalid@simulator.postline.dev"),
        ("do_not_mail@simulator.postline.dev", "do_not_mail@simulator.postline.dev"),
        ("spamtrap@simulator.postline.dev", "spamtrap@simulator.postline.dev"),
        ("abuse@simulator.postline.dev", "abuse@simulator.postline.dev"),
        ("valid@simulator.postline.dev", None),
        ("catch_all@simulator.postline.dev", None),
        ("unknown@simulator.postline.dev", None),
        ("not an address", None),  # suppress, but no list can hold it
    ],
)
def test_what_suppress_adds(address: str, listed: str | None) -> None:
    assert undeliverable(simulator().simulate_address("acct_1", address, None)) == listed


def test_the_completion_webhook_is_the_job_and_its_delivery_id_is_fixed() -> None:
    job = BulkJob(
        id="vjob_1",
        account_id="acct_1",
        status=BulkStatus.COMPLETED,
        test=False,
        total_count=3,
        processed_count=3,
        summary={**empty_summary(), "valid": 2, "invalid": 1},
        chunks=1,
        webhook_url="https://hooks.example.com/done",
        created_at=NOW,
        completed_at=NOW,
    )
    first = completion_delivery(job, NOW, 30)
    again = completion_delivery(job, datetime(2026, 11, 25, tzinfo=UTC), 30)
    assert first.id == again.id and first.id.startswith("whd_")  # a second run finds the first delivery
    assert (first.endpoint_id, first.event_id, first.event_type) == (None, "vjob_1.completed", COMPLETED_EVENT)
    assert json.loads(first.body) == {
        "event": COMPLETED_EVENT,
        "job": BulkVerificationJob.of(job).model_dump(mode="json"),
        "results_path": "/v3/validate/bulk/vjob_1/results",
    }
    other = completion_delivery(job.model_copy(update={"webhook_url": "https://other.example.com/"}), NOW, 30)
    assert other.id != first.id
