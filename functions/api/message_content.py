"""POST /v3/messages/check (a send's body, checked without sending) and GET /v3/messages/{id}/content
(each recipient's copy as handed over, parsed and raw, and a test-mode message's check)."""

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.content_checks.domain import ContentCheck
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.message_content.models import MessageContent
from postline.sending.models import SendRequest
from postline.wiring import content_checks

router = Router()
MessageId = Annotated[str, Path(min_length=1, max_length=64, description="The message's id (msg_...).")]


@router.post(
    "/v3/messages/check",
    summary="Check a message before sending it",
    description="Takes exactly the body of POST /v3/messages (template and vars included), renders the first "
    "recipient's copy as delivery would and checks it: SpamAssassin, authentication, the Gmail/Yahoo bulk-sender "
    "rules and content, each with a weight, a pass/warn/fail and a fix, and an overall 0-100 score and verdict "
    "(README: Checking content). Nothing is sent, stored or counted.",
    tags=["Messages"],
)
def check_message(request: Annotated[SendRequest, Body()]) -> ContentCheck:
    return content_checks.message_content_service().check(principal(), request)


@router.get(
    "/v3/messages/<id>/content",
    summary="Get a message's rendered copies",
    description="Each recipient's copy as handed over: headers, parts and the raw message. A test-mode message's "
    "are the copies the pipeline kept as it simulated them, with its check; a live message's are built again "
    "from its encrypted body. Both for the plan's retention.",
    tags=["Messages"],
)
def get_message_content(id: MessageId) -> MessageContent:
    return content_checks.message_content_service().content(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
