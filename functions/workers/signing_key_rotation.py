"""Daily: rotates the Ed25519 webhook signing key when it is due; drops keys past their grace period."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import signing_keys
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def rotate(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    kid = signing_keys.signing_key_service().rotate()
    return {"rotated_to": kid}
