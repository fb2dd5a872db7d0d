"""The send queue's consumer: delivers each job, reporting the ones to retry (partial batch failures)."""

import uuid
from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from postline import wiring
from postline.delivery.service import Dispatcher
from postline.observability import logger, tracer
from postline.sending.dispatch_job import DispatchJob
from postline.wiring import delivery
from postline.workers import partial_batch, worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now

WORKER_ID = uuid.uuid4().hex[:12]  # this container, in lease owners


@tracer.capture_method(capture_response=False)  # one message's delivery, its AWS calls inside
def deliver(record: SQSRecord, dispatcher: Dispatcher) -> None:
    job = DispatchJob.model_validate_json(record.body)
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(message_id=job.message_id, attempt=job.attempt)
    dispatcher.dispatch(job, receive_count=int(record.attributes.approximate_receive_count))


def _message_ids(event: dict[str, Any]) -> list[str]:
    """The batch's message ids; a body that does not parse fails its own record in `deliver`."""
    ids = []
    for record in event.get("Records", []):
        try:
            ids.append(DispatchJob.model_validate_json(record["body"]).message_id)
        except (KeyError, ValidationError):
            continue
    return ids


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    dispatcher = delivery.dispatcher(WORKER_ID)
    dispatcher.prefetch(_message_ids(event))  # one BatchGetItem for the batch, not a GetItem per job

    def deliver_one(record: SQSRecord) -> None:
        deliver(record, dispatcher)

    with dispatcher.batch():
        return partial_batch(event, context, deliver_one)
