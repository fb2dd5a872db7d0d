"""Address verification: POST /v3/validate (one address, every check, one credit)."""

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import ErrorBody
from postline.verification.models import ValidateRequest, ValidationResult

router = Router()


@router.post(
    "/v3/validate",
    summary="Verify one address: syntax, DNS, disposable/free/role, typo, mailbox (SMTP), domain age",
    tags=["Verification"],
    responses={
        200: {
            "description": "The verdict and every check.",
            "content": {"application/json": {"model": ValidationResult}},
        },
        402: {
            "description": "insufficient_credits: a live key with no verification credits left; nothing was checked.",
            "content": {"application/json": {"model": ErrorBody}},
        },
    },
)
def validate(request: Annotated[ValidateRequest, Body()]) -> ValidationResult:
    return wiring.validation_service().validate(principal(), request)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
