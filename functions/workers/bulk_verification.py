"""The bulk verification queue's consumer: one chunk of a job per message."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.verification.bulk import ChunkMessage
from postline.wiring import verification

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


def check_chunk(record: SQSRecord) -> None:
    message = ChunkMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(job_id=message.job_id, account_id=message.account_id, chunk=message.chunk)
    verification.bulk_verification_service().run_chunk(message)


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=check_chunk, processor=processor, context=context)
