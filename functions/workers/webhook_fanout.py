"""The events table's stream consumer: each new event's webhook deliveries and first attempts.

The whole batch is one unit: a failure re-runs it, and the deliveries' deterministic ids make
the second run skip what the first one finished.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import webhook_delivery

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    webhook_delivery.webhook_deliverer().fan_out_records(
        event["Records"], remaining_ms=context.get_remaining_time_in_millis
    )
