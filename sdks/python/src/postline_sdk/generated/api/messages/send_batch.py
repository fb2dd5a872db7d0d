from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.batch_send_request import BatchSendRequest
from ...models.batch_send_result import BatchSendResult
from ...models.error_body import ErrorBody
from ...models.list_send_result import ListSendResult
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    *,
    body: BatchSendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["idempotency-key"] = idempotency_key

    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v3/messages.batch",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BatchSendResult | ListSendResult | ErrorBody | None:
    if response.status_code == 202:

        def _parse_response_202(data: object) -> BatchSendResult | ListSendResult:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_202_type_0 = BatchSendResult.from_dict(data)

                return response_202_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_202_type_1 = ListSendResult.from_dict(data)

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[BatchSendResult | ListSendResult | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BatchSendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[BatchSendResult | ListSendResult | ErrorBody]:
    """Send a batch of up to 5,000 personalized messages

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (BatchSendRequest): POST /v3/messages.batch: the shared fields of a single send, plus
            up to 5,000 recipients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchSendResult | ListSendResult | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        on_behalf_of=on_behalf_of,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BatchSendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> BatchSendResult | ListSendResult | ErrorBody | None:
    """Send a batch of up to 5,000 personalized messages

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (BatchSendRequest): POST /v3/messages.batch: the shared fields of a single send, plus
            up to 5,000 recipients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchSendResult | ListSendResult | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BatchSendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[BatchSendResult | ListSendResult | ErrorBody]:
    """Send a batch of up to 5,000 personalized messages

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (BatchSendRequest): POST /v3/messages.batch: the shared fields of a single send, plus
            up to 5,000 recipients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchSendResult | ListSendResult | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        on_behalf_of=on_behalf_of,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BatchSendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> BatchSendResult | ListSendResult | ErrorBody | None:
    """Send a batch of up to 5,000 personalized messages

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (BatchSendRequest): POST /v3/messages.batch: the shared fields of a single send, plus
            up to 5,000 recipients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchSendResult | ListSendResult | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
