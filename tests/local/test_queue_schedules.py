"""A template's own EventBridge Scheduler schedule with a queue target, fired from the runtime's clock:
the relay's daily TLS-RPT job (TlsReportSchedule -> RelayQueue), with the scheduled time filled in."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml

from devtools.local.activity import Activity
from devtools.local.schedules import QueueSchedule
from postline.tlsrpt.models import TlsReportJob
from tests.aws_stack import ROOT, InProcessStack


class _Emulator:
    """What a QueueSchedule asks of the emulator, over the in-process stack."""

    def __init__(self, stack: InProcessStack) -> None:
        self._stack = stack

    def client(self, service: str) -> Any:
        return self._stack.client(service)

    def queue_url(self, queue_arn: str) -> str:
        url: str = self.client("sqs").get_queue_url(QueueName=queue_arn.rsplit(":", 1)[-1])["QueueUrl"]
        return url


def test_the_daily_tls_report_job_is_queued_once_each_day_at_its_time(stack: InProcessStack) -> None:
    props = yaml.safe_load((ROOT / "template.yaml").read_text())["Resources"]["TlsReportSchedule"]["Properties"]
    start = datetime.now(UTC)
    schedule = QueueSchedule(
        "TlsReportSchedule",
        props["ScheduleExpression"],
        props["ScheduleExpressionTimezone"],
        stack.env["RELAY_QUEUE_ARN"],
        props["Target"]["Input"],
        _Emulator(stack),  # type: ignore[arg-type]
        start,
        Activity(),
    )
    due = datetime.combine(start.date(), datetime.min.time(), tzinfo=UTC) + timedelta(hours=1, minutes=30)
    if due <= start:
        due += timedelta(days=1)
    sqs, url = stack.client("sqs"), stack.env["RELAY_QUEUE_URL"]
    schedule.fire_due(due - timedelta(seconds=1))
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages") is None
    schedule.fire_due(due + timedelta(hours=30))  # the machine slept past two due times: it fires once
    [message] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert TlsReportJob.is_one(message["Body"])
    job = TlsReportJob.model_validate_json(message["Body"])
    assert job.scheduled_at == due and job.day is None
    assert json.loads(message["Body"])["kind"] == "tls_reports"
    schedule.fire_due(due + timedelta(hours=30))  # not due again until the next 01:30
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages") is None
