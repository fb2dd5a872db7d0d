"""Data removals (erasure): POST /v3/data-removals and GET /v3/data-removals/{id}."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.data_removals.models import DataRemoval, DataRemovalAccepted, DataRemovalBatchAccepted, DataRemovalRequest
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.wiring import data_removals

router = Router()

DESCRIPTION = (
    "Erases everything the account holds about an address: message bodies made unreadable (their data keys "
    "destroyed), recipient fields replaced by a keyed hash, events, verification results and activity, export "
    "files containing it, webhook delivery history. Suppression entries stay in keyed-hash form, so the address "
    "is still never mailed after an unsubscribe, complaint or bounce. `email` for one address (202 "
    "DataRemovalAccepted), or `emails` for up to 100 (202 with `items`). `include_subaccounts`: an organisation's "
    "parent erases in every subaccount too. Live keys only."
)


@router.post(
    "/v3/data-removals",
    summary="Request a data removal",
    description=DESCRIPTION,
    tags=["Data removals"],
    responses={
        202: {
            "description": "Accepted: pending.",
            "content": {"application/json": {"model": DataRemovalAccepted | DataRemovalBatchAccepted}},
        }
    },
)
def create_data_removal(
    request: Annotated[DataRemovalRequest, Body()],
) -> Response[DataRemovalAccepted | DataRemovalBatchAccepted]:
    accepted = data_removals.data_removal_service().request(principal(), request)
    return Response(status_code=202, content_type="application/json", body=accepted)


@router.get(
    "/v3/data-removals/<id>",
    summary="Get a data removal",
    description="pending → processing → done (counts and a receipt signed with the key at /.well-known/svc/keys) "
    "or failed. Once ended, `email` is masked: only the keyed hash of the address is kept.",
    tags=["Data removals"],
)
def get_data_removal(
    id: Annotated[str, Path(min_length=1, max_length=64, description="The removal's id.")],
) -> DataRemoval:
    return data_removals.data_removal_service().get(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
