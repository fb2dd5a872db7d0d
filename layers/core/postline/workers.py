"""The Lambda entry of every worker (functions/workers/), as http/app.py's `lambda_handler` is every
route's: the Logger's context (its keys cleared per invocation, so none outlives it), the Tracer's
handler segment, and the invocation's metrics published as it ends. Queue consumers report partial
batch failures through Powertools' batch processor: a failed record is retried alone, the others
are deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline.observability import logger, metrics, tracer

_R = TypeVar("_R")
Handler = Callable[[dict[str, Any], LambdaContext], _R]
RecordHandler = Callable[[SQSRecord], None]


def worker(handler: Handler[_R]) -> Handler[_R]:
    """A worker's entry point around `handler`."""
    traced = tracer.capture_lambda_handler(handler, capture_response=False)
    published = metrics.log_metrics(traced, capture_cold_start_metric=True, raise_on_empty_metrics=False)
    entry: Handler[_R] = logger.inject_lambda_context(published, clear_state=True)
    return entry


def partial_batch(
    event: dict[str, Any], context: LambdaContext, record_handler: RecordHandler
) -> PartialItemFailureResponse:
    """Runs `record_handler` on each record of an SQS batch; the ones that raised are reported for
    retry (`batchItemFailures`), and the invocation fails only when every record did."""
    processor = BatchProcessor(event_type=EventType.SQS)
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def queue_worker(record_handler: RecordHandler) -> Handler[PartialItemFailureResponse]:
    """The entry point of a queue consumer whose records are handled one by one."""

    def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
        return partial_batch(event, context, record_handler)

    return worker(handler)
