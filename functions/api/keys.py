"""API keys: /v3/keys (list, create), /v3/keys/{id} (get, PATCH, DELETE), /v3/keys/{id}/rotate."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import RACED
from postline.http.params import PageNumber, PerPage
from postline.keys.models import DeleteConfirmation, KeyCreate, KeyCreated, KeyDetail, KeyRotated, KeyUpdate
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.wiring import keys

router = Router()
KeyId = Annotated[str, Path(min_length=1, max_length=64, description="The key's id.")]


@router.get("/v3/keys", summary="List API keys", tags=["Keys"])
def list_keys(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[KeyDetail]:
    return keys.key_service().list_page(principal(), page=page, per_page=per_page)


@router.post(
    "/v3/keys",
    summary="Create an API key",
    tags=["Keys"],
    responses={
        201: {
            "description": "Created; `key` is shown only here.",
            "content": {"application/json": {"model": KeyCreated}},
        }
    },
)
def create_key(request: Annotated[KeyCreate, Body()]) -> Response[KeyCreated]:
    created = keys.key_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/keys/<id>", summary="Get an API key", tags=["Keys"])
def get_key(id: KeyId) -> KeyDetail:
    return keys.key_service().get(principal(), id)


@router.patch("/v3/keys/<id>", summary="Change a key's scope and settings", tags=["Keys"], responses=RACED)
def update_key(id: KeyId, request: Annotated[KeyUpdate, Body()]) -> KeyDetail:
    return keys.key_service().update(principal(), id, request)


@router.post("/v3/keys/<id>/rotate", summary="Rotate a key's secret", tags=["Keys"], responses=RACED)
def rotate_key(id: KeyId) -> KeyRotated:
    return keys.key_service().rotate(principal(), id)


@router.delete("/v3/keys/<id>", summary="Delete (revoke) an API key", tags=["Keys"])
def delete_key(id: KeyId) -> DeleteConfirmation:
    return keys.key_service().delete(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
