"""The events table's stream consumer: each new event's webhook deliveries and first attempts.

The whole batch is one unit: a failure re-runs it, and the deliveries' deterministic ids make
the second run skip what the first one finished.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import webhook_delivery
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    webhook_delivery.webhook_deliverer().fan_out_records(
        event["Records"], remaining_ms=context.get_remaining_time_in_millis
    )
