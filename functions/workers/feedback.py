"""The feedback queue's consumer: SES event notifications (via SNS) become events and states."""

import json

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from postline import wiring
from postline.wiring import delivery
from postline.workers import queue_worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


def apply(record: SQSRecord) -> None:
    body = json.loads(record.body)
    report = json.loads(body["Message"]) if body.get("Type") == "Notification" else body  # SNS envelope or raw
    delivery.feedback_service().apply(report)


handler = queue_worker(apply)
