"""Webhook delivery history, resends and samples: GET /v3/webhooks/{id}/deliveries,
POST /v3/webhooks/deliveries/resend, GET /v3/webhooks/deliveries/resend/{id}, POST /v3/webhooks/{id}/test."""

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from postline import wiring
from postline.events.query import PublicEventType
from postline.http import params
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import ErrorBody
from postline.webhook_delivery.domain import DeliveryStatus
from postline.webhook_delivery.history import DEFAULT_LIMIT, MAX_LIMIT, delivery_filters
from postline.webhook_delivery.models import WebhookDeliveryPage, WebhookDeliveryView
from postline.webhook_delivery.samples import SampleRequest
from postline.webhook_resend.models import ResendJobView, ResendRequest
from postline.wiring import webhook_delivery, webhook_resend

router = Router()

RESEND_DESCRIPTION = (
    "Re-delivers recorded deliveries, each as a new manual delivery with a single attempt "
    "(X-Webhook-Attempt 1) that is never retried and never counts toward the endpoint's failure streak "
    "(a success resets it). Give exactly one of `delivery_ids` (1-100, all or nothing) and `filter` "
    "(one endpoint's original deliveries, default status failed, at most 10,000 or the job stops with "
    "error_message and resends nothing). Reach-back: 90 days, bounded by the plan's history retention. "
    "`endpoint_id` sends them all to another enabled endpoint; by default each goes back to its own "
    "endpoint (400 if it was deleted or is disabled) or to its message's webhook_url. Runs asynchronously: "
    "poll GET /v3/webhooks/deliveries/resend/{id}."
)


@router.get(
    "/v3/webhooks/<id>/deliveries",
    summary="List an endpoint's deliveries, newest first",
    description="Each delivery with its attempts (outcome, response code, latency); the payload is not shown. "
    "History follows the plan's retention: a `since` older than it is clamped. Repeat with "
    "`cursor=next_cursor` and the same filters until `has_more` is false. A page reads for at most 5 s: "
    "with status or event filters matching few deliveries it may hold fewer than `limit` deliveries, even "
    "none, while `has_more` is true; its cursor continues after what it read.",
    tags=["Webhooks"],
)
def list_webhook_deliveries(
    id: Annotated[str, Path(min_length=1, max_length=64, description="The endpoint's id (wh_...).")],
    status: Annotated[DeliveryStatus | None, Query(description="One delivery status.")] = None,
    event: Annotated[PublicEventType | None, Query(description="One event type.")] = None,
    since: Annotated[datetime | None, params.since("Created")] = None,
    until: Annotated[datetime | None, params.until("Created")] = None,
    limit: Annotated[int, params.limit(MAX_LIMIT, DEFAULT_LIMIT)] = DEFAULT_LIMIT,
    cursor: params.Cursor = None,
) -> WebhookDeliveryPage:
    filters = delivery_filters(status=status, event=event, since=since, until=until)
    return webhook_delivery.delivery_history_service().list_page(principal(), id, filters, limit=limit, cursor=cursor)


@router.post(
    "/v3/webhooks/deliveries/resend",
    summary="Resend webhook deliveries",
    description=RESEND_DESCRIPTION,
    tags=["Webhooks"],
    responses={
        202: {"description": "Accepted: the queued job.", "content": {"application/json": {"model": ResendJobView}}},
        400: {
            "description": "invalid_json or validation_error: an invalid body, a delivery older than the resend "
            "window, or a destination (endpoint_id, filter.endpoint_id) or a delivery's own endpoint that is "
            "disabled or was deleted; the message names the field and the ids.",
            "content": {"application/json": {"model": ErrorBody}},
        },
    },
)
def resend_webhook_deliveries(request: Annotated[ResendRequest, Body()]) -> Response[ResendJobView]:
    job = webhook_resend.webhook_resend_service().start(principal(), request)
    return Response(status_code=202, content_type="application/json", body=job)


@router.post(
    "/v3/webhooks/<id>/test",
    summary="Send the endpoint a sample event",
    description="A sample event of the given type (default: the first type the endpoint subscribes to) is "
    "delivered to this enabled endpoint as a real one is (the same payload shape, signatures, auth and "
    "egress addresses), marked `data.test` and `data.sample`, with ids no real message has (`msg_sample_...`). "
    "It is a manual delivery: one attempt, never retried, never counted toward the endpoint's failure streak. "
    "Answers 202 with the delivery; its attempt appears in GET /v3/webhooks/{id}/deliveries within seconds.",
    tags=["Webhooks"],
    responses={
        202: {
            "description": "Accepted: the sample's delivery.",
            "content": {"application/json": {"model": WebhookDeliveryView}},
        },
        400: {
            "description": "invalid_json or validation_error: an invalid body, or the endpoint is disabled.",
            "content": {"application/json": {"model": ErrorBody}},
        },
    },
)
def send_sample_event(
    id: Annotated[str, Path(min_length=1, max_length=64, description="The endpoint's id (wh_...).")],
    request: Annotated[SampleRequest | None, Body()] = None,
) -> Response[WebhookDeliveryView]:
    sent = webhook_delivery.sample_deliveries().send(principal(), id, request or SampleRequest())
    return Response(status_code=202, content_type="application/json", body=sent)


@router.get("/v3/webhooks/deliveries/resend/<id>", summary="Get a resend job", tags=["Webhooks"])
def get_webhook_resend(
    id: Annotated[str, Path(min_length=1, max_length=64, description="The resend job's id (rsd_...).")],
) -> ResendJobView:
    return webhook_resend.webhook_resend_service().get(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
