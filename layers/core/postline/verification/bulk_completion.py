"""What a bulk verification job's completion sets off, run by the queue worker once the job is
`completed`: its `suppress` option and its `webhook_url`.

- `suppress`: every result whose recommendation is `suppress` (invalid, disposable, spamtrap,
  abuse, do_not_mail) goes onto the `bounces` list with source `verification`. Entries already
  listed (any source) are left as they are; ids are derived from the address, so running this
  twice adds nothing twice.
- `webhook_url`: the job (BulkVerificationJob) is POSTed there as a per-message webhook is: the
  Ed25519 header the webhooks use (`Svc-Signature-Ed25519`, the key set at /.well-known/svc/keys),
  the same seven-attempt schedule. The delivery's id is derived from the job and the URL, so a
  second run finds it and sends nothing twice.

Both are idempotent, and the job records `effects_done` only after both: a worker that dies
between completing the job and finishing here leaves the message to SQS, whose next delivery
finds the job completed and runs this again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from postline.events.domain import retention_expiry
from postline.shared.addresses import normalize_email
from postline.shared.ports import Clock
from postline.suppressions.domain import SuppressionSource, SuppressionType, new_suppression
from postline.verification.bulk import MAX_PAGE, BulkJob, BulkVerificationJob
from postline.verification.domain import Recommendation
from postline.verification.models import ValidationResult
from postline.verification.ports import Deliverer, JobResults, SuppressionWrites
from postline.webhook_delivery.domain import Delivery, Target, delivery_id, encode_body

COMPLETED_EVENT = "verification.completed"


def completion_payload(job: BulkJob) -> dict[str, Any]:
    """The body POSTed to the job's webhook_url: the event's name and the job as GET answers it."""
    return {
        "event": COMPLETED_EVENT,
        "job": BulkVerificationJob.of(job).model_dump(mode="json"),
        "results_path": f"/v3/validate/bulk/{job.id}/results",
    }


def completion_delivery(job: BulkJob, now: datetime, retention_days: int) -> Delivery:
    assert job.webhook_url is not None
    event_id = f"{job.id}.completed"
    target = Target(endpoint_id=None, url=job.webhook_url)
    return Delivery(
        id=delivery_id(event_id, target),
        account_id=job.account_id,
        endpoint_id=None,
        url=job.webhook_url,
        event_id=event_id,
        event_type=COMPLETED_EVENT,
        message_id=job.id,
        body=encode_body(completion_payload(job)),
        created_at=now,
        expires_at=retention_expiry(now, retention_days),
    )


def undeliverable(result: ValidationResult) -> str | None:
    """The listed form of the address when the result says not to mail it, else None."""
    if result.recommendation != Recommendation.SUPPRESS:
        return None
    try:
        return normalize_email(result.address)
    except ValueError:
        return None  # bad syntax: not an address a list can hold (and never mailable anyway)


class BulkCompletion:
    def __init__(
        self,
        *,
        jobs: JobResults,
        suppressions: SuppressionWrites,
        deliverer: Callable[[], Deliverer],
        retention_days: Callable[[str], int],
        clock: Clock,
    ) -> None:
        self._jobs = jobs
        self._suppressions = suppressions
        self._deliverer = deliverer
        self._retention_days = retention_days
        self._clock = clock

    def run(self, job: BulkJob) -> None:
        if job.suppress:
            self.suppress(job)
        if job.webhook_url:
            delivery = completion_delivery(job, self._clock.now(), self._retention_days(job.account_id))
            self._deliverer().deliver(delivery)

    def suppress(self, job: BulkJob) -> int:
        """Adds the job's undeliverable addresses to `bounces`; how many were new."""
        added = 0
        pages = (job.total_count + MAX_PAGE - 1) // MAX_PAGE
        for page in range(1, pages + 1):
            reasons: dict[str, str] = {}
            for result in self._jobs.results(job, page=page, limit=MAX_PAGE):
                email = undeliverable(result)
                if email is not None:
                    reasons.setdefault(email, f"verification {job.id}: {result.status.value}/{result.sub_status}")
            if not reasons:
                continue
            present = self._suppressions.present(job.account_id, SuppressionType.BOUNCES, list(reasons))
            now = self._clock.now()
            entries = [
                new_suppression(
                    job.account_id,
                    SuppressionType.BOUNCES,
                    email,
                    now,
                    reason=reason,
                    source=SuppressionSource.VERIFICATION,
                )
                for email, reason in reasons.items()
                if email not in present
            ]
            self._suppressions.put_many(entries)
            added += len(entries)
        return added
