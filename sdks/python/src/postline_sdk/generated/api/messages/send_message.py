from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.list_send_result import ListSendResult
from ...models.message_accepted import MessageAccepted
from ...models.send_request import SendRequest
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    *,
    body: SendRequest,
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
        "url": "/v3/messages",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ListSendResult | MessageAccepted | None:
    if response.status_code == 202:

        def _parse_response_202(data: object) -> ListSendResult | MessageAccepted:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_202_type_0 = MessageAccepted.from_dict(data)

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
) -> Response[ErrorBody | ListSendResult | MessageAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | ListSendResult | MessageAccepted]:
    """Send a message

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (SendRequest): POST /v3/messages.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListSendResult | MessageAccepted]
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
    body: SendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | ListSendResult | MessageAccepted | None:
    """Send a message

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (SendRequest): POST /v3/messages.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListSendResult | MessageAccepted
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
    body: SendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | ListSendResult | MessageAccepted]:
    """Send a message

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (SendRequest): POST /v3/messages.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListSendResult | MessageAccepted]
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
    body: SendRequest,
    idempotency_key: None | str | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | ListSendResult | MessageAccepted | None:
    """Send a message

    Args:
        idempotency_key (None | str | Unset): Makes retries safe: a replay returns the first
            result; 409 while the first still runs.
        on_behalf_of (str | Unset):
        body (SendRequest): POST /v3/messages.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListSendResult | MessageAccepted
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
