"""The events table's stream consumer that keeps each recipient's activity counters (the
ValidationResult's `activity`): one count per event, however often its record is delivered."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import verification
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    verification.activity_recorder().record_records(event["Records"])
