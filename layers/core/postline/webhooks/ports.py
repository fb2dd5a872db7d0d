"""Webhook endpoints as storage keeps them, and the URL guard.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry
    from postline.webhooks.domain import WebhookEndpoint


class EndpointDirectory(Protocol):
    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        """The account's enabled endpoints, secrets decrypted."""
        ...

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None: ...

    def record_success(self, account_id: str, endpoint_id: str) -> None:
        """Resets the endpoint's failure streak."""
        ...

    def record_failure(self, account_id: str, endpoint_id: str, now: datetime) -> WebhookEndpoint | None:
        """Adds a fully-failed delivery to the streak of an enabled endpoint; the endpoint after it."""
        ...

    def auto_disable(self, endpoint: WebhookEndpoint, entry: AuditEntry) -> bool:
        """Disables an endpoint whose streak qualifies, with its audit entry; False if another did."""
        ...


class UrlGuard(Protocol):
    def check(self, url: str) -> None:
        """Raises ValidationFailed unless webhooks may go to `url`: https (http only where private
        URLs are allowed), no credentials, and every address the host resolves to public unless
        private URLs are allowed. Delivery calls it again at send time (DNS rebinding)."""
        ...


class WebhookEndpoints(Protocol):
    """Endpoints with their auth decrypted; storage keeps every secret encrypted."""

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None: ...

    def list_endpoints(self, account_id: str, *, page: int, per_page: int) -> tuple[list[WebhookEndpoint], int]:
        """One page, oldest first, and the total count."""
        ...

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        """Every enabled endpoint of the account (the fan-out's read: one Query)."""
        ...

    def create_endpoint(self, endpoint: WebhookEndpoint, *, max_endpoints: int, audit: AuditEntry) -> None:
        """Raises Forbidden(plan_limit_reached) when the account already holds max_endpoints."""
        ...

    def update_endpoint(
        self, endpoint: WebhookEndpoint, *, fields: set[str], expected_updated_at: datetime, audit: AuditEntry
    ) -> None:
        """Writes only `fields` of the endpoint, if it still has the updated_at it was read with
        (else NotFound): counters written meanwhile by delivery are kept."""
        ...

    def delete_endpoint(self, endpoint: WebhookEndpoint, audit: AuditEntry) -> None: ...
