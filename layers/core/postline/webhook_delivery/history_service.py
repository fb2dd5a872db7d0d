"""Webhook delivery history: GET /v3/webhooks/{id}/deliveries, newest first, cursor-paginated."""

from __future__ import annotations

from postline.accounts.domain import retention_days
from postline.keys.identity import Principal
from postline.keys.ports import SecretHasher
from postline.shared.errors import NotFound
from postline.shared.ports import Clock
from postline.webhook_delivery.history import (
    DeliveryFilters,
    HistoryCursor,
    decode_cursor,
    encode_cursor,
    history_window,
    months_between,
    split_sort_key,
)
from postline.webhook_delivery.models import WebhookDeliveryPage, delivery_view
from postline.webhook_delivery.ports import DeliveryStore
from postline.webhooks.ports import WebhookEndpoints

HISTORY_BUDGET_SECONDS = 5.0  # a page's reads; the route's Lambda times out at 10 s


class DeliveryHistoryService:
    def __init__(
        self,
        *,
        deliveries: DeliveryStore,
        endpoints: WebhookEndpoints,
        hasher: SecretHasher,
        clock: Clock,
        budget_seconds: float = HISTORY_BUDGET_SECONDS,
    ) -> None:
        self._deliveries = deliveries
        self._endpoints = endpoints
        self._hasher = hasher  # keys the cursor's MAC
        self._clock = clock
        self._budget_seconds = budget_seconds

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
            now = self._clock.now()
            found = history_window(filters, now=now, retention_days=retention_days(account, now))
            if found is None:
                return WebhookDeliveryPage(deliveries=[], has_more=False, next_cursor=None)
            window, newest = found, found.until
        read = self._deliveries.read_history(
            account.id,
            endpoint_id,
            months_between(window.since, newest),
            since=window.since,
            until=window.until,
            before=before,
            statuses=[filters.status] if filters.status else (),
            event_types=[filters.event] if filters.event else (),
            want=limit + 1,
            budget_seconds=self._budget_seconds,
        )
        page = read.deliveries[:limit]
        if read.resume_at is not None:  # out of time: a short page (maybe empty) continuing past what was read
            at, delivery_id = split_sort_key(read.resume_at)
        elif len(read.deliveries) > limit:
            at, delivery_id = page[-1].created_at, page[-1].id
        else:
            return WebhookDeliveryPage(deliveries=[delivery_view(d) for d in page], has_more=False, next_cursor=None)
        position = HistoryCursor(
            fingerprint=fingerprint, since=window.since, until=window.until, at=at, delivery_id=delivery_id
        )
        return WebhookDeliveryPage(
            deliveries=[delivery_view(delivery) for delivery in page],
            has_more=True,
            next_cursor=encode_cursor(position, self._hasher.hash),
        )
