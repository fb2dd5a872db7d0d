"""Webhook delivery history: GET /v3/webhooks/{id}/deliveries, newest first, cursor-paginated."""

from __future__ import annotations

from itertools import islice

from postline.domain.errors import NotFound
from postline.domain.identity import Principal
from postline.domain.webhook_history import (
    DeliveryFilters,
    HistoryCursor,
    WebhookDeliveryPage,
    decode_cursor,
    delivery_view,
    encode_cursor,
    history_window,
    months_between,
)
from postline.services.ports import Clock, DeliveryStore, SecretHasher, WebhookEndpoints


class DeliveryHistoryService:
    def __init__(
        self, *, deliveries: DeliveryStore, endpoints: WebhookEndpoints, hasher: SecretHasher, clock: Clock
    ) -> None:
        self._deliveries = deliveries
        self._endpoints = endpoints
        self._hasher = hasher  # keys the cursor's MAC
        self._clock = clock

    def list_page(
        self, principal: Principal, endpoint_id: str, filters: DeliveryFilters, *, limit: int, cursor: str | None
    ) -> WebhookDeliveryPage:
        """The first page fixes the window; the cursor carries it and the last delivery returned."""
        account = principal.account
        if self._endpoints.get_endpoint(account.id, endpoint_id) is None:
            raise NotFound(f"No webhook endpoint {endpoint_id} in this account.")
        fingerprint = filters.fingerprint(account.id, endpoint_id)
        before = None
        if cursor is not None:
            resumed = decode_cursor(cursor, self._hasher.hash, fingerprint=fingerprint)
            window, before, newest = resumed.window, resumed.position, resumed.at
        else:
            found = history_window(filters, now=self._clock.now(), retention_days=account.limits.retention_days)
            if found is None:
                return WebhookDeliveryPage(deliveries=[], has_more=False, next_cursor=None)
            window, newest = found, found.until
        found_deliveries = self._deliveries.for_endpoint(
            account.id,
            endpoint_id,
            months_between(window.since, newest),
            since=window.since,
            until=window.until,
            before=before,
            statuses=[filters.status] if filters.status else (),
            event_types=[filters.event] if filters.event else (),
            page_size=limit + 1,
        )
        page = list(islice(found_deliveries, limit + 1))
        has_more = len(page) > limit
        page = page[:limit]
        next_cursor = None
        if has_more:
            last = page[-1]
            position = HistoryCursor(
                fingerprint=fingerprint, since=window.since, until=window.until, at=last.created_at, delivery_id=last.id
            )
            next_cursor = encode_cursor(position, self._hasher.hash)
        return WebhookDeliveryPage(
            deliveries=[delivery_view(delivery) for delivery in page], has_more=has_more, next_cursor=next_cursor
        )
