"""The events table's stream consumer for metrics: each new event into its account's roll-ups.

Exactly once: the batch's writes and each events partition's new watermark go in one transaction
(postline/metrics/store.py), so a failure re-runs the batch and it skips what was committed.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import metrics
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    metrics.rollup_service().consume(event["Records"])
