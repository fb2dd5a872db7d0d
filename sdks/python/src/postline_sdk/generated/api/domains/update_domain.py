from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.domain import Domain
from ...models.domain_update import DomainUpdate
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    id: str,
    *,
    body: DomainUpdate,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v3/domains/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Domain | ErrorBody | None:
    if response.status_code == 200:
        response_200 = Domain.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Domain | ErrorBody]:
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
    body: DomainUpdate,
    on_behalf_of: str | Unset = UNSET,
) -> Response[Domain | ErrorBody]:
    """Update a sending domain

    Args:
        id (str): The domain's id (dom_...).
        on_behalf_of (str | Unset):
        body (DomainUpdate): PATCH: the fields present change (null removes). Sharing is the owner
            workspace's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Domain | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
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
    body: DomainUpdate,
    on_behalf_of: str | Unset = UNSET,
) -> Domain | ErrorBody | None:
    """Update a sending domain

    Args:
        id (str): The domain's id (dom_...).
        on_behalf_of (str | Unset):
        body (DomainUpdate): PATCH: the fields present change (null removes). Sharing is the owner
            workspace's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Domain | ErrorBody
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: DomainUpdate,
    on_behalf_of: str | Unset = UNSET,
) -> Response[Domain | ErrorBody]:
    """Update a sending domain

    Args:
        id (str): The domain's id (dom_...).
        on_behalf_of (str | Unset):
        body (DomainUpdate): PATCH: the fields present change (null removes). Sharing is the owner
            workspace's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Domain | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: DomainUpdate,
    on_behalf_of: str | Unset = UNSET,
) -> Domain | ErrorBody | None:
    """Update a sending domain

    Args:
        id (str): The domain's id (dom_...).
        on_behalf_of (str | Unset):
        body (DomainUpdate): PATCH: the fields present change (null removes). Sharing is the owner
            workspace's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Domain | ErrorBody
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
