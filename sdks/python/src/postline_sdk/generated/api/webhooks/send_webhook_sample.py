from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.sample_request import SampleRequest
from ...models.webhook_delivery_view import WebhookDeliveryView
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    id: str,
    *,
    body: None | SampleRequest | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v3/webhooks/{id}/test".format(
            id=quote(str(id), safe=""),
        ),
    }

    if isinstance(body, SampleRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | WebhookDeliveryView | None:
    if response.status_code == 202:
        response_202 = WebhookDeliveryView.from_dict(response.json())

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
) -> Response[ErrorBody | WebhookDeliveryView]:
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
    body: None | SampleRequest | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | WebhookDeliveryView]:
    """Send the endpoint a sample event

     A sample event of the given type (default: the first type the endpoint subscribes to) is delivered
    to this enabled endpoint as a real one is (the same payload shape, signatures, auth and egress
    addresses), marked `data.test` and `data.sample`, with ids no real message has (`msg_sample_...`).
    It is a manual delivery: one attempt, never retried, never counted toward the endpoint's failure
    streak. Answers 202 with the delivery; its attempt appears in GET /v3/webhooks/{id}/deliveries
    within seconds.

    Args:
        id (str): The endpoint's id (wh_...).
        on_behalf_of (str | Unset):
        body (None | SampleRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookDeliveryView]
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
    body: None | SampleRequest | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | WebhookDeliveryView | None:
    """Send the endpoint a sample event

     A sample event of the given type (default: the first type the endpoint subscribes to) is delivered
    to this enabled endpoint as a real one is (the same payload shape, signatures, auth and egress
    addresses), marked `data.test` and `data.sample`, with ids no real message has (`msg_sample_...`).
    It is a manual delivery: one attempt, never retried, never counted toward the endpoint's failure
    streak. Answers 202 with the delivery; its attempt appears in GET /v3/webhooks/{id}/deliveries
    within seconds.

    Args:
        id (str): The endpoint's id (wh_...).
        on_behalf_of (str | Unset):
        body (None | SampleRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookDeliveryView
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
    body: None | SampleRequest | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | WebhookDeliveryView]:
    """Send the endpoint a sample event

     A sample event of the given type (default: the first type the endpoint subscribes to) is delivered
    to this enabled endpoint as a real one is (the same payload shape, signatures, auth and egress
    addresses), marked `data.test` and `data.sample`, with ids no real message has (`msg_sample_...`).
    It is a manual delivery: one attempt, never retried, never counted toward the endpoint's failure
    streak. Answers 202 with the delivery; its attempt appears in GET /v3/webhooks/{id}/deliveries
    within seconds.

    Args:
        id (str): The endpoint's id (wh_...).
        on_behalf_of (str | Unset):
        body (None | SampleRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookDeliveryView]
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
    body: None | SampleRequest | Unset = UNSET,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | WebhookDeliveryView | None:
    """Send the endpoint a sample event

     A sample event of the given type (default: the first type the endpoint subscribes to) is delivered
    to this enabled endpoint as a real one is (the same payload shape, signatures, auth and egress
    addresses), marked `data.test` and `data.sample`, with ids no real message has (`msg_sample_...`).
    It is a manual delivery: one attempt, never retried, never counted toward the endpoint's failure
    streak. Answers 202 with the delivery; its attempt appears in GET /v3/webhooks/{id}/deliveries
    within seconds.

    Args:
        id (str): The endpoint's id (wh_...).
        on_behalf_of (str | Unset):
        body (None | SampleRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookDeliveryView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
