"""The events table's stream consumer for metrics: each new event into its account's roll-ups.

Exactly once: the batch's writes and each events partition's new watermark go in one transaction
(postline/metrics/store.py), so a failure re-runs the batch and it skips what was committed.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import metrics as metrics_root

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    metrics_root.rollup_service().consume(event["Records"])
