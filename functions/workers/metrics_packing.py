"""Daily: packs each account's closed UTC days of metrics roll-ups into one item per series and day
(postline/metrics/packing.py); a run cut short is continued by the next."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import metrics
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    run = metrics.packing_service().run(lambda: context.get_remaining_time_in_millis() / 1000)
    return run.as_dict()
