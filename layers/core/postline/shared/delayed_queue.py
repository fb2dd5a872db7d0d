"""One SQS queue whose bodies are each delivered no earlier than their time: an SQS delay for waits up
to 15 minutes, else an EventBridge Scheduler one-time `at()` schedule whose target is the same queue
with the body as its input (Scheduler deletes it once it has fired). The send queue and the list
jobs' queue both use it."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.ports import Clock

SQS_MAX_DELAY = 900


_SQS_BATCH = 10


SCHEDULE_GROUP = "default"


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
