from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.metrics_summary import MetricsSummary
from ...types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime


def _get_kwargs(
    *,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    timezone: str | Unset = "UTC",
    tag: None | str | Unset = UNSET,
    domain: None | str | Unset = UNSET,
    compare: Literal["previous_period"] | None | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    params: dict[str, Any] = {}

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    elif isinstance(since, datetime.datetime):
        json_since = since.isoformat()
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    elif isinstance(until, datetime.datetime):
        json_until = until.isoformat()
    else:
        json_until = until
    params["until"] = json_until

    params["timezone"] = timezone

    json_tag: None | str | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    else:
        json_tag = tag
    params["tag"] = json_tag

    json_domain: None | str | Unset
    if isinstance(domain, Unset):
        json_domain = UNSET
    else:
        json_domain = domain
    params["domain"] = json_domain

    json_compare: Literal["previous_period"] | None | Unset
    if isinstance(compare, Unset):
        json_compare = UNSET
    else:
        json_compare = compare
    params["compare"] = json_compare

    json_subaccount: None | str | Unset
    if isinstance(subaccount, Unset):
        json_subaccount = UNSET
    else:
        json_subaccount = subaccount
    params["subaccount"] = json_subaccount

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/metrics/summary",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | MetricsSummary | None:
    if response.status_code == 200:
        response_200 = MetricsSummary.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | MetricsSummary]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    timezone: str | Unset = "UTC",
    tag: None | str | Unset = UNSET,
    domain: None | str | Unset = UNSET,
    compare: Literal["previous_period"] | None | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | MetricsSummary]:
    """Delivery, engagement and latency over a window

     At most 366 days between since and until; both are widened to whole quarter hours (see `period`).

    Args:
        since (datetime.datetime | None | Unset): Metrics of events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Metrics of events at or before (ISO 8601).
        timezone (str | Unset): IANA time zone of the buckets and period; default UTC. Default:
            'UTC'.
        tag (None | str | Unset): Only events carrying this tag.
        domain (None | str | Unset): Only messages from this sending domain.
        compare (Literal['previous_period'] | None | Unset): Add the previous window of equal
            length.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MetricsSummary]
    """

    kwargs = _get_kwargs(
        since=since,
        until=until,
        timezone=timezone,
        tag=tag,
        domain=domain,
        compare=compare,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    timezone: str | Unset = "UTC",
    tag: None | str | Unset = UNSET,
    domain: None | str | Unset = UNSET,
    compare: Literal["previous_period"] | None | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | MetricsSummary | None:
    """Delivery, engagement and latency over a window

     At most 366 days between since and until; both are widened to whole quarter hours (see `period`).

    Args:
        since (datetime.datetime | None | Unset): Metrics of events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Metrics of events at or before (ISO 8601).
        timezone (str | Unset): IANA time zone of the buckets and period; default UTC. Default:
            'UTC'.
        tag (None | str | Unset): Only events carrying this tag.
        domain (None | str | Unset): Only messages from this sending domain.
        compare (Literal['previous_period'] | None | Unset): Add the previous window of equal
            length.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MetricsSummary
    """

    return sync_detailed(
        client=client,
        since=since,
        until=until,
        timezone=timezone,
        tag=tag,
        domain=domain,
        compare=compare,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    timezone: str | Unset = "UTC",
    tag: None | str | Unset = UNSET,
    domain: None | str | Unset = UNSET,
    compare: Literal["previous_period"] | None | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | MetricsSummary]:
    """Delivery, engagement and latency over a window

     At most 366 days between since and until; both are widened to whole quarter hours (see `period`).

    Args:
        since (datetime.datetime | None | Unset): Metrics of events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Metrics of events at or before (ISO 8601).
        timezone (str | Unset): IANA time zone of the buckets and period; default UTC. Default:
            'UTC'.
        tag (None | str | Unset): Only events carrying this tag.
        domain (None | str | Unset): Only messages from this sending domain.
        compare (Literal['previous_period'] | None | Unset): Add the previous window of equal
            length.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MetricsSummary]
    """

    kwargs = _get_kwargs(
        since=since,
        until=until,
        timezone=timezone,
        tag=tag,
        domain=domain,
        compare=compare,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    timezone: str | Unset = "UTC",
    tag: None | str | Unset = UNSET,
    domain: None | str | Unset = UNSET,
    compare: Literal["previous_period"] | None | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | MetricsSummary | None:
    """Delivery, engagement and latency over a window

     At most 366 days between since and until; both are widened to whole quarter hours (see `period`).

    Args:
        since (datetime.datetime | None | Unset): Metrics of events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Metrics of events at or before (ISO 8601).
        timezone (str | Unset): IANA time zone of the buckets and period; default UTC. Default:
            'UTC'.
        tag (None | str | Unset): Only events carrying this tag.
        domain (None | str | Unset): Only messages from this sending domain.
        compare (Literal['previous_period'] | None | Unset): Add the previous window of equal
            length.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MetricsSummary
    """

    return (
        await asyncio_detailed(
            client=client,
            since=since,
            until=until,
            timezone=timezone,
            tag=tag,
            domain=domain,
            compare=compare,
            subaccount=subaccount,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
