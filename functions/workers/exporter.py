"""The export queue's consumer: writes each event export's CSV (one job per batch)."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.exports.domain import ExportMessage
from postline.observability import logger, metrics, tracer
from postline.wiring import exports

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


@tracer.capture_method(capture_response=False)  # one export's file: its queries and upload parts inside
def export(record: SQSRecord) -> None:
    job = ExportMessage.model_validate_json(record.body)
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(export_id=job.export_id, account_id=job.account_id)
    receive_count = int(record.attributes.approximate_receive_count)
    exports.export_service().run(job.account_id, job.export_id, receive_count=receive_count)


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=export, processor=processor, context=context)
