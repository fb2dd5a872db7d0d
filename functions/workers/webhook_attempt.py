"""The retry workflow's task: one scheduled attempt of a webhook delivery, if it is due."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import webhook_delivery

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
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
