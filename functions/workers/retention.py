"""Daily: deletes, permanently, each account's history from before its plan's window (retention/service.py)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import retention
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    run = retention.retention_service().run(lambda: context.get_remaining_time_in_millis() / 1000)
    return run.as_dict()
