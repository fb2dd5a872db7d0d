"""The list job queue's consumer: removes a deleted list's members, a bounded number of pages per
message, queueing the rest (postline/lists/service.py `remove_members`); and sends a list send's
next pages from its checkpoint (postline/lists/send_service.py)."""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.lists.job_queue import ListJobMessage
from postline.observability import logger, metrics, tracer
from postline.wiring import lists, sending

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

processor = BatchProcessor(event_type=EventType.SQS)


@tracer.capture_method(capture_response=False)
def run_job(record: SQSRecord) -> None:
    job = ListJobMessage.model_validate_json(record.body)
    logger.thread_safe_append_keys(list_id=job.list_id, account_id=job.account_id, kind=job.kind)
    if job.kind == "send":
        if job.send_id is None:  # never written so; dropped rather than read as a deletion
            logger.error("a list send message without its send_id: dropped")
            return
        receive_count = int(record.attributes.approximate_receive_count)
        sending.list_send_service().run(job.account_id, job.send_id, receive_count=receive_count)
        return
    done = lists.list_service().remove_members(job.account_id, job.list_id)
    logger.info("list members removed", extra={"done": done})


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=run_job, processor=processor, context=context)
