from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.export_job_view import ExportJobView
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    id: str,
    *,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    params: dict[str, Any] = {}

    json_subaccount: None | str | Unset
    if isinstance(subaccount, Unset):
        json_subaccount = UNSET
    else:
        json_subaccount = subaccount
    params["subaccount"] = json_subaccount

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/events/export/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ExportJobView | None:
    if response.status_code == 200:
        response_200 = ExportJobView.from_dict(response.json())

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
) -> Response[ErrorBody | ExportJobView]:
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
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | ExportJobView]:
    """Get an event export

    Args:
        id (str): The export's id.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ExportJobView]
    """

    kwargs = _get_kwargs(
        id=id,
        subaccount=subaccount,
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
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | ExportJobView | None:
    """Get an event export

    Args:
        id (str): The export's id.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ExportJobView
    """

    return sync_detailed(
        id=id,
        client=client,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | ExportJobView]:
    """Get an event export

    Args:
        id (str): The export's id.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ExportJobView]
    """

    kwargs = _get_kwargs(
        id=id,
        subaccount=subaccount,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    subaccount: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | ExportJobView | None:
    """Get an event export

    Args:
        id (str): The export's id.
        subaccount (None | str | Unset): An organisation's key only: read this subaccount's (its
            id or slug) instead of its own (another organisation's or a deleted one: 404; from a
            subaccount's key: 403 organisation_only).
        on_behalf_of (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ExportJobView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            subaccount=subaccount,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
