"""The feedback queue's consumer: SES event notifications (via SNS) become events and states."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import delivery

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


def apply(record: SQSRecord) -> None:
    body = json.loads(record.body)
    report = json.loads(body["Message"]) if body.get("Type") == "Notification" else body  # SNS envelope or raw
    delivery.feedback_service().apply(report)


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=apply, processor=processor, context=context)
