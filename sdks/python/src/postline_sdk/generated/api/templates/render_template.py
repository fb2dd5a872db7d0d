from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.rendered_template import RenderedTemplate
from ...models.template_preview import TemplatePreview
from ...types import UNSET, Unset
from typing import cast


def _get_kwargs(
    *,
    body: TemplatePreview,
    on_behalf_of: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(on_behalf_of, Unset):
        headers["On-Behalf-Of"] = on_behalf_of

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v3/templates/render",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RenderedTemplate | None:
    if response.status_code == 200:
        response_200 = RenderedTemplate.from_dict(response.json())

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
) -> Response[ErrorBody | RenderedTemplate]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: TemplatePreview,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | RenderedTemplate]:
    """Preview a template rendered with vars

     A saved template (`template_id`) or unsaved parts rendered as a send with these `vars` would carry
    them: vars_schema checked and rendering limits applied as in a send (400 validation_error),
    `missing_variables` named (they render empty). Nothing is stored or sent; a template's live preview.

    Args:
        on_behalf_of (str | Unset):
        body (TemplatePreview): POST /v3/templates/render: a saved template (template_id) or
            unsaved parts, with vars.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RenderedTemplate]
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
    body: TemplatePreview,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | RenderedTemplate | None:
    """Preview a template rendered with vars

     A saved template (`template_id`) or unsaved parts rendered as a send with these `vars` would carry
    them: vars_schema checked and rendering limits applied as in a send (400 validation_error),
    `missing_variables` named (they render empty). Nothing is stored or sent; a template's live preview.

    Args:
        on_behalf_of (str | Unset):
        body (TemplatePreview): POST /v3/templates/render: a saved template (template_id) or
            unsaved parts, with vars.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RenderedTemplate
    """

    return sync_detailed(
        client=client,
        body=body,
        on_behalf_of=on_behalf_of,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: TemplatePreview,
    on_behalf_of: str | Unset = UNSET,
) -> Response[ErrorBody | RenderedTemplate]:
    """Preview a template rendered with vars

     A saved template (`template_id`) or unsaved parts rendered as a send with these `vars` would carry
    them: vars_schema checked and rendering limits applied as in a send (400 validation_error),
    `missing_variables` named (they render empty). Nothing is stored or sent; a template's live preview.

    Args:
        on_behalf_of (str | Unset):
        body (TemplatePreview): POST /v3/templates/render: a saved template (template_id) or
            unsaved parts, with vars.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RenderedTemplate]
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
    body: TemplatePreview,
    on_behalf_of: str | Unset = UNSET,
) -> ErrorBody | RenderedTemplate | None:
    """Preview a template rendered with vars

     A saved template (`template_id`) or unsaved parts rendered as a send with these `vars` would carry
    them: vars_schema checked and rendering limits applied as in a send (400 validation_error),
    `missing_variables` named (they render empty). Nothing is stored or sent; a template's live preview.

    Args:
        on_behalf_of (str | Unset):
        body (TemplatePreview): POST /v3/templates/render: a saved template (template_id) or
            unsaved parts, with vars.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RenderedTemplate
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            on_behalf_of=on_behalf_of,
        )
    ).parsed
