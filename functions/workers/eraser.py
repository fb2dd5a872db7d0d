"""The data removal queue's consumer: erases one address in bounded batches (data_removals/service.py).
A run stops before the Lambda's end and queues its removal again, so any number of events fits."""

import json
from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger
from postline.wiring import data_removals
from postline.workers import partial_batch, worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    def erase(record: SQSRecord) -> None:
        job = json.loads(record.body)
        logger.thread_safe_append_keys(removal_id=job["removal_id"], account_id=job["account_id"])
        data_removals.data_removal_worker().run(
            job["account_id"],
            job["removal_id"],
            receive_count=int(record.attributes.approximate_receive_count),
            time_left=lambda: context.get_remaining_time_in_millis() / 1000,
        )

    return partial_batch(event, context, erase)
