"""GET /v3/usage: plan, quota, this period's counters and the rate limit."""

from aws_lambda_powertools.event_handler.api_gateway import Router

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.usage.models import Usage
from postline.wiring import usage

router = Router()


@router.get("/v3/usage", summary="Usage and quota", tags=["Usage"])
def get_usage() -> Usage:
    return usage.usage_service().get(principal())


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
