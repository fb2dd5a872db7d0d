"""Cognito's pre token generation trigger for the console's user pool: adds account_id, env and
scope to the ID token (postline/auth/console_claims.py), so it is a console JWT the API accepts."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import auth
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return auth.console_sign_in(event)
