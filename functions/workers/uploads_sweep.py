"""Every 5 minutes: settles presigned uploads whose file arrived without a `complete`, releases those
whose window ended without one, and expires uploads past expires_at (uploads/service.py `sweep`)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import uploads
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return uploads.upload_service().sweep(lambda: context.get_remaining_time_in_millis() / 1000)
