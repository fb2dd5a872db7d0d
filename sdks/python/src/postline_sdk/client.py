"""The SDK's front: sends with an Idempotency-Key, retries, errors as exceptions, events by cursor.

Everything else is the generated client (`Postline.api` with `postline_sdk.generated.api.*`), so
the whole API is reachable and typed from the OpenAPI document.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx

from postline_sdk.generated.api.events import list_events
from postline_sdk.generated.api.messages import cancel_message, send_batch, send_message
from postline_sdk.generated.client import AuthenticatedClient
from postline_sdk.generated.models.batch_send_request import BatchSendRequest
from postline_sdk.generated.models.batch_send_result import BatchSendResult
from postline_sdk.generated.models.error_body import ErrorBody
from postline_sdk.generated.models.event_list_page import EventListPage
from postline_sdk.generated.models.event_view import EventView
from postline_sdk.generated.models.list_events_event_type_0 import ListEventsEventType0
from postline_sdk.generated.models.list_send_result import ListSendResult
from postline_sdk.generated.models.message_accepted import MessageAccepted
from postline_sdk.generated.models.scheduled_message_cancellation import ScheduledMessageCancellation
from postline_sdk.generated.models.send_request import SendRequest
from postline_sdk.generated.types import UNSET, Response, Unset
from postline_sdk.retries import RetryingTransport, RetryPolicy, retry_after_seconds

__version__ = "0.1.0"
T = TypeVar("T")


class PostlineError(Exception):
    """A failed call: branch on `code` (the interface's error.code), not on the message."""

    def __init__(self, status: int, code: str, message: str, request_id: str | None, retry_after: float | None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after


class Postline:
    """A client for one account (or, with `on_behalf_of`, one of its subaccounts).

    `api_key` and `base_url` default to the POSTLINE_API_KEY and POSTLINE_BASE_URL variables;
    `sleep` is how the client waits between attempts (a test or a scheduler may replace it).
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        on_behalf_of: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        key = api_key or os.environ.get("POSTLINE_API_KEY")
        url = base_url or os.environ.get("POSTLINE_BASE_URL")
        if not key or not url:
            raise ValueError("an API key and the API's base URL are needed (or POSTLINE_API_KEY, POSTLINE_BASE_URL)")
        headers = {"User-Agent": f"postline-python/{__version__}"}
        if on_behalf_of:
            headers["On-Behalf-Of"] = on_behalf_of
        self.api = AuthenticatedClient(
            base_url=url.rstrip("/"),
            token=key,
            headers=headers,
            timeout=httpx.Timeout(timeout),
            httpx_args={"transport": RetryingTransport(transport, policy=retry, sleep=sleep)},
        )

    def send(self, message: SendRequest | Mapping[str, Any], *, idempotency_key: str | None = None) -> MessageAccepted:
        """POST /v3/messages. A retry (this client's, or yours with the same key) never sends twice:
        the key defaults to a fresh UUID that every attempt of this call shares."""
        body = message if isinstance(message, SendRequest) else SendRequest.from_dict(dict(message))
        response = send_message.sync_detailed(client=self.api, body=body, idempotency_key=idempotency_key or _new_key())
        return _ok(response, MessageAccepted)

    def send_list(
        self, message: SendRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ListSendResult:
        """POST /v3/messages with `list_id`: one send to every member of a mailing list."""
        body = message if isinstance(message, SendRequest) else SendRequest.from_dict(dict(message))
        response = send_message.sync_detailed(client=self.api, body=body, idempotency_key=idempotency_key or _new_key())
        return _ok(response, ListSendResult)

    def send_batch(
        self, batch: BatchSendRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> BatchSendResult:
        """POST /v3/messages/batch, with an Idempotency-Key as `send` has."""
        body = batch if isinstance(batch, BatchSendRequest) else BatchSendRequest.from_dict(dict(batch))
        response = send_batch.sync_detailed(client=self.api, body=body, idempotency_key=idempotency_key or _new_key())
        return _ok(response, BatchSendResult)

    def cancel(self, message_id: str) -> ScheduledMessageCancellation:
        """DELETE /v3/messages/{id}: cancels a scheduled send that has not started."""
        return _ok(cancel_message.sync_detailed(message_id, client=self.api), ScheduledMessageCancellation)

    def events(
        self,
        *,
        type: str | None = None,
        recipient: str | None = None,
        tag: str | None = None,
        message_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        page_size: int = 100,
    ) -> Iterator[EventView]:
        """Every event matching the filters, newest first, fetching pages by cursor as it goes."""
        cursor: str | Unset = UNSET
        while True:
            page = _ok(
                list_events.sync_detailed(
                    client=self.api,
                    event=ListEventsEventType0(type) if type else UNSET,
                    recipient=recipient or UNSET,
                    tag=tag or UNSET,
                    message_id=message_id or UNSET,
                    since=since or UNSET,
                    until=until or UNSET,
                    limit=page_size,
                    cursor=cursor,
                ),
                EventListPage,
            )
            yield from page.items
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def __enter__(self) -> Postline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _new_key() -> str:
    return str(uuid.uuid4())


def _ok(response: Response[Any], expected: type[T]) -> T:
    """The parsed body of a 2xx, else a PostlineError carrying the interface's error code."""
    parsed = response.parsed
    if 200 <= response.status_code < 300:
        if not isinstance(parsed, expected):
            raise TypeError(f"expected {expected.__name__}, the API answered {type(parsed).__name__}")
        return parsed
    retry_after = retry_after_seconds(httpx.Response(response.status_code, headers=dict(response.headers)))
    if isinstance(parsed, ErrorBody):
        raise PostlineError(
            response.status_code, parsed.error.code, parsed.error.message, parsed.request_id, retry_after
        )
    raise PostlineError(
        response.status_code, "unexpected_response", response.content[:200].decode(errors="replace"), None, retry_after
    )
