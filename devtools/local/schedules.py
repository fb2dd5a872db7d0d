"""Schedules fired from the runtime's movable clock (moto stores schedules but never fires them).

- `RuleSchedule`: a function's `Type: Schedule` (EventBridge rule) or `Type: ScheduleV2`
  (EventBridge Scheduler) event in the template; invokes the function when due.
- `SchedulerSchedules`: one-time schedules that code creates at run time through the
  `scheduler` API, `at(...)` with an SQS queue as target; sends the target's Input to the
  queue when due, then deletes the schedule if its ActionAfterCompletion is DELETE.
- `QueueSchedule`: a template's own `AWS::Scheduler::Schedule` resource with an SQS queue as target
  (the relay's daily TLS-RPT job); sends its Input to the queue each time it is due.

When the clock jumps over several due times, a schedule fires once, like a machine waking up.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from devtools.local import expressions
from devtools.local.activity import Activity
from devtools.local.cloudformation import ACCOUNT_ID, REGION, Resolver, Template
from devtools.local.emulator import Emulator
from devtools.local.functions import LocalFunction, event_enabled

logger = logging.getLogger(__name__)


class _Recurring:
    """A recurring expression's next due time, taken once it has come (a jump over several fires once)."""

    def __init__(self, text: str, zone: str, start: datetime) -> None:
        self._expression = expressions.parse(text, zone)
        self._due = self._expression.next_after(start)

    def _take_due(self, now: datetime) -> datetime | None:
        due = self._due
        if due is None or due > now:
            return None
        self._due = self._expression.next_after(now)
        return due


class RuleSchedule(_Recurring):
    def __init__(
        self,
        function: LocalFunction,
        event_name: str,
        event_type: str,
        props: dict[str, Any],
        start: datetime,
        activity: Activity,
    ) -> None:
        self.name = f"{function.logical_id}.{event_name}"
        self._function = function
        self._event_type = event_type
        self._activity = activity
        self._input = props.get("Input")
        if event_type == "Schedule":
            text, zone = props["Schedule"], "UTC"  # EventBridge rules run in UTC
        else:
            text, zone = props["ScheduleExpression"], props.get("ScheduleExpressionTimezone", "UTC")
        super().__init__(text, zone, start)
        self._rule_arn = f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/{function.name}-{event_name}"

    def fire_due(self, now: datetime) -> None:
        due = self._take_due(now)
        if due is None:
            return
        with self._activity.working():
            try:
                self._function.invoke(self._payload(due))
            except Exception:
                logger.warning("%s failed", self.name, exc_info=True)

    def _payload(self, due: datetime) -> Any:
        if self._input is not None:
            return json.loads(self._input)
        if self._event_type == "ScheduleV2":
            return {}  # Scheduler's default notification is not emulated; set Input to rely on a payload
        return {  # what an EventBridge rule sends without Input
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": ACCOUNT_ID,
            "time": due.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": REGION,
            "resources": [self._rule_arn],
            "detail": {},
        }


def rule_schedules(functions: Iterable[LocalFunction], start: datetime, activity: Activity) -> list[RuleSchedule]:
    """One per enabled `Type: Schedule` or `Type: ScheduleV2` event; first due after `start`."""
    return [
        RuleSchedule(function, name, event["Type"], event["Properties"], start, activity)
        for function in functions
        for name, event in function.events.items()
        if event.get("Type") in ("Schedule", "ScheduleV2") and event_enabled(event["Properties"])
    ]


class SchedulerSchedules:
    """Runtime-created EventBridge Scheduler schedules, listed from the emulator again whenever one
    was written (its count of control writes), fired on the movable clock on every tick.

    The Ticker runs one tick at a time, so this keeps no lock of its own.
    """

    name = "EventBridge Scheduler"

    def __init__(self, emulator: Emulator, activity: Activity) -> None:
        self._emulator = emulator
        self._activity = activity
        # Both keyed by (arn, last modified), so an updated schedule is read and judged afresh.
        self._details: dict[tuple[str, datetime], dict[str, Any]] = {}
        self._finished: set[tuple[str, datetime]] = set()  # fired, or not something we can fire
        self._enabled: list[tuple[str, datetime]] = []  # as last listed
        self._listed_at = -1  # the emulator's count of control writes when they were listed

    def fire_due(self, now: datetime) -> None:
        written = self._emulator.control_writes()
        if written != self._listed_at:  # a schedule was written since: list them again
            self._list()
            self._listed_at = written
        for version in self._enabled:
            if version not in self._finished:
                self._fire_if_due(self._details[version], version, now)

    def _list(self) -> None:
        scheduler = self._emulator.client("scheduler")
        listed, enabled = set(), []
        for page in scheduler.get_paginator("list_schedules").paginate():
            for summary in page["Schedules"]:
                version = (summary["Arn"], summary["LastModificationDate"])
                listed.add(version)
                if summary.get("State") != "ENABLED" or version in self._finished:
                    continue
                if version not in self._details:
                    self._details[version] = scheduler.get_schedule(
                        Name=summary["Name"], GroupName=summary["GroupName"]
                    )
                enabled.append(version)
        # Forget schedules that were deleted or changed since.
        self._details = {version: detail for version, detail in self._details.items() if version in listed}
        self._finished &= listed
        self._enabled = enabled

    def _fire_if_due(self, schedule: dict[str, Any], version: tuple[str, datetime], now: datetime) -> None:
        expression = expressions.parse(
            schedule["ScheduleExpression"], schedule.get("ScheduleExpressionTimezone", "UTC")
        )
        target = schedule["Target"]
        if not isinstance(expression, expressions.At) or target["Arn"].split(":")[2] != "sqs":
            logger.warning(
                "schedule %s (%s -> %s) is not fired locally: only at() schedules with an SQS target are",
                schedule["Name"],
                schedule["ScheduleExpression"],
                target["Arn"],
            )
            self._finished.add(version)
            return
        if expression.instant > now:
            return
        with self._activity.working():
            self._send(schedule, expression.instant)
            if schedule.get("ActionAfterCompletion") == "DELETE":
                self._emulator.client("scheduler").delete_schedule(
                    Name=schedule["Name"], GroupName=schedule["GroupName"]
                )
        self._finished.add(version)
        self._details.pop(version, None)

    def _send(self, schedule: dict[str, Any], scheduled_time: datetime) -> None:
        target = schedule["Target"]
        queue_url = self._emulator.queue_url(target["Arn"])
        # Without an Input, AWS sends a notification of its own; locally, an empty JSON object.
        body = _with_context_attributes(target.get("Input", "{}"), schedule["Arn"], scheduled_time)
        request: dict[str, Any] = {"QueueUrl": queue_url, "MessageBody": body}
        if queue_url.endswith(".fifo"):
            request["MessageGroupId"] = (target.get("SqsParameters") or {}).get("MessageGroupId", "default")
            request["MessageDeduplicationId"] = hashlib.sha256(
                f"{schedule['Arn']}@{scheduled_time.isoformat()}".encode()
            ).hexdigest()
        self._emulator.client("sqs").send_message(**request)


class QueueSchedule(_Recurring):
    def __init__(
        self,
        logical_id: str,
        expression: str,
        zone: str,
        queue_arn: str,
        text: str,
        emulator: Emulator,
        start: datetime,
        activity: Activity,
    ) -> None:
        super().__init__(expression, zone, start)
        self.name = logical_id
        self._queue_arn = queue_arn
        self._input = text
        self._emulator = emulator
        self._activity = activity
        self._arn = f"arn:aws:scheduler:{REGION}:{ACCOUNT_ID}:schedule/default/{logical_id}"

    def fire_due(self, now: datetime) -> None:
        due = self._take_due(now)
        if due is None:
            return
        with self._activity.working():
            body = _with_context_attributes(self._input, self._arn, due)
            self._emulator.client("sqs").send_message(
                QueueUrl=self._emulator.queue_url(self._queue_arn), MessageBody=body
            )


def queue_schedules(
    template: Template, resolver: Resolver, emulator: Emulator, start: datetime, activity: Activity
) -> list[QueueSchedule]:
    """One per `AWS::Scheduler::Schedule` of the template whose target is an SQS queue; first due after
    `start`. (Locally a resource's Condition is not evaluated: the queue is there, so is its schedule.)"""
    found = []
    for logical_id, resource in template.of_type("AWS::Scheduler::Schedule").items():
        props = resource.get("Properties") or {}
        target = props.get("Target") or {}
        arn = str(resolver.resolve(target.get("Arn", "")))
        if arn.split(":")[2:3] != ["sqs"] or props.get("State", "ENABLED") != "ENABLED":
            continue
        found.append(
            QueueSchedule(
                logical_id,
                props["ScheduleExpression"],
                props.get("ScheduleExpressionTimezone", "UTC"),
                arn,
                target.get("Input", "{}"),
                emulator,
                start,
                activity,
            )
        )
    return found


def _with_context_attributes(text: str, schedule_arn: str, scheduled_time: datetime) -> str:
    """Scheduler replaces these placeholders in a target's Input when it fires."""
    replacements = {
        "<aws.scheduler.schedule-arn>": schedule_arn,
        "<aws.scheduler.scheduled-time>": scheduled_time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "<aws.scheduler.execution-id>": str(uuid.uuid4()),
        "<aws.scheduler.attempt-number>": "1",
    }
    for placeholder, value in replacements.items():
        text = text.replace(placeholder, value)
    return text
