"""Sending: POST /v3/messages, POST /v3/messages.batch, GET and DELETE /v3/messages/{id}, and the
scheduled sends, GET /v3/messages/scheduled (soonest first)."""

from typing import Annotated, TypeVar

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Header, Path

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import confirmation, principal
from postline.http.errors import conflict_response
from postline.http.params import PageNumber, PerPage
from postline.lists.sends import ListSendResult
from postline.sending.domain import IdempotentCall
from postline.sending.models import (
    BatchSendRequest,
    BatchSendResult,
    MessageAccepted,
    MessageView,
    ScheduledMessage,
    ScheduledMessageCancellation,
    SendRequest,
)
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.wiring import sending

router = Router()
MessageId = Annotated[str, Path(min_length=1, max_length=64, description="The message's id (msg_...).")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Makes retries safe: a replay returns the first result; 409 while the first still runs.",
    ),
]


Accepted = TypeVar("Accepted")
TO_LIST = " A `to` that is one of the account's mailing lists' addresses answers ListSendResult (README)."
IN_PROGRESS = conflict_response("the first request with this Idempotency-Key still runs", "idempotency_in_progress")


def _accepted(body: Accepted) -> Response[Accepted]:
    return Response(status_code=202, content_type="application/json", body=body)


def _idempotent(key: str | None) -> IdempotentCall | None:
    """The Idempotency-Key with the body as sent, which a replay must repeat."""
    if key is None:
        return None
    remaining = router.lambda_context.get_remaining_time_in_millis if router.lambda_context else None
    return IdempotentCall(key, router.current_event.json_body, remaining)


@router.post(
    "/v3/messages",
    summary="Send a message",
    tags=["Messages"],
    responses={
        202: {
            "description": "Accepted: queued for delivery." + TO_LIST,
            "content": {"application/json": {"model": MessageAccepted | ListSendResult}},
        },
        409: IN_PROGRESS,
    },
)
def send_message(
    request: Annotated[SendRequest, Body()], idempotency_key: IdempotencyKey = None
) -> Response[MessageAccepted | ListSendResult]:
    # On a warm instance the principal may be the key's remembered one, its admission still running
    # (auth/speculation.py): the send joins it before it stores anything.
    send = sending.send_service().send(principal(), request, _idempotent(idempotency_key), confirm=confirmation())
    return _accepted(send)


@router.post(
    "/v3/messages.batch",
    summary="Send a batch of up to 5,000 personalized messages",
    tags=["Messages"],
    responses={
        202: {
            "description": "Accepted: the valid recipients are queued." + TO_LIST,
            "content": {"application/json": {"model": BatchSendResult | ListSendResult}},
        },
        409: IN_PROGRESS,
    },
)
def send_batch(
    request: Annotated[BatchSendRequest, Body()], idempotency_key: IdempotencyKey = None
) -> Response[BatchSendResult | ListSendResult]:
    return _accepted(sending.send_service().send_batch(principal(), request, _idempotent(idempotency_key)))


@router.get("/v3/messages/scheduled", summary="List scheduled sends, soonest first", tags=["Messages"])
def list_scheduled(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[ScheduledMessage]:
    return sending.send_service().scheduled(principal(), page=page, per_page=per_page)


@router.get("/v3/messages/<id>", summary="Get a message and its status", tags=["Messages"])
def get_message(id: MessageId) -> MessageView:
    return sending.send_service().get(principal(), id)


@router.delete("/v3/messages/<id>", summary="Cancel a scheduled send", tags=["Messages"])
def cancel_message(id: MessageId) -> ScheduledMessageCancellation:
    return sending.send_service().cancel(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
