"""The suppression job queue's consumer: reads an import's CSV on from its checkpoint, or writes an
export's CSV (one job per batch)."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics, tracer
from postline.suppressions.job_queue import SuppressionJobMessage
from postline.wiring import suppressions

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


@tracer.capture_method(capture_response=False)  # one job's reads and writes inside
def run_job(record: SQSRecord) -> None:
    job = SuppressionJobMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(job_id=job.job_id, kind=job.kind, account_id=job.account_id)
    receive_count = int(record.attributes.approximate_receive_count)
    if job.kind == "import":
        suppressions.suppression_import_service().run(job.account_id, job.job_id, receive_count=receive_count)
    else:
        suppressions.suppression_export_service().run(job.account_id, job.job_id, receive_count=receive_count)


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=run_job, processor=processor, context=context)
