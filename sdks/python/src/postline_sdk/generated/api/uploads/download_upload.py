from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    token: str,
    *,
    delivered: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_delivered: int | None | Unset
    if isinstance(delivered, Unset):
        json_delivered = UNSET
    else:
        json_delivered = delivered
    params["delivered"] = json_delivered

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/track/download/{token}".format(
            token=quote(str(token), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorBody | None:
    if response.status_code == 302:
        response_302 = cast(Any, None)
        return response_302

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

    if response.status_code == 410:
        response_410 = ErrorBody.from_dict(response.json())

        return response_410

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    delivered: int | None | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """Hosted upload link

    Args:
        token (str): The signed token of the hosted link.
        delivered (int | None | Unset): Set by a click redirect: the message's delivery (Unix
            seconds), for the scanner timing rule.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        token=token,
        delivered=delivered,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    delivered: int | None | Unset = UNSET,
) -> Any | ErrorBody | None:
    """Hosted upload link

    Args:
        token (str): The signed token of the hosted link.
        delivered (int | None | Unset): Set by a click redirect: the message's delivery (Unix
            seconds), for the scanner timing rule.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return sync_detailed(
        token=token,
        client=client,
        delivered=delivered,
    ).parsed


async def asyncio_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    delivered: int | None | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """Hosted upload link

    Args:
        token (str): The signed token of the hosted link.
        delivered (int | None | Unset): Set by a click redirect: the message's delivery (Unix
            seconds), for the scanner timing rule.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        token=token,
        delivered=delivered,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    delivered: int | None | Unset = UNSET,
) -> Any | ErrorBody | None:
    """Hosted upload link

    Args:
        token (str): The signed token of the hosted link.
        delivered (int | None | Unset): Set by a click redirect: the message's delivery (Unix
            seconds), for the scanner timing rule.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return (
        await asyncio_detailed(
            token=token,
            client=client,
            delivered=delivered,
        )
    ).parsed
