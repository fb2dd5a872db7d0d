from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.data_removal_accepted import DataRemovalAccepted
from ...models.data_removal_batch_accepted import DataRemovalBatchAccepted
from ...models.data_removal_request import DataRemovalRequest
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    *,
    body: DataRemovalRequest,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v3/data-removals",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody | None:
    if response.status_code == 202:

        def _parse_response_202(data: object) -> DataRemovalAccepted | DataRemovalBatchAccepted:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_202_type_0 = DataRemovalAccepted.from_dict(data)

                return response_202_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_202_type_1 = DataRemovalBatchAccepted.from_dict(data)

            return response_202_type_1

        response_202 = _parse_response_202(response.json())

        return response_202

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
) -> Response[DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DataRemovalRequest,
    on_behalf_of: str | Unset = UNSET,
) -> Response[DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody]:
    """Request a data removal

     Erases everything the account holds about an address: message bodies made unreadable (their data
    keys destroyed), recipient fields replaced by a keyed hash, events, verification results and
    activity, export files containing it, webhook delivery history. Suppression entries stay in keyed-
    hash form, so the address is still never mailed after an unsubscribe, complaint or bounce. `email`
    for one address (202 DataRemovalAccepted), or `emails` for up to 100 (202 with `items`).
    `include_subaccounts`: an organisation's parent erases in every subaccount too. Live keys only.

    Args:
        on_behalf_of (str | Unset):
        body (DataRemovalRequest): One address (`email`), or up to 100 (`emails`, the batch form):
            one removal each.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        on_behalf_of=on_behalf_of,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: DataRemovalRequest,
    on_behalf_of: str | Unset = UNSET,
) -> DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody | None:
    """Request a data removal

     Erases everything the account holds about an address: message bodies made unreadable (their data
    keys destroyed), recipient fields replaced by a keyed hash, events, verification results and
    activity, export files containing it, webhook delivery history. Suppression entries stay in keyed-
    hash form, so the address is still never mailed after an unsubscribe, complaint or bounce. `email`
    for one address (202 DataRemovalAccepted), or `emails` for up to 100 (202 with `items`).
    `include_subaccounts`: an organisation's parent erases in every subaccount too. Live keys only.

    Args:
        on_behalf_of (str | Unset):
        body (DataRemovalRequest): One address (`email`), or up to 100 (`emails`, the batch form):
            one removal each.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DataRemovalRequest,
    on_behalf_of: str | Unset = UNSET,
) -> Response[DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody]:
    """Request a data removal

     Erases everything the account holds about an address: message bodies made unreadable (their data
    keys destroyed), recipient fields replaced by a keyed hash, events, verification results and
    activity, export files containing it, webhook delivery history. Suppression entries stay in keyed-
    hash form, so the address is still never mailed after an unsubscribe, complaint or bounce. `email`
    for one address (202 DataRemovalAccepted), or `emails` for up to 100 (202 with `items`).
    `include_subaccounts`: an organisation's parent erases in every subaccount too. Live keys only.

    Args:
        on_behalf_of (str | Unset):
        body (DataRemovalRequest): One address (`email`), or up to 100 (`emails`, the batch form):
            one removal each.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: DataRemovalRequest,
    on_behalf_of: str | Unset = UNSET,
) -> DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody | None:
    """Request a data removal

     Erases everything the account holds about an address: message bodies made unreadable (their data
    keys destroyed), recipient fields replaced by a keyed hash, events, verification results and
    activity, export files containing it, webhook delivery history. Suppression entries stay in keyed-
    hash form, so the address is still never mailed after an unsubscribe, complaint or bounce. `email`
    for one address (202 DataRemovalAccepted), or `emails` for up to 100 (202 with `items`).
    `include_subaccounts`: an organisation's parent erases in every subaccount too. Live keys only.

    Args:
        on_behalf_of (str | Unset):
        body (DataRemovalRequest): One address (`email`), or up to 100 (`emails`, the batch form):
            one removal each.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DataRemovalAccepted | DataRemovalBatchAccepted | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
