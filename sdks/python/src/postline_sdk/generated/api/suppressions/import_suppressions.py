from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.suppression_import_accepted import SuppressionImportAccepted
from ...models.suppression_import_request import SuppressionImportRequest
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    *,
    body: SuppressionImportRequest,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v3/suppressions/import",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SuppressionImportAccepted | None:
    if response.status_code == 202:
        response_202 = SuppressionImportAccepted.from_dict(response.json())

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
) -> Response[ErrorBody | SuppressionImportAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SuppressionImportRequest,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | SuppressionImportAccepted]:
    """Import a CSV of addresses into a list (202; poll GET /v3/suppressions/imports/{id})

     The CSV travels in the JSON body (`csv`, up to 5,000,000 characters): a header row naming `email`
    (required), `reason` and `created_at`, then one row per address. A worker adds the rows in
    checkpointed chunks; poll the import for its counts and its first 500 row errors (row 1 is the
    header). Counts in the bulk routes' window of 10 calls a minute.

    Args:
        on_behalf_of (str | Unset):
        body (SuppressionImportRequest): POST /v3/suppressions/import: a CSV file, in the body,
            added to one list.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SuppressionImportAccepted]
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
    body: SuppressionImportRequest,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | SuppressionImportAccepted | None:
    """Import a CSV of addresses into a list (202; poll GET /v3/suppressions/imports/{id})

     The CSV travels in the JSON body (`csv`, up to 5,000,000 characters): a header row naming `email`
    (required), `reason` and `created_at`, then one row per address. A worker adds the rows in
    checkpointed chunks; poll the import for its counts and its first 500 row errors (row 1 is the
    header). Counts in the bulk routes' window of 10 calls a minute.

    Args:
        on_behalf_of (str | Unset):
        body (SuppressionImportRequest): POST /v3/suppressions/import: a CSV file, in the body,
            added to one list.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SuppressionImportAccepted
    """

    return sync_detailed(
        client=client,
        body=body,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SuppressionImportRequest,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | SuppressionImportAccepted]:
    """Import a CSV of addresses into a list (202; poll GET /v3/suppressions/imports/{id})

     The CSV travels in the JSON body (`csv`, up to 5,000,000 characters): a header row naming `email`
    (required), `reason` and `created_at`, then one row per address. A worker adds the rows in
    checkpointed chunks; poll the import for its counts and its first 500 row errors (row 1 is the
    header). Counts in the bulk routes' window of 10 calls a minute.

    Args:
        on_behalf_of (str | Unset):
        body (SuppressionImportRequest): POST /v3/suppressions/import: a CSV file, in the body,
            added to one list.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SuppressionImportAccepted]
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
    body: SuppressionImportRequest,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | SuppressionImportAccepted | None:
    """Import a CSV of addresses into a list (202; poll GET /v3/suppressions/imports/{id})

     The CSV travels in the JSON body (`csv`, up to 5,000,000 characters): a header row naming `email`
    (required), `reason` and `created_at`, then one row per address. A worker adds the rows in
    checkpointed chunks; poll the import for its counts and its first 500 row errors (row 1 is the
    header). Counts in the bulk routes' window of 10 calls a minute.

    Args:
        on_behalf_of (str | Unset):
        body (SuppressionImportRequest): POST /v3/suppressions/import: a CSV file, in the body,
            added to one list.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SuppressionImportAccepted
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
