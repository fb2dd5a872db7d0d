"""In-memory fakes of the webhooks area's ports (`postline/webhooks/ports.py`): endpoints as the API and
the fan-out read them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from postline.audit.domain import AuditEntry
from postline.audit.ports import AuditStore
from postline.shared.errors import Conflict, Forbidden, NotFound
from postline.shared.pagination import page_window
from postline.webhooks.domain import WebhookEndpoint

if TYPE_CHECKING:
    from postline.webhooks.ports import EndpointDirectory, WebhookEndpoints
    from tests.fakes.keys import InMemoryStore


class InMemoryWebhookEndpoints:
    """WebhookEndpoints with the DynamoDB adapter's semantics (`postline.webhooks.store`):
    - create refuses with Forbidden(plan_limit_reached) once the account holds max_endpoints;
    - update writes only the named fields, and only while the stored updated_at is the one the
      caller read (else NotFound), so counters written meanwhile survive;
    - lists are oldest first (ids sort by creation); every write records its audit entry in `audit`.
    """

    def __init__(self, audit: AuditStore) -> None:
        self._audit = audit
        self._items: dict[tuple[str, str], dict[str, Any]] = {}
        self._counts: dict[str, int] = {}

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None:
        data = self._items.get((account_id, endpoint_id))
        return WebhookEndpoint.model_validate(data) if data is not None else None

    def list_endpoints(self, account_id: str, *, page: int, per_page: int) -> tuple[list[WebhookEndpoint], int]:
        endpoints = self._all(account_id)
        start, stop = page_window(page, per_page)
        return endpoints[start:stop], len(endpoints)

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        return [e for e in self._all(account_id) if e.enabled]

    def create_endpoint(self, endpoint: WebhookEndpoint, *, max_endpoints: int, audit: AuditEntry) -> None:
        count = self._counts.get(endpoint.account_id, 0)
        if count >= max_endpoints:
            raise Forbidden(f"Your plan allows at most {max_endpoints} webhook endpoints.", code="plan_limit_reached")
        if (endpoint.account_id, endpoint.id) in self._items:
            raise RuntimeError(f"webhook endpoint id {endpoint.id} collided (the adapter's raw ClientError: a 500)")
        self._counts[endpoint.account_id] = count + 1
        self._items[(endpoint.account_id, endpoint.id)] = endpoint.model_dump(mode="json")
        self._audit.record(audit)

    def update_endpoint(
        self, endpoint: WebhookEndpoint, *, fields: set[str], expected_updated_at: datetime, audit: AuditEntry
    ) -> None:
        stored = self._items.get((endpoint.account_id, endpoint.id))
        if stored is None:
            raise NotFound(f"webhook endpoint {endpoint.id} not found")
        if datetime.fromisoformat(stored["updated_at"]) != expected_updated_at:
            raise Conflict(f"webhook endpoint {endpoint.id} changed concurrently; retry")
        data = endpoint.model_dump(mode="json")
        stored.update({name: data[name] for name in fields})
        self._audit.record(audit)

    def delete_endpoint(self, endpoint: WebhookEndpoint, audit: AuditEntry) -> None:
        if self._items.pop((endpoint.account_id, endpoint.id), None) is None:
            raise NotFound(f"webhook endpoint {endpoint.id} not found")
        self._counts[endpoint.account_id] -= 1
        self._audit.record(audit)

    def set_fields(self, account_id: str, endpoint_id: str, **fields: Any) -> None:
        """What delivery's own UpdateItem does (failure counters): no updated_at change, no audit."""
        self._items[(account_id, endpoint_id)].update(fields)

    def _all(self, account_id: str) -> list[WebhookEndpoint]:
        return [
            WebhookEndpoint.model_validate(data)
            for (owner, _), data in sorted(self._items.items())
            if owner == account_id
        ]


class NoEndpoints:
    """EndpointDirectory of an account with no endpoints (per-message webhook_urls only): nothing to
    find, and a streak write finds no endpoint, as the adapter's conditions answer for a missing one."""

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        return []

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None:
        return None

    def record_success(self, account_id: str, endpoint_id: str) -> None:
        return None

    def record_failure(self, account_id: str, endpoint_id: str, now: datetime) -> WebhookEndpoint | None:
        return None

    def auto_disable(self, endpoint: WebhookEndpoint, entry: AuditEntry) -> bool:
        return False


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _endpoints: WebhookEndpoints = InMemoryWebhookEndpoints(InMemoryStore())
    _directory: EndpointDirectory = NoEndpoints()
