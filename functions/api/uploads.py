"""Hosted uploads: /v3/uploads (list, create), /v3/uploads/{id} (get, PATCH, DELETE),
/v3/uploads/{id}/complete, /v3/uploads/{id}/download-link, and the hosted link
/v3/track/download/{token} (no key; GET and HEAD)."""

import inspect
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import ErrorBody, conflict_response, raced
from postline.keys.models import DeleteConfirmation
from postline.shared.scanners import DELIVERED_PARAM, Visitor, delivery_of
from postline.uploads.models import (
    UploadCreate,
    UploadCreated,
    UploadDownloadLink,
    UploadList,
    UploadOut,
    UploadUpdate,
)
from postline.wiring import uploads

router = Router()
P = ParamSpec("P")
R = TypeVar("R")
UploadId = Annotated[str, Path(min_length=1, max_length=64, description="The upload's id (up_...).")]
Token = Annotated[str, Path(min_length=10, max_length=512, description="The signed token of the hosted link.")]
Delivered = Annotated[
    int | None,
    Query(
        alias=DELIVERED_PARAM,
        ge=0,
        le=10**11,
        description="Set by a click redirect: the message's delivery (Unix seconds), for the scanner timing rule.",
    ),
]
GONE: OpenAPIResponse = {
    "description": "gone: the upload expired; its file is deleted.",
    "content": {"application/json": {"model": ErrorBody}},
}
EXPIRES = {410: GONE}
NO_STORE = {
    "Cache-Control": "no-store, max-age=0",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@router.get("/v3/uploads", summary="List uploads", tags=["Uploads"])
def list_uploads() -> UploadList:
    return uploads.upload_service().list(principal())


@router.post(
    "/v3/uploads",
    summary="Create an upload",
    tags=["Uploads"],
    responses={201: {"description": "Created.", "content": {"application/json": {"model": UploadCreated}}}},
)
def create_upload(request: Annotated[UploadCreate, Body()]) -> Response[UploadCreated]:
    created = uploads.upload_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get(
    "/v3/uploads/<id>", summary="Get an upload", tags=["Uploads"], responses={200: {"description": "OK"}, **EXPIRES}
)
def get_upload(id: UploadId) -> UploadOut:
    return uploads.upload_service().get(principal(), id)


@router.patch("/v3/uploads/<id>", summary="Update an upload", tags=["Uploads"], responses={**raced(), **EXPIRES})
def update_upload(id: UploadId, request: Annotated[UploadUpdate, Body()]) -> UploadOut:
    return uploads.upload_service().update(principal(), id, request)


@router.delete("/v3/uploads/<id>", summary="Delete an upload", tags=["Uploads"], responses={**raced(), **EXPIRES})
def delete_upload(id: UploadId) -> DeleteConfirmation:
    return uploads.upload_service().delete(principal(), id)


@router.post(
    "/v3/uploads/<id>/complete",
    summary="Complete a presigned upload",
    tags=["Uploads"],
    responses={
        200: {"description": "OK"},
        409: conflict_response("the file has not arrived in S3 yet: POST it to the upload URL, then retry"),
        **EXPIRES,
    },
)
def complete_upload(id: UploadId) -> UploadOut:
    return uploads.upload_service().complete(principal(), id)


@router.get(
    "/v3/uploads/<id>/download-link",
    summary="A short-lived download link",
    tags=["Uploads"],
    responses={200: {"description": "OK"}, **EXPIRES},
)
def get_upload_download_link(id: UploadId) -> UploadDownloadLink:
    return uploads.upload_service().download_link(principal(), id)


def _not_json(route: Callable[P, R]) -> Callable[P, R]:
    """Keeps Powertools from treating the (empty) redirect as JSON (as functions/api/tracking.py)."""
    route.__signature__ = inspect.signature(route).replace(  # type: ignore[attr-defined]
        return_annotation=inspect.Signature.empty
    )
    return route


def _redirect(token: str, delivered: int | None) -> Response[str]:
    event = APIGatewayProxyEvent(router.current_event.raw_event)
    visitor = Visitor.of_request(event.headers, event.request_context.identity.source_ip, event.http_method)
    delivered_at = delivery_of(str(delivered)) if delivered is not None else None
    target = uploads.upload_service().follow(token, visitor, delivered_at)
    return Response(status_code=302, content_type="text/plain", body="", headers={"Location": target, **NO_STORE})


REDIRECT: dict[int, OpenAPIResponse] = {
    302: {"description": "Redirect to a short-lived S3 URL of the file (an attachment, never shown inline)."},
    410: GONE,
}


@router.get("/v3/track/download/<token>", summary="Hosted upload link", tags=["Uploads"], responses=REDIRECT)
@_not_json
def download_upload(token: Token, delivered: Delivered = None) -> Response[str]:
    return _redirect(token, delivered)


@router.head("/v3/track/download/<token>", summary="Hosted upload link (HEAD: a scanner's probe)", tags=["Uploads"],
             responses=REDIRECT)  # fmt: skip
@_not_json
def probe_upload(token: Token, delivered: Delivered = None) -> Response[str]:
    return _redirect(token, delivered)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
