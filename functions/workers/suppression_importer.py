"""The suppression import queue's consumer: reads each import's CSV on from its checkpoint (one job per batch)."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics, tracer
from postline.suppressions.imports import ImportMessage

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


@tracer.capture_method(capture_response=False)  # one import's chunks: their reads and writes inside
def run_import(record: SQSRecord) -> None:
    job = ImportMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(import_id=job.import_id, account_id=job.account_id)
    receive_count = int(record.attributes.approximate_receive_count)
    wiring.suppression_import_service().run(job.account_id, job.import_id, receive_count=receive_count)


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=run_import, processor=processor, context=context)
