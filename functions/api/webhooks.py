"""Webhook endpoints: /v3/webhooks (list, create), /v3/webhooks/{id} (get, PUT, DELETE),
/v3/webhooks/{id}/secret/rotate."""

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
from postline.webhooks.models import Webhook, WebhookCreate, WebhookUpdate, WebhookWithSecret
from postline.wiring import webhooks

router = Router()
WebhookId = Annotated[str, Path(min_length=1, max_length=64, description="The endpoint's id (wh_...).")]


@router.get("/v3/webhooks", summary="List webhook endpoints", tags=["Webhooks"])
def list_webhooks(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[Webhook]:
    return webhooks.webhook_service().list_page(principal(), page=page, per_page=per_page)


@router.post(
    "/v3/webhooks",
    summary="Create a webhook endpoint",
    tags=["Webhooks"],
    responses={
        201: {
            "description": "Created; an hmac `secret` is shown only here.",
            "content": {"application/json": {"model": WebhookWithSecret}},
        }
    },
)
def create_webhook(request: Annotated[WebhookCreate, Body()]) -> Response[WebhookWithSecret]:
    created = webhooks.webhook_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/webhooks/<id>", summary="Get a webhook endpoint", tags=["Webhooks"])
def get_webhook(id: WebhookId) -> Webhook:
    return webhooks.webhook_service().get(principal(), id)


@router.put("/v3/webhooks/<id>", summary="Update a webhook endpoint", tags=["Webhooks"], responses=RACED)
def update_webhook(id: WebhookId, request: Annotated[WebhookUpdate, Body()]) -> WebhookWithSecret:
    return webhooks.webhook_service().update(principal(), id, request)


@router.post("/v3/webhooks/<id>/secret/rotate", summary="Rotate the hmac signing secret", tags=["Webhooks"],
             responses=RACED)  # fmt: skip
def rotate_webhook_secret(id: WebhookId) -> WebhookWithSecret:
    return webhooks.webhook_service().rotate_secret(principal(), id)


@router.delete("/v3/webhooks/<id>", summary="Delete a webhook endpoint", tags=["Webhooks"])
def delete_webhook(id: WebhookId) -> DeleteConfirmation:
    return webhooks.webhook_service().delete(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
