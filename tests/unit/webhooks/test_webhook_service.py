"""The webhook endpoint service over the in-memory store: CRUD, auth modes, redaction, rotation,
plan limit, account scoping, and the URL guard with private URLs not allowed (the cloud default)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from postline.accounts.domain import PLAN_LIMITS, Plan
from postline.keys.identity import Principal
from postline.shared.errors import ApiError, Forbidden, NotFound, ValidationFailed
from postline.webhooks.domain import WEBHOOK_EVENT_TYPES
from postline.webhooks.models import AuthRequest, WebhookCreate, WebhookUpdate
from postline.webhooks.service import WebhookService
from postline.webhooks.url_guard import ResolvingUrlGuard
from tests.certs import client_pair
from tests.fakes.shared import DEFAULT_START, SequentialIds
from tests.fakes.webhooks import InMemoryWebhookEndpoints
from tests.unit.world import World

from .test_url_guard import DNS, FakeDns

URL = "https://hooks.example.com/postline?token=url-secret-123"
TOKEN = "tok_live_9f8e7d6c5b4a3210"
PASSWORD = "correct horse battery staple"
HEADER_VALUE = "hdr-value-0123456789"
CLIENT_SECRET = "oauth-client-secret-abcdef"


class DistinctIds(SequentialIds):
    """Secrets that differ at both ends, so each has its own key id (the last 4 characters)."""

    def secret(self, nbytes: int) -> str:
        head = super().secret(nbytes)[:4]
        return head + "S" * (nbytes - 8) + head


class Setup:
    def __init__(self, world: World) -> None:
        self.world = world
        self.endpoints = InMemoryWebhookEndpoints(world.store)
        self.service = WebhookService(
            endpoints=self.endpoints,
            guard=ResolvingUrlGuard(allow_private=False, resolve=FakeDns(DNS)),
            ids=DistinctIds(),
            clock=world.clock,
        )
        self.principal = self.new_principal()

    def new_principal(self, plan: Plan = Plan.FREE) -> Principal:
        return self.world.console_principal(self.world.account(plan=plan))

    def create(self, principal: Principal | None = None, **body: Any) -> Any:
        return self.service.create(principal or self.principal, WebhookCreate.model_validate({"url": URL, **body}))

    def update(self, endpoint_id: str, **body: Any) -> Any:
        return self.service.update(self.principal, endpoint_id, WebhookUpdate.model_validate(body))

    def actions(self) -> list[str]:
        return [e.action for e in self.world.store.audit_entries() if e.action.startswith("webhook.")]


@pytest.fixture
def setup(world: World) -> Setup:
    return Setup(world)


def mtls_body(now: datetime = DEFAULT_START) -> dict[str, Any]:
    cert, key = client_pair(not_before=now - timedelta(days=1), not_after=now + timedelta(days=90))
    return {"mtls": {"cert_pem": cert, "key_pem": key}}


ALL_MODES: dict[str, dict[str, Any]] = {
    "hmac": {"hmac": {"header": "X-Acme-Signature"}},
    "bearer": {"bearer": {"token": TOKEN}},
    "basic": {"basic": {"username": "acme", "password": PASSWORD}},
    "custom_headers": {"custom_headers": {"X-Api-Key": HEADER_VALUE, "Authorization": "Token " + HEADER_VALUE}},
    "oauth2": {
        "oauth2": {
            "token_url": "https://hooks.example.com/oauth/token",
            "client_id": "acme-hooks",
            "client_secret": CLIENT_SECRET,
            "scope": "events:write",
        }
    },
}


# -- the auth field -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [{}, {"hmac": {}, "bearer": {"token": "t"}}, {"hmac": None}, {"hmac": {}, "bearer": None}, {"ssh": {}},
     {"hmac": {"secret": "whsec_mine"}}, {"bearer": {}}, {"mtls": {"cert_pem": "x"}}],
)  # fmt: skip
def test_auth_takes_exactly_one_known_mode(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AuthRequest.model_validate(body)


@pytest.mark.parametrize("mode", [*ALL_MODES, "mtls"])
def test_each_mode_parses(mode: str) -> None:
    body = mtls_body() if mode == "mtls" else ALL_MODES[mode]
    assert AuthRequest.model_validate(body).model_fields_set == {mode}


# -- create, read, redaction ---------------------------------------------------------------------------


def test_create_defaults_to_every_event_and_no_auth(setup: Setup) -> None:
    created = setup.create()
    assert created.id.startswith("wh_") and created.events == list(WEBHOOK_EVENT_TYPES)
    assert (created.enabled, created.status, created.auth, created.secret) == (True, "active", None, None)
    assert setup.actions() == ["webhook.created"]


def test_an_hmac_secret_is_shown_once_then_only_its_key_id(setup: Setup) -> None:
    created = setup.create(auth={"hmac": {}}, events=["delivered", "bounced"])
    secret = created.secret
    assert secret.startswith("whsec_") and len(secret) >= len("whsec_") + 32
    assert created.auth.model_dump() == {
        "mode": "hmac",
        "header": "X-Svc-Signature",
        "key_id": "whsec_" + secret[-4:],
        "previous_key_id": None,
        "previous_expires_at": None,
    }
    read = setup.service.get(setup.principal, created.id)
    assert "secret" not in read.model_dump() and secret not in read.model_dump_json()
    listed = setup.service.list_page(setup.principal, page=1, per_page=25)
    assert secret not in listed.model_dump_json()
    assert setup.endpoints.get_endpoint(setup.principal.account.id, created.id).auth.secret == secret  # stored


@pytest.mark.parametrize("mode", [*ALL_MODES, "mtls"])
def test_reads_never_show_a_secret(setup: Setup, mode: str) -> None:
    body = mtls_body() if mode == "mtls" else ALL_MODES[mode]
    created = setup.create(auth=body)
    secrets = [TOKEN, PASSWORD, HEADER_VALUE, CLIENT_SECRET]
    if mode == "mtls":
        secrets += [body["mtls"]["key_pem"], body["mtls"]["cert_pem"], "PRIVATE KEY"]
    if created.secret:
        secrets.append(created.secret)
    for shown in (
        setup.service.get(setup.principal, created.id).model_dump_json(),
        setup.service.list_page(setup.principal, page=1, per_page=25).model_dump_json(),
        setup.update(created.id, description="touched").model_dump_json(),
    ):
        assert not [s for s in secrets if s in shown], shown


def test_the_redacted_shapes(setup: Setup) -> None:
    setup.principal = setup.new_principal(Plan.PROFESSIONAL)  # one endpoint per mode is more than Free's 5
    views = {mode: setup.create(auth=body).auth.model_dump(mode="json") for mode, body in ALL_MODES.items()}
    assert views["bearer"] == {"mode": "bearer", "token": "********3210"}
    assert views["basic"] == {"mode": "basic", "username": "acme", "password": "********"}
    assert views["custom_headers"] == {
        "mode": "custom_headers",
        "headers": {"X-Api-Key": "********", "Authorization": "********"},
    }
    assert views["oauth2"] == {
        "mode": "oauth2",
        "token_url": "https://hooks.example.com/oauth/token",
        "client_id": "acme-hooks",
        "client_secret": "********cdef",
        "scope": "events:write",
        "audience": None,
    }
    body = mtls_body()
    mtls = setup.create(auth=body).auth.model_dump()
    assert set(mtls) == {"mode", "fingerprint_sha256", "subject", "expires_at"}
    assert len(mtls["fingerprint_sha256"]) == 64 and mtls["subject"] == "CN=webhooks.client.example,O=Acme"


def test_a_short_secret_shows_no_hint(setup: Setup) -> None:
    assert setup.create(auth={"bearer": {"token": "short"}}).auth.token == "********"


def test_an_invalid_mtls_pair_is_a_validation_error(setup: Setup) -> None:
    mine, other = mtls_body()["mtls"], mtls_body()["mtls"]
    with pytest.raises(ValidationFailed, match="not the private key"):
        setup.create(auth={"mtls": {"cert_pem": mine["cert_pem"], "key_pem": other["key_pem"]}})
    expired = client_pair(
        not_before=setup.world.clock.now() - timedelta(days=30),
        not_after=setup.world.clock.now() - timedelta(days=1),
    )
    with pytest.raises(ValidationFailed, match="expired"):
        setup.create(auth={"mtls": {"cert_pem": expired[0], "key_pem": expired[1]}})
    assert setup.service.list_page(setup.principal, page=1, per_page=25).pagination.total_count == 0


def test_created_disabled_is_a_manual_disable(setup: Setup) -> None:
    created = setup.create(enabled=False)
    assert (created.status, created.disabled_reason, created.disabled_at) == (
        "disabled",
        "manual",
        setup.world.clock.now(),
    )


def test_list_pages(setup: Setup) -> None:
    ids = [setup.create(description=f"n{i}").id for i in range(3)]
    first = setup.service.list_page(setup.principal, page=1, per_page=2)
    second = setup.service.list_page(setup.principal, page=2, per_page=2)
    assert [w.id for w in first.items + second.items] == ids
    assert first.pagination.model_dump() == {"page": 1, "per_page": 2, "total_count": 3, "total_pages": 2}


# -- PUT -----------------------------------------------------------------------------------------------


def test_disable_and_enable_through_put(setup: Setup) -> None:
    created = setup.create()
    setup.world.clock.advance(60)
    disabled = setup.update(created.id, enabled=False)
    assert (disabled.enabled, disabled.status, disabled.disabled_reason) == (False, "disabled", "manual")
    assert disabled.disabled_at == setup.world.clock.now()

    account_id = setup.principal.account.id
    setup.endpoints.set_fields(account_id, created.id, consecutive_failures=7, failing_since="2025-03-10T00:00:00Z")
    setup.world.clock.advance(60)
    enabled = setup.update(created.id, enabled=True)
    assert (enabled.enabled, enabled.status, enabled.disabled_reason, enabled.disabled_at) == (
        True,
        "active",
        None,
        None,
    )
    stored = setup.endpoints.get_endpoint(account_id, created.id)
    assert (stored.consecutive_failures, stored.failing_since) == (0, None)


def test_put_writes_only_what_changed_and_keeps_delivery_counters(setup: Setup) -> None:
    created = setup.create(auth={"bearer": {"token": TOKEN}})
    account_id = setup.principal.account.id
    setup.endpoints.set_fields(account_id, created.id, consecutive_failures=3)
    setup.world.clock.advance(5)
    updated = setup.update(created.id, description="billing", events=["bounced"])
    assert (updated.description, updated.events, updated.auth.mode) == ("billing", ["bounced"], "bearer")
    assert updated.updated_at == setup.world.clock.now() and updated.secret is None
    assert setup.endpoints.get_endpoint(account_id, created.id).consecutive_failures == 3
    entries = [e for e in setup.world.store.audit_entries() if e.action == "webhook.updated"]
    assert entries[-1].details == "hooks.example.com (bearer); changed: description, events"


def test_put_without_changes_writes_nothing(setup: Setup) -> None:
    created = setup.create(description="same")
    assert setup.update(created.id, description="same", enabled=True).updated_at == created.updated_at
    assert setup.actions() == ["webhook.created"]


def test_put_auth_replaces_the_mode_and_absent_auth_keeps_it(setup: Setup) -> None:
    created = setup.create(auth={"bearer": {"token": TOKEN}})
    assert setup.update(created.id, url="https://hooks.example.com/v2").auth.mode == "bearer"
    switched = setup.update(created.id, auth={"hmac": {}})
    assert switched.auth.mode == "hmac" and switched.secret.startswith("whsec_")  # a new secret, shown once
    assert switched.auth.key_id == "whsec_" + switched.secret[-4:]
    removed = setup.update(created.id, auth=None)
    assert removed.auth is None


def test_put_hmac_on_an_hmac_endpoint_keeps_the_secret(setup: Setup) -> None:
    created = setup.create(auth={"hmac": {"header": "X-Acme-Signature"}})
    again = setup.update(created.id, auth={"hmac": {}})
    assert (again.secret, again.auth.key_id, again.auth.header) == (None, created.auth.key_id, "X-Acme-Signature")
    renamed = setup.update(created.id, auth={"hmac": {"header": "X-Sig"}})
    assert (renamed.secret, renamed.auth.key_id, renamed.auth.header) == (None, created.auth.key_id, "X-Sig")


@pytest.mark.parametrize("field", ["url", "events", "enabled"])
def test_required_fields_cannot_be_null(setup: Setup, field: str) -> None:
    created = setup.create()
    with pytest.raises(ValidationFailed, match=f"{field} cannot be null"):
        setup.update(created.id, **{field: None})


def test_description_null_clears_it(setup: Setup) -> None:
    created = setup.create(description="x")
    assert setup.update(created.id, description=None).description is None


# -- rotation --------------------------------------------------------------------------------------------


def test_rotation_returns_the_new_secret_and_keeps_the_old_for_24_hours(setup: Setup) -> None:
    created = setup.create(auth={"hmac": {}})
    rotated = setup.service.rotate_secret(setup.principal, created.id)
    now = setup.world.clock.now()
    assert rotated.secret != created.secret and rotated.auth.key_id == "whsec_" + rotated.secret[-4:]
    assert (rotated.auth.previous_key_id, rotated.auth.previous_expires_at) == (
        created.auth.key_id,
        now + timedelta(hours=24),
    )
    stored = setup.endpoints.get_endpoint(setup.principal.account.id, created.id).auth
    assert stored.valid_secrets(now + timedelta(hours=23, minutes=59)) == [rotated.secret, created.secret]
    assert stored.valid_secrets(now + timedelta(hours=24, minutes=1)) == [rotated.secret]

    setup.world.clock.advance(24 * 3600 + 60)
    read = setup.service.get(setup.principal, created.id).auth
    assert (read.previous_key_id, read.previous_expires_at) == (None, None)
    assert setup.actions() == ["webhook.created", "webhook.secret_rotated"]


@pytest.mark.parametrize("auth", [None, {"bearer": {"token": TOKEN}}])
def test_only_hmac_endpoints_rotate(setup: Setup, auth: dict[str, Any] | None) -> None:
    created = setup.create(auth=auth)
    with pytest.raises(ValidationFailed, match="Only hmac endpoints"):
        setup.service.rotate_secret(setup.principal, created.id)


# -- limits, scoping, the guard ---------------------------------------------------------------------------


def test_the_plan_limit_is_a_403_until_one_is_deleted(setup: Setup) -> None:
    limit = PLAN_LIMITS[Plan.FREE].webhook_endpoints
    created = [setup.create() for _ in range(limit)]
    with pytest.raises(Forbidden) as refused:
        setup.create()
    assert (refused.value.status, refused.value.code) == (403, "plan_limit_reached")
    setup.service.delete(setup.principal, created[0].id)
    setup.create()


def test_another_accounts_endpoint_is_not_found(setup: Setup) -> None:
    theirs = setup.create(principal=setup.new_principal(), auth={"hmac": {}})
    attempts = [
        lambda: setup.service.get(setup.principal, theirs.id),
        lambda: setup.update(theirs.id, enabled=False),
        lambda: setup.service.rotate_secret(setup.principal, theirs.id),
        lambda: setup.service.delete(setup.principal, theirs.id),
    ]
    for attempt in attempts:
        with pytest.raises(NotFound):
            attempt()


def test_delete_removes_and_audits(setup: Setup) -> None:
    created = setup.create()
    assert setup.service.delete(setup.principal, created.id).message
    with pytest.raises(NotFound):
        setup.service.get(setup.principal, created.id)
    assert setup.actions() == ["webhook.created", "webhook.deleted"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"url": "https://internal.example.com/hook"}, "private address"),
        ({"url": "http://hooks.example.com/hook"}, "https"),
        ({"url": "https://127.0.0.1:8080/hook"}, "loopback"),
        ({"url": "https://[::ffff:10.0.0.1]/hook"}, "IPv4 inside IPv6"),
        ({"url": "https://169.254.169.254/latest"}, "link-local"),
        (
            {
                "auth": {
                    "oauth2": {"token_url": "https://internal.example.com/t", "client_id": "c", "client_secret": "s"}
                }
            },
            "private address",
        ),
    ],
)
def test_private_urls_are_refused_when_the_setting_is_false(setup: Setup, body: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationFailed, match=message):
        setup.create(**body)
    assert setup.service.list_page(setup.principal, page=1, per_page=25).pagination.total_count == 0
    created = setup.create()
    with pytest.raises(ApiError, match=message):
        setup.update(created.id, **body)


def test_audit_details_name_the_host_not_the_url_or_secrets(setup: Setup) -> None:
    created = setup.create(auth={"hmac": {}})
    setup.service.rotate_secret(setup.principal, created.id)
    for entry in setup.world.store.audit_entries():
        dumped = entry.model_dump_json()
        assert "url-secret-123" not in dumped and created.secret not in dumped
    assert setup.world.store.audit_entries()[-1].details.startswith("hooks.example.com (hmac); new key id whsec_")


def test_re_enabling_always_writes_a_fresh_failure_budget(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    created = setup.create(enabled=False)
    account_id = setup.principal.account.id
    read = setup.endpoints.get_endpoint

    def read_then_fail(account: str, endpoint_id: str) -> Any:
        """Delivery records a failure between the PUT's read and its write (updated_at unchanged)."""
        endpoint = read(account, endpoint_id)
        setup.endpoints.set_fields(account, endpoint_id, consecutive_failures=1)
        return endpoint

    monkeypatch.setattr(setup.endpoints, "get_endpoint", read_then_fail)
    setup.update(created.id, enabled=True)
    assert read(account_id, created.id).consecutive_failures == 0
