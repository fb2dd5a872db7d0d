"""The events table's stream consumer that keeps each recipient's activity counters (the
ValidationResult's `activity`): one count per event, however often its record is delivered."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import verification

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    verification.activity_recorder().record_records(event["Records"])
