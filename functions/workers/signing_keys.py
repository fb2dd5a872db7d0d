"""Daily: rotates the Ed25519 webhook signing key when it is due; drops keys past their grace period."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.observability import logger, metrics
from postline.wiring import signing_keys

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@logger.inject_lambda_context(clear_state=True)  # no key outlives its invocation
@metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
def rotate(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    kid = signing_keys.signing_key_service().rotate()
    return {"rotated_to": kid}
