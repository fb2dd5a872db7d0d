"""The resend queue's consumer: resolves resend jobs and makes each resend's single attempt.

A job message selects the deliveries and queues one attempt message per resend on this same
queue; an attempt can take 30 s, so they are spread over batches and containers.
"""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.webhook_resend.domain import ResendMessage
from postline.wiring import webhook_resend

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


def resend(record: SQSRecord) -> None:
    message = ResendMessage.model_validate_json(record.body)
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(
        resend_id=message.job_id, account_id=message.account_id, delivery_id=message.delivery_id
    )
    service = webhook_resend.webhook_resend_service()
    receive_count = int(record.attributes.approximate_receive_count)
    if message.delivery_id is None:
        service.run(message.account_id, message.job_id, receive_count=receive_count)
    else:
        service.attempt(message.account_id, message.job_id, message.delivery_id, receive_count=receive_count)


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=resend, processor=processor, context=context)
