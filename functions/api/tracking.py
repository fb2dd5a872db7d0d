"""Tracking links in delivered mail (no API key): the open pixel, click redirects and RFC 8058
one-click unsubscribe (POST; GET shows a page with the button, since mail scanners follow GETs)."""

import inspect
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from postline import wiring
from postline.http.app import lambda_handler
from postline.shared.errors import NotFound
from postline.tracking.domain import Visitor
from postline.tracking.pages import PIXEL, UNSUBSCRIBED, unsubscribe_form
from postline.wiring import tracking

router = Router()
P = ParamSpec("P")
R = TypeVar("R")
Token = Annotated[str, Path(min_length=10, max_length=4096, description="The signed token from the link.")]
NO_STORE = {"Cache-Control": "no-store, max-age=0"}


def _not_json(route: Callable[P, R]) -> Callable[P, R]:
    """Keeps Powertools from treating the body as JSON (its response validation serializes to
    JSON, which a GIF cannot be; its OpenAPI would document application/json). mypy keeps the type."""
    route.__signature__ = inspect.signature(route).replace(  # type: ignore[attr-defined]
        return_annotation=inspect.Signature.empty
    )
    return route


def _visitor() -> Visitor:
    event = APIGatewayProxyEvent(router.current_event.raw_event)
    return Visitor.of_request(event.headers, event.request_context.identity.source_ip)


@router.get(
    "/v3/track/open/<token>",
    summary="Open pixel",
    tags=["Tracking"],
    responses={200: {"description": "A 1x1 transparent GIF.", "content": {"image/gif": {}}}},
)
@_not_json
def track_open(token: Token) -> Response[bytes]:
    tracking.tracking_service().open(token, _visitor())
    # A bad token still gets the pixel: a broken image in someone's mail helps nobody.
    return Response(status_code=200, content_type="image/gif", body=PIXEL, headers=NO_STORE)


@router.get(
    "/v3/track/click/<token>",
    summary="Click redirect",
    tags=["Tracking"],
    responses={302: {"description": "Redirect to the link that was in the message."}},
)
@_not_json
def track_click(token: Token) -> Response[str]:
    target = tracking.tracking_service().click(token, _visitor())
    if target is None:
        raise NotFound("This link is not valid.")
    return Response(status_code=302, content_type="text/plain", body="", headers={"Location": target, **NO_STORE})


HTML_PAGE: OpenAPIResponse = {"description": "An HTML page.", "content": {"text/html": {"schema": {"type": "string"}}}}


@router.get("/v3/track/unsubscribe/<token>", summary="Unsubscribe page", tags=["Tracking"], responses={200: HTML_PAGE})
@_not_json
def unsubscribe_page(token: Token) -> Response[str]:
    page = unsubscribe_form(token)
    return Response(status_code=200, content_type="text/html; charset=utf-8", body=page, headers=NO_STORE)


@router.post(
    "/v3/track/unsubscribe/<token>",
    summary="One-click unsubscribe (RFC 8058)",
    tags=["Tracking"],
    responses={200: HTML_PAGE},
)
@_not_json
def unsubscribe(token: Token) -> Response[str]:
    if not tracking.tracking_service().unsubscribe(token):
        raise NotFound("This unsubscribe link is not valid.")
    return Response(status_code=200, content_type="text/html; charset=utf-8", body=UNSUBSCRIBED, headers=NO_STORE)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
