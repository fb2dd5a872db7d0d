from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.event_list_page import EventListPage
from ...models.list_events_event_type_0 import ListEventsEventType0
from ...types import UNSET, Unset
from typing import cast
import datetime


def _get_kwargs(
    *,
    event: ListEventsEventType0 | None | Unset = UNSET,
    recipient: None | str | Unset = UNSET,
    tag: None | str | Unset = UNSET,
    message_id: None | str | Unset = UNSET,
    ip_pool: None | str | Unset = UNSET,
    ip: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    params: dict[str, Any] = {}

    json_event: None | str | Unset
    if isinstance(event, Unset):
        json_event = UNSET
    elif isinstance(event, ListEventsEventType0):
        json_event = event.value
    else:
        json_event = event
    params["event"] = json_event

    json_recipient: None | str | Unset
    if isinstance(recipient, Unset):
        json_recipient = UNSET
    else:
        json_recipient = recipient
    params["recipient"] = json_recipient

    json_tag: None | str | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    else:
        json_tag = tag
    params["tag"] = json_tag

    json_message_id: None | str | Unset
    if isinstance(message_id, Unset):
        json_message_id = UNSET
    else:
        json_message_id = message_id
    params["message_id"] = json_message_id

    json_ip_pool: None | str | Unset
    if isinstance(ip_pool, Unset):
        json_ip_pool = UNSET
    else:
        json_ip_pool = ip_pool
    params["ip_pool"] = json_ip_pool

    json_ip: None | str | Unset
    if isinstance(ip, Unset):
        json_ip = UNSET
    else:
        json_ip = ip
    params["ip"] = json_ip

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

    json_subaccount: None | str | Unset
    if isinstance(subaccount, Unset):
        json_subaccount = UNSET
    else:
        json_subaccount = subaccount
    params["subaccount"] = json_subaccount

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/events",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | EventListPage | None:
    if response.status_code == 200:
        response_200 = EventListPage.from_dict(response.json())

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
) -> Response[ErrorBody | EventListPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    event: ListEventsEventType0 | None | Unset = UNSET,
    recipient: None | str | Unset = UNSET,
    tag: None | str | Unset = UNSET,
    message_id: None | str | Unset = UNSET,
    ip_pool: None | str | Unset = UNSET,
    ip: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | EventListPage]:
    """List events, newest first

     Repeat with `cursor=next_cursor` and the same filters until `has_more` is false. `total_count`
    counts every match whatever the cursor. A `since` older than the retention window is clamped, not an
    error. Filter on send metadata with up to 3 `metadata[key]=value` parameters (key: 1-64 letters,
    digits, dot, dash, underscore; value at most 200 characters; exact match).

    Args:
        event (ListEventsEventType0 | None | Unset): One event type.
        recipient (None | str | Unset): Exact address (any case).
        tag (None | str | Unset): Events carrying the tag.
        message_id (None | str | Unset): All events of one message.
        ip_pool (None | str | Unset): Copies sent through this IP pool (id).
        ip (None | str | Unset): Copies sent from this source address.
        since (datetime.datetime | None | Unset): Events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Events at or before (ISO 8601).
        limit (int | Unset): 1-300; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | EventListPage]
    """

    kwargs = _get_kwargs(
        event=event,
        recipient=recipient,
        tag=tag,
        message_id=message_id,
        ip_pool=ip_pool,
        ip=ip,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
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
    event: ListEventsEventType0 | None | Unset = UNSET,
    recipient: None | str | Unset = UNSET,
    tag: None | str | Unset = UNSET,
    message_id: None | str | Unset = UNSET,
    ip_pool: None | str | Unset = UNSET,
    ip: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | EventListPage | None:
    """List events, newest first

     Repeat with `cursor=next_cursor` and the same filters until `has_more` is false. `total_count`
    counts every match whatever the cursor. A `since` older than the retention window is clamped, not an
    error. Filter on send metadata with up to 3 `metadata[key]=value` parameters (key: 1-64 letters,
    digits, dot, dash, underscore; value at most 200 characters; exact match).

    Args:
        event (ListEventsEventType0 | None | Unset): One event type.
        recipient (None | str | Unset): Exact address (any case).
        tag (None | str | Unset): Events carrying the tag.
        message_id (None | str | Unset): All events of one message.
        ip_pool (None | str | Unset): Copies sent through this IP pool (id).
        ip (None | str | Unset): Copies sent from this source address.
        since (datetime.datetime | None | Unset): Events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Events at or before (ISO 8601).
        limit (int | Unset): 1-300; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | EventListPage
    """

    return sync_detailed(
        client=client,
        event=event,
        recipient=recipient,
        tag=tag,
        message_id=message_id,
        ip_pool=ip_pool,
        ip=ip,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    event: ListEventsEventType0 | None | Unset = UNSET,
    recipient: None | str | Unset = UNSET,
    tag: None | str | Unset = UNSET,
    message_id: None | str | Unset = UNSET,
    ip_pool: None | str | Unset = UNSET,
    ip: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | EventListPage]:
    """List events, newest first

     Repeat with `cursor=next_cursor` and the same filters until `has_more` is false. `total_count`
    counts every match whatever the cursor. A `since` older than the retention window is clamped, not an
    error. Filter on send metadata with up to 3 `metadata[key]=value` parameters (key: 1-64 letters,
    digits, dot, dash, underscore; value at most 200 characters; exact match).

    Args:
        event (ListEventsEventType0 | None | Unset): One event type.
        recipient (None | str | Unset): Exact address (any case).
        tag (None | str | Unset): Events carrying the tag.
        message_id (None | str | Unset): All events of one message.
        ip_pool (None | str | Unset): Copies sent through this IP pool (id).
        ip (None | str | Unset): Copies sent from this source address.
        since (datetime.datetime | None | Unset): Events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Events at or before (ISO 8601).
        limit (int | Unset): 1-300; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | EventListPage]
    """

    kwargs = _get_kwargs(
        event=event,
        recipient=recipient,
        tag=tag,
        message_id=message_id,
        ip_pool=ip_pool,
        ip=ip,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    event: ListEventsEventType0 | None | Unset = UNSET,
    recipient: None | str | Unset = UNSET,
    tag: None | str | Unset = UNSET,
    message_id: None | str | Unset = UNSET,
    ip_pool: None | str | Unset = UNSET,
    ip: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    limit: int | Unset = 25,
    cursor: None | str | Unset = UNSET,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | EventListPage | None:
    """List events, newest first

     Repeat with `cursor=next_cursor` and the same filters until `has_more` is false. `total_count`
    counts every match whatever the cursor. A `since` older than the retention window is clamped, not an
    error. Filter on send metadata with up to 3 `metadata[key]=value` parameters (key: 1-64 letters,
    digits, dot, dash, underscore; value at most 200 characters; exact match).

    Args:
        event (ListEventsEventType0 | None | Unset): One event type.
        recipient (None | str | Unset): Exact address (any case).
        tag (None | str | Unset): Events carrying the tag.
        message_id (None | str | Unset): All events of one message.
        ip_pool (None | str | Unset): Copies sent through this IP pool (id).
        ip (None | str | Unset): Copies sent from this source address.
        since (datetime.datetime | None | Unset): Events at or after (ISO 8601).
        until (datetime.datetime | None | Unset): Events at or before (ISO 8601).
        limit (int | Unset): 1-300; default 25. Default: 25.
        cursor (None | str | Unset): next_cursor of the previous page.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | EventListPage
    """

    return (
        await asyncio_detailed(
            client=client,
            event=event,
            recipient=recipient,
            tag=tag,
            message_id=message_id,
            ip_pool=ip_pool,
            ip=ip,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
            subaccount=subaccount,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
