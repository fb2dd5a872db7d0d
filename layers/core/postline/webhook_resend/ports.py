"""What webhook resends need: their job table and queue.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.webhook_resend.domain import ResendJob


class ResendJobs(Protocol):
    def create(self, job: ResendJob) -> None: ...

    def get(self, account_id: str, job_id: str) -> ResendJob | None: ...

    def start(self, job: ResendJob, matched: int) -> ResendJob:
        """queued -> running with its match count; the stored job as it is after (a repeated
        message finds it running or completed already and changes nothing)."""
        ...

    def stop(self, job: ResendJob, error_message: str, now: datetime) -> None:
        """Completes a job that cannot go on, with the reason."""
        ...

    def count(self, job: ResendJob, delivery_id: str, *, succeeded: bool) -> bool:
        """Adds one attempted resend to the counters, once per delivery (False when counted already)."""
        ...

    def complete_if_done(self, job: ResendJob, now: datetime) -> bool:
        """running -> completed once attempted reaches matched; True for the call that completed it."""
        ...


class ResendQueue(Protocol):
    def enqueue_job(self, job: ResendJob) -> None: ...

    def enqueue_attempts(self, job: ResendJob, delivery_ids: list[str]) -> None:
        """One message per manual delivery to attempt."""
        ...
