"""The send queue: dispatch jobs through a DelayedQueue (SQS, or EventBridge Scheduler for waits
longer than SQS can delay), each named so a scheduled first attempt can be cancelled by message id."""

from __future__ import annotations

import hashlib
from datetime import datetime

from postline.sending.dispatch_job import DispatchJob
from postline.shared.delayed_queue import DelayedQueue


def schedule_name(job: DispatchJob) -> str:
    """Unique per message, attempt and recipients; the first attempt of a message is findable by id."""
    if job.attempt == 1 and job.recipients is None:
        return f"send-{job.message_id}"
    recipients = hashlib.sha256("|".join(job.recipients or []).encode()).hexdigest()[:12]
    return f"send-{job.message_id}-{job.attempt}-{recipients}"


class SqsDispatchQueue:
    """The send queue's jobs, through DelayedQueue."""

    def __init__(self, queue: DelayedQueue) -> None:
        self._queue = queue

    def enqueue(self, jobs: list[DispatchJob], *, not_before: datetime | None = None) -> None:
        self._queue.send(
            [(schedule_name(job), job.model_dump_json(exclude_none=True)) for job in jobs], not_before=not_before
        )

    def unschedule(self, message_id: str) -> None:
        self._queue.unschedule(f"send-{message_id}")
