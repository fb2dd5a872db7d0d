"""Subaccounts: /v3/subaccounts (list, create), /v3/subaccounts/{id} (get, PATCH, DELETE),
/v3/subaccounts/{id}/suspend and /v3/subaccounts/{id}/reactivate."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import RACED
from postline.http.params import PageNumber, PerPage
from postline.keys.models import DeleteConfirmation
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.subaccounts.models import Subaccount, SubaccountCreate, SubaccountUpdate
from postline.wiring import subaccounts

router = Router()
SubaccountId = Annotated[str, Path(min_length=1, max_length=64, description="The subaccount's id, or its slug.")]


@router.get("/v3/subaccounts", summary="List subaccounts", tags=["Subaccounts"])
def list_subaccounts(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[Subaccount]:
    return subaccounts.subaccount_service().list_page(principal(), page=page, per_page=per_page)


@router.post(
    "/v3/subaccounts",
    summary="Create a subaccount",
    tags=["Subaccounts"],
    responses={201: {"description": "Created.", "content": {"application/json": {"model": Subaccount}}}},
)
def create_subaccount(request: Annotated[SubaccountCreate, Body()]) -> Response[Subaccount]:
    created = subaccounts.subaccount_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/subaccounts/<id>", summary="Get a subaccount", tags=["Subaccounts"])
def get_subaccount(id: SubaccountId) -> Subaccount:
    return subaccounts.subaccount_service().get(principal(), id)


@router.patch("/v3/subaccounts/<id>", summary="Rename a subaccount", tags=["Subaccounts"], responses=RACED)
def update_subaccount(id: SubaccountId, request: Annotated[SubaccountUpdate, Body()]) -> Subaccount:
    return subaccounts.subaccount_service().update(principal(), id, request)


@router.post("/v3/subaccounts/<id>/suspend", summary="Suspend a subaccount", tags=["Subaccounts"], responses=RACED)
def suspend_subaccount(id: SubaccountId) -> Subaccount:
    return subaccounts.subaccount_service().suspend(principal(), id)


@router.post(
    "/v3/subaccounts/<id>/reactivate", summary="Reactivate a subaccount", tags=["Subaccounts"], responses=RACED
)
def reactivate_subaccount(id: SubaccountId) -> Subaccount:
    return subaccounts.subaccount_service().reactivate(principal(), id)


@router.delete("/v3/subaccounts/<id>", summary="Delete a subaccount", tags=["Subaccounts"], responses=RACED)
def delete_subaccount(id: SubaccountId) -> DeleteConfirmation:
    return subaccounts.subaccount_service().delete(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
