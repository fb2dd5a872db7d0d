"""The send queue (SQS) and, for waits longer than SQS can delay, EventBridge Scheduler.

A job due within `max_delay_seconds` (SQS allows 900) is sent with DelaySeconds; a later one
becomes a one-time `at()` schedule whose target is the same queue with the job as its input,
deleted by Scheduler once it has fired.
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.delivery.parcels import DispatchJob
from postline.shared.ports import Clock

SQS_MAX_DELAY = 900
_SQS_BATCH = 10
SCHEDULE_GROUP = "default"


def schedule_name(job: DispatchJob) -> str:
    """Unique per message, attempt and recipients; the first attempt of a message is findable by id."""
    if job.attempt == 1 and job.recipients is None:
        return f"send-{job.message_id}"
    recipients = hashlib.sha256("|".join(job.recipients or []).encode()).hexdigest()[:12]
    return f"send-{job.message_id}-{job.attempt}-{recipients}"


class DelayedQueue:
    """One SQS queue, each body delivered no earlier than its time: an SQS delay up to
    `max_delay_seconds`, else a named one-time schedule (creating it again is a no-op)."""

    def __init__(
        self,
        sqs: Any,
        scheduler: Any,
        *,
        queue_url: str,
        queue_arn: str,
        scheduler_role_arn: str,
        clock: Clock,
        max_delay_seconds: int = SQS_MAX_DELAY,
    ) -> None:
        self._sqs = sqs
        self._scheduler = scheduler
        self._queue_url = queue_url
        self._queue_arn = queue_arn
        self._role_arn = scheduler_role_arn
        self._clock = clock
        self._max_delay = min(max_delay_seconds, SQS_MAX_DELAY)

    def send(self, bodies: list[tuple[str, str]], *, not_before: datetime | None = None) -> None:
        """Sends each (schedule name, body); the name matters only for a wait longer than SQS's."""
        delay = 0
        if not_before is not None:
            delay = max(0, math.ceil((not_before - self._clock.now()).total_seconds()))
        if delay > self._max_delay and not_before is not None:
            for name, body in bodies:
                self._schedule(name, body, not_before)
            return
        for start in range(0, len(bodies), _SQS_BATCH):
            chunk = bodies[start : start + _SQS_BATCH]
            entries = [{"Id": str(i), "MessageBody": body, "DelaySeconds": delay} for i, (_, body) in enumerate(chunk)]
            response = self._sqs.send_message_batch(QueueUrl=self._queue_url, Entries=entries)
            if response.get("Failed"):
                reasons = {failure.get("Code") for failure in response["Failed"]}
                raise RuntimeError(f"SQS refused {len(response['Failed'])} of {len(chunk)} jobs: {reasons}")

    def unschedule(self, name: str) -> None:
        try:
            self._scheduler.delete_schedule(Name=name, GroupName=SCHEDULE_GROUP)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                raise

    def _schedule(self, name: str, body: str, at: datetime) -> None:
        when = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
        try:
            self._scheduler.create_schedule(
                Name=name,
                GroupName=SCHEDULE_GROUP,
                ScheduleExpression=f"at({when})",
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                ActionAfterCompletion="DELETE",
                Target={"Arn": self._queue_arn, "RoleArn": self._role_arn, "Input": body},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConflictException":
                raise  # already scheduled by an earlier try of the same step


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
