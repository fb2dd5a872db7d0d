"""Webhook endpoints: create, list, get, update (PUT), rotate the hmac secret, delete. Audited.

Secrets are write-only: the hmac secret is shown in the reply that creates it (create, a PUT that
switches to hmac, rotate) and never again; every read shows the redacted auth shape below.
"""

from __future__ import annotations

from datetime import datetime

from postline.audit.domain import AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.pagination import Page, make_page
from postline.shared.ports import Clock, IdFactory
from postline.webhooks.domain import (
    SECRET_PREFIX,
    SECRET_RANDOM_LENGTH,
    WEBHOOK_EVENT_TYPES,
    BasicAuth,
    BearerAuth,
    CustomHeadersAuth,
    DisabledReason,
    EndpointAuth,
    HmacAuth,
    OAuth2Auth,
    WebhookEndpoint,
    key_id_of,
    mtls_auth,
    url_target,
)
from postline.webhooks.models import (
    AuthRequest,
    Webhook,
    WebhookCreate,
    WebhookUpdate,
    WebhookWithSecret,
    webhook_view,
    with_secret,
)
from postline.webhooks.ports import UrlGuard, WebhookEndpoints

# -- requests ---------------------------------------------------------------------------------------


# -- reads --------------------------------------------------------------------------------------------


# Fields an owner's PUT may change. The failure counters belong to delivery, but re-enabling
# resets them, always (a failure recorded after this read must not survive the fresh budget).
_MUTABLE = ("url", "events", "description", "enabled", "disabled_reason", "disabled_at", "auth")
_RESETS = {"consecutive_failures", "failing_since"}


class WebhookService:
    def __init__(self, *, endpoints: WebhookEndpoints, guard: UrlGuard, ids: IdFactory, clock: Clock) -> None:
        self._endpoints = endpoints
        self._guard = guard
        self._ids = ids
        self._clock = clock

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[Webhook]:
        items, total = self._endpoints.list_endpoints(principal.account.id, page=page, per_page=per_page)
        now = self._clock.now()
        return make_page([webhook_view(e, now) for e in items], page=page, per_page=per_page, total_count=total)

    def get(self, principal: Principal, endpoint_id: str) -> Webhook:
        return webhook_view(self._require(principal, endpoint_id), self._clock.now())

    def create(self, principal: Principal, request: WebhookCreate) -> WebhookWithSecret:
        now = self._clock.now()
        self._guard.check(request.url)
        auth, secret = self._auth(request.auth, None, now) if request.auth else (None, None)
        endpoint = WebhookEndpoint(
            id=self._ids.new_id("wh_"),
            account_id=principal.account.id,
            url=request.url,
            events=request.events or list(WEBHOOK_EVENT_TYPES),
            description=request.description,
            auth=auth,
            created_at=now,
            updated_at=now,
        )
        if not request.enabled:
            endpoint = endpoint.disable(DisabledReason.MANUAL, now)
        self._endpoints.create_endpoint(
            endpoint,
            max_endpoints=principal.account.limits.webhook_endpoints,
            audit=self._audit(principal, endpoint, "webhook.created", now),
        )
        return with_secret(endpoint, now, secret)

    def update(self, principal: Principal, endpoint_id: str, request: WebhookUpdate) -> WebhookWithSecret:
        current = self._require(principal, endpoint_id)
        now = self._clock.now()
        given = request.model_fields_set
        for required in ("url", "events", "enabled"):
            if required in given and getattr(request, required) is None:
                raise ValidationFailed(f"{required} cannot be null.")
        changes: dict[str, object] = {
            name: getattr(request, name) for name in ("url", "events", "description") if name in given
        }
        if request.url is not None and request.url != current.url:
            self._guard.check(request.url)
        secret = None
        if "auth" in given:
            changes["auth"], secret = self._auth(request.auth, current.auth, now) if request.auth else (None, None)
        updated = current.model_copy(update=changes)
        if request.enabled is True:
            updated = updated.enable(now)
        elif request.enabled is False:
            updated = updated.disable(DisabledReason.MANUAL, now)
        fields = {name for name in _MUTABLE if getattr(updated, name) != getattr(current, name)}
        if not fields:  # nothing changes: no write, no audit entry
            return with_secret(current, now, None)
        updated = updated.model_copy(update={"updated_at": now})
        audit = self._audit(principal, updated, "webhook.updated", now, "changed: " + ", ".join(sorted(fields)))
        if updated.enabled and not current.enabled:
            fields |= _RESETS
        self._endpoints.update_endpoint(
            updated, fields=fields | {"updated_at"}, expected_updated_at=current.updated_at, audit=audit
        )
        return with_secret(updated, now, secret)

    def rotate_secret(self, principal: Principal, endpoint_id: str) -> WebhookWithSecret:
        current = self._require(principal, endpoint_id)
        if not isinstance(current.auth, HmacAuth):
            mode = current.auth.mode.value if current.auth else "none"
            raise ValidationFailed(f"Only hmac endpoints have a signing secret to rotate; this one's auth is {mode}.")
        now = self._clock.now()
        secret = self._new_secret()
        rotated = current.model_copy(update={"auth": current.auth.rotated(secret, now), "updated_at": now})
        audit = self._audit(principal, rotated, "webhook.secret_rotated", now, f"new key id {key_id_of(secret)}")
        self._endpoints.update_endpoint(
            rotated, fields={"auth", "updated_at"}, expected_updated_at=current.updated_at, audit=audit
        )
        return with_secret(rotated, now, secret)

    def delete(self, principal: Principal, endpoint_id: str) -> DeleteConfirmation:
        endpoint = self._require(principal, endpoint_id)
        now = self._clock.now()
        self._endpoints.delete_endpoint(endpoint, self._audit(principal, endpoint, "webhook.deleted", now))
        return DeleteConfirmation(message=f"Webhook endpoint {endpoint.id} deleted; it receives no more events.")

    def _require(self, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
        endpoint = self._endpoints.get_endpoint(principal.account.id, endpoint_id)
        if endpoint is None:
            raise NotFound(f"No webhook endpoint {endpoint_id} in this account.")
        return endpoint

    def _new_secret(self) -> str:
        return SECRET_PREFIX + self._ids.secret(SECRET_RANDOM_LENGTH)

    def _auth(
        self, request: AuthRequest, current: EndpointAuth | None, now: datetime
    ) -> tuple[EndpointAuth, str | None]:
        """The stored auth for a requested mode, and the new hmac secret when one was generated."""
        if request.hmac is not None:
            header = request.hmac.header
            if isinstance(current, HmacAuth):  # staying on hmac keeps the secret; rotate to change it
                if "header" not in request.hmac.model_fields_set:
                    header = current.header
                return current.model_copy(update={"header": header}), None
            secret = self._new_secret()
            return HmacAuth(secret=secret, header=header), secret
        if request.bearer is not None:
            return BearerAuth(token=request.bearer.token), None
        if request.basic is not None:
            return BasicAuth(username=request.basic.username, password=request.basic.password), None
        if request.custom_headers is not None:
            return CustomHeadersAuth(headers=request.custom_headers), None
        if request.oauth2 is not None:
            self._guard.check(request.oauth2.token_url)
            return OAuth2Auth(**request.oauth2.model_dump()), None
        assert request.mtls is not None  # AuthRequest holds exactly one mode
        return mtls_auth(request.mtls.cert_pem, request.mtls.key_pem, now), None

    def _audit(
        self, principal: Principal, endpoint: WebhookEndpoint, action: str, now: datetime, details: str | None = None
    ) -> AuditEntry:
        # The host only: customers put tokens in webhook URLs' paths and queries.
        summary = f"{url_target(endpoint.url).host} ({endpoint.auth.mode.value if endpoint.auth else 'no auth'})"
        summary = f"{summary}; {details}" if details else summary
        return new_audit_entry(
            self._ids, principal.actor(), principal.account.id, action, endpoint.id, summary, now=now
        )
