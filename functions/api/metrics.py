"""Metrics from the roll-ups: GET /v3/metrics/summary, /v3/metrics/timeseries and /v3/metrics/breakdown."""

from datetime import datetime
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from postline import wiring
from postline.http import params
from postline.http.app import lambda_handler
from postline.http.errors import query_timeout_response
from postline.http.subaccount import SubaccountFilter, principal_in
from postline.metrics.domain import Dimension, Resolution
from postline.metrics.models import MetricsBreakdown, MetricsSummary, MetricsTimeseries
from postline.wiring import metrics

router = Router()

QUERY_TIMEOUT: OpenAPIResponse = query_timeout_response(  # type: ignore[assignment]
    "narrow since/until, lower limit, or set include_trend=false"
)
WINDOW = "At most 366 days between since and until; both are widened to whole quarter hours (see `period`)."
Since = Annotated[datetime | None, params.since("Metrics of events")]
Until = Annotated[datetime | None, params.until("Metrics of events")]
Timezone = Annotated[
    str, Query(min_length=1, max_length=64, description="IANA time zone of the buckets and period; default UTC.")
]
Tag = Annotated[str | None, Query(max_length=128, description="Only events carrying this tag.")]
Domain = Annotated[str | None, Query(max_length=253, description="Only messages from this sending domain.")]


@router.get(
    "/v3/metrics/summary",
    summary="Delivery, engagement and latency over a window",
    description=WINDOW,
    tags=["Metrics"],
    responses={
        200: {"description": "The window's figures.", "content": {"application/json": {"model": MetricsSummary}}},
        503: QUERY_TIMEOUT,
    },
)
def metrics_summary(
    since: Since = None,
    until: Until = None,
    timezone: Timezone = "UTC",
    tag: Tag = None,
    domain: Domain = None,
    compare: Annotated[
        Literal["previous_period"] | None, Query(description="Add the previous window of equal length.")
    ] = None,
    subaccount: SubaccountFilter = None,
) -> MetricsSummary:
    return metrics.metrics_service().summary(
        principal_in(subaccount),
        since=since,
        until=until,
        timezone=timezone,
        tag=tag,
        domain=domain,
        compare=compare is not None,
    )


@router.get(
    "/v3/metrics/timeseries",
    summary="Counts per hour, day, week or month",
    description=f"{WINDOW} Every bucket of the window is listed (gap-filled) in `data`; groups omit idle buckets.",
    tags=["Metrics"],
    responses={
        200: {"description": "The window's buckets.", "content": {"application/json": {"model": MetricsTimeseries}}},
        503: QUERY_TIMEOUT,
    },
)
def metrics_timeseries(
    since: Since = None,
    until: Until = None,
    timezone: Timezone = "UTC",
    resolution: Annotated[Resolution, Query(description="Bucket size; default day.")] = Resolution.DAY,
    group_by: Annotated[
        Literal["domain", "status", "subaccount"] | None,
        Query(
            description="Also split by this. subaccount (an organisation's key): `data` is its subaccounts' "
            "together, a group per subaccount (key: its id)."
        ),
    ] = None,
    tag: Tag = None,
    domain: Domain = None,
    subaccount: SubaccountFilter = None,
) -> MetricsTimeseries:
    return metrics.metrics_service().timeseries(
        principal_in(subaccount),
        since=since,
        until=until,
        timezone=timezone,
        resolution=resolution,
        group_by=group_by,
        tag=tag,
        domain=domain,
    )


@router.get(
    "/v3/metrics/breakdown",
    summary="Counts and rates per value of a dimension",
    description=WINDOW,
    tags=["Metrics"],
    responses={
        200: {"description": "The dimension's rows.", "content": {"application/json": {"model": MetricsBreakdown}}},
        503: QUERY_TIMEOUT,
    },
)
def metrics_breakdown(
    dimension: Annotated[Dimension, Query(description="What to break the counts down by.")],
    since: Since = None,
    until: Until = None,
    timezone: Timezone = "UTC",
    sort: Annotated[
        Literal[
            "sent", "delivered", "bounced", "complained", "opened", "clicked", "unique_opens", "unique_clicks", "failed"
        ],
        Query(description="Rows by this count, largest first; default sent."),
    ] = "sent",
    limit: Annotated[int, params.limit(100, 10)] = 10,
    include_trend: Annotated[bool, Query(description="Add each row's sort count per day.")] = False,
    subaccount: SubaccountFilter = None,
) -> MetricsBreakdown:
    return metrics.metrics_service().breakdown(
        principal_in(subaccount),
        dimension=dimension,
        since=since,
        until=until,
        timezone=timezone,
        sort=sort,
        limit=limit,
        include_trend=include_trend,
    )


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
