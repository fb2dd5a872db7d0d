from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delivery_status import DeliveryStatus
from ...models.error_body import ErrorBody
from ...models.list_webhook_deliveries_event_type_0 import ListWebhookDeliveriesEventType0
from ...models.webhook_delivery_page import WebhookDeliveryPage
from ...types import UNSET, Unset
from typing import cast
import datetime


def _get_kwargs(
    id: str,
    *,
    status: DeliveryStatus | None | Unset = UNSET,
    event: ListWebhookDeliveriesEventType0 | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, DeliveryStatus):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    json_event: None | str | Unset
    if isinstance(event, Unset):
        json_event = UNSET
    elif isinstance(event, ListWebhookDeliveriesEventType0):
        json_event = event.value
    else:
        json_event = event
    params["event"] = json_event

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

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/webhooks/{id}/deliveries".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | WebhookDeliveryPage | None:
    if response.status_code == 200:
        response_200 = WebhookDeliveryPage.from_dict(response.json())

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | WebhookDeliveryPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | None | Unset = UNSET,
    event: ListWebhookDeliveriesEventType0 | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | WebhookDeliveryPage]:
    """List an endpoint's deliveries, newest first

     Each delivery with its attempts (outcome, response code, latency); the payload is not shown. History
    follows the plan's retention: a `since` older than it is clamped. Repeat with `cursor=next_cursor`
    and the same filters until `has_more` is false. A page reads for at most 5 s: with status or event
    filters matching few deliveries it may hold fewer than `limit` deliveries, even none, while
    `has_more` is true; its cursor continues after what it read.

    Args:
        id (str): The endpoint's id (wh_...).
        status (DeliveryStatus | None | Unset): One delivery status.
        event (ListWebhookDeliveriesEventType0 | None | Unset): One event type.
        since (datetime.datetime | None | Unset): Created at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Created at or before (ISO 8601).
        limit (int | Unset): 1-100; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookDeliveryPage]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        event=event,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        on_behalf_of=on_behalf_of,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | None | Unset = UNSET,
    event: ListWebhookDeliveriesEventType0 | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | WebhookDeliveryPage | None:
    """List an endpoint's deliveries, newest first

     Each delivery with its attempts (outcome, response code, latency); the payload is not shown. History
    follows the plan's retention: a `since` older than it is clamped. Repeat with `cursor=next_cursor`
    and the same filters until `has_more` is false. A page reads for at most 5 s: with status or event
    filters matching few deliveries it may hold fewer than `limit` deliveries, even none, while
    `has_more` is true; its cursor continues after what it read.

    Args:
        id (str): The endpoint's id (wh_...).
        status (DeliveryStatus | None | Unset): One delivery status.
        event (ListWebhookDeliveriesEventType0 | None | Unset): One event type.
        since (datetime.datetime | None | Unset): Created at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Created at or before (ISO 8601).
        limit (int | Unset): 1-100; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookDeliveryPage
    """

    return sync_detailed(
        id=id,
        client=client,
        status=status,
        event=event,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | None | Unset = UNSET,
    event: ListWebhookDeliveriesEventType0 | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | WebhookDeliveryPage]:
    """List an endpoint's deliveries, newest first

     Each delivery with its attempts (outcome, response code, latency); the payload is not shown. History
    follows the plan's retention: a `since` older than it is clamped. Repeat with `cursor=next_cursor`
    and the same filters until `has_more` is false. A page reads for at most 5 s: with status or event
    filters matching few deliveries it may hold fewer than `limit` deliveries, even none, while
    `has_more` is true; its cursor continues after what it read.

    Args:
        id (str): The endpoint's id (wh_...).
        status (DeliveryStatus | None | Unset): One delivery status.
        event (ListWebhookDeliveriesEventType0 | None | Unset): One event type.
        since (datetime.datetime | None | Unset): Created at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Created at or before (ISO 8601).
        limit (int | Unset): 1-100; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookDeliveryPage]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        event=event,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | None | Unset = UNSET,
    event: ListWebhookDeliveriesEventType0 | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | WebhookDeliveryPage | None:
    """List an endpoint's deliveries, newest first

     Each delivery with its attempts (outcome, response code, latency); the payload is not shown. History
    follows the plan's retention: a `since` older than it is clamped. Repeat with `cursor=next_cursor`
    and the same filters until `has_more` is false. A page reads for at most 5 s: with status or event
    filters matching few deliveries it may hold fewer than `limit` deliveries, even none, while
    `has_more` is true; its cursor continues after what it read.

    Args:
        id (str): The endpoint's id (wh_...).
        status (DeliveryStatus | None | Unset): One delivery status.
        event (ListWebhookDeliveriesEventType0 | None | Unset): One event type.
        since (datetime.datetime | None | Unset): Created at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Created at or before (ISO 8601).
        limit (int | Unset): 1-100; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookDeliveryPage
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            status=status,
            event=event,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
