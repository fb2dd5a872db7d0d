"""Every 5 minutes: re-checks the DNS records of sending domains whose next check is due."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import domains
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return {"checked": domains.domain_service().recheck_due()}
