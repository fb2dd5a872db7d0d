"""The retry workflow's task: one scheduled attempt of a webhook delivery, if it is due."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger
from postline.wiring import webhook_delivery
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    delivery_id = str(event["delivery_id"])
    # A context variable: no other invocation running beside this one logs it.
    logger.thread_safe_append_keys(delivery_id=delivery_id)
    over, due = webhook_delivery.webhook_deliverer().attempt(delivery_id)
    return {
        "delivery_id": delivery_id,
        "done": over,
        "next_attempt_at": due.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if due else None,
    }
