"""GET /v3/whoami: the resolved identity, for smoke-testing credentials."""

from aws_lambda_powertools.event_handler.api_gateway import Router

from postline import wiring
from postline.auth.models import Identity, identity_of
from postline.http.app import lambda_handler
from postline.http.context import principal

router = Router()


@router.get("/v3/whoami", summary="Who am I", tags=["Identity"])
def whoami() -> Identity:
    return identity_of(principal())


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
