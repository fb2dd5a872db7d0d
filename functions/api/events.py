"""Events: GET /v3/events (newest first, cursor-paginated) and the CSV export, POST /v3/events/export
and GET /v3/events/export/{id}."""

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from postline import wiring
from postline.events.models import EventListPage
from postline.events.query import DEFAULT_LIMIT, MAX_LIMIT, PublicEventType, event_filters
from postline.exports.models import EventExportAccepted, EventExportRequest, ExportJobView
from postline.http import params
from postline.http.app import lambda_handler
from postline.http.errors import query_timeout_response
from postline.http.subaccount import SubaccountFilter, acting_in, principal_in
from postline.wiring import events, exports

router = Router()

QUERY_TIMEOUT: OpenAPIResponse = query_timeout_response(  # type: ignore[assignment]
    "narrow since/until or the filters, lower limit, or use POST /v3/events/export"
)
LIST_DESCRIPTION = (
    "Repeat with `cursor=next_cursor` and the same filters until `has_more` is false. `total_count` counts "
    "every match whatever the cursor. A `since` older than the retention window is clamped, not an error. "
    "Filter on send metadata with up to 3 `metadata[key]=value` parameters (key: 1-64 letters, digits, dot, "
    "dash, underscore; value at most 200 characters; exact match)."
)


@router.get(
    "/v3/events",
    summary="List events, newest first",
    description=LIST_DESCRIPTION,
    tags=["Events"],
    responses={
        200: {"description": "A page of events.", "content": {"application/json": {"model": EventListPage}}},
        503: QUERY_TIMEOUT,
    },
)
def list_events(
    event: Annotated[PublicEventType | None, Query(description="One event type.")] = None,
    recipient: Annotated[str | None, Query(max_length=320, description="Exact address (any case).")] = None,
    tag: Annotated[str | None, Query(max_length=128, description="Events carrying the tag.")] = None,
    message_id: Annotated[str | None, Query(max_length=64, description="All events of one message.")] = None,
    ip_pool: Annotated[str | None, Query(max_length=64, description="Copies sent through this IP pool (id).")] = None,
    ip: Annotated[str | None, Query(max_length=64, description="Copies sent from this source address.")] = None,
    since: Annotated[datetime | None, params.since("Events")] = None,
    until: Annotated[datetime | None, params.until("Events")] = None,
    limit: Annotated[int, params.limit(MAX_LIMIT, DEFAULT_LIMIT)] = DEFAULT_LIMIT,
    cursor: params.Cursor = None,
    subaccount: SubaccountFilter = None,
) -> EventListPage:
    query = router.current_event.multi_value_query_string_parameters
    filters = event_filters(
        query, event=event, recipient=recipient, tag=tag, message_id=message_id, since=since, until=until,
        ip_pool=ip_pool, ip=ip,
    )  # fmt: skip
    return events.event_service().list_page(principal_in(subaccount), filters, limit=limit, cursor=cursor)


@router.post(
    "/v3/events/export",
    summary="Export events as CSV",
    description="Starts a CSV export of a window within retention (columns id, type, message_id, recipient, "
    "timestamp, tags, metadata; newest first). An equivalent export still running is returned instead of a "
    "new one. More than 1,000,000 rows fails the export. With `subaccount`, an organisation exports one of its "
    "subaccounts' events: the export is the subaccount's (read it with the same `subaccount`).",
    tags=["Events"],
    responses={202: {"description": "Accepted.", "content": {"application/json": {"model": EventExportAccepted}}}},
)
def export_events(
    request: Annotated[EventExportRequest, Body()], subaccount: SubaccountFilter = None
) -> Response[EventExportAccepted]:
    accepted = exports.export_service().start(acting_in(subaccount), request)
    return Response(status_code=202, content_type="application/json", body=accepted)


@router.get("/v3/events/export/<id>", summary="Get an event export", tags=["Events"])
def get_event_export(
    id: Annotated[str, Path(min_length=1, max_length=64, description="The export's id.")],
    subaccount: SubaccountFilter = None,
) -> ExportJobView:
    return exports.export_service().get(principal_in(subaccount), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
