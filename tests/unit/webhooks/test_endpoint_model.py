"""The webhook endpoint model: auth modes, header rules, events, rotation overlap, enable/disable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from postline.events.domain import EventType
from postline.webhooks.domain import (
    SECRET_OVERLAP,
    WEBHOOK_EVENT_TYPES,
    AuthMode,
    BasicAuth,
    BearerAuth,
    CustomHeadersAuth,
    DisabledReason,
    EndpointAuth,
    HmacAuth,
    OAuth2Auth,
    WebhookEndpoint,
)

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
SECRET = "whsec_" + "a1B2" * 8 + "Zq9x"
NEXT_SECRET = "whsec_" + "c3D4" * 8 + "Wk7y"
AUTH: TypeAdapter[Any] = TypeAdapter(EndpointAuth)


def endpoint(**fields: Any) -> WebhookEndpoint:
    return WebhookEndpoint.model_validate(
        {"id": "wh_1", "account_id": "acct_1", "url": "https://hooks.example.com/in", "created_at": NOW,
         "updated_at": NOW, **fields}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("data", "model"),
    [
        ({"mode": "hmac", "secret": SECRET}, HmacAuth),
        ({"mode": "bearer", "token": "tok_abcdefghijklmnop"}, BearerAuth),
        ({"mode": "basic", "username": "hooks", "password": "pa ss wörd"}, BasicAuth),
        ({"mode": "custom_headers", "headers": {"X-Api-Key": "k1", "Authorization": "Token t"}}, CustomHeadersAuth),
        (
            {"mode": "oauth2", "token_url": "https://id.example.com/token", "client_id": "c", "client_secret": "s"},
            OAuth2Auth,
        ),
    ],
)
def test_the_auth_union_picks_the_mode(data: dict[str, Any], model: type) -> None:
    auth = AUTH.validate_python(data)
    assert isinstance(auth, model)
    assert AUTH.validate_json(AUTH.dump_json(auth)) == auth  # what storage round-trips


@pytest.mark.parametrize(
    "data",
    [
        {"mode": "carrier_pigeon"},
        {"mode": "hmac", "secret": "whsec_short"},
        {"mode": "hmac", "secret": "sk_" + "a" * 40},
        {"mode": "hmac", "secret": SECRET, "header": "X-Svc-Other"},
        {"mode": "bearer", "token": "has space"},
        {"mode": "bearer", "token": ""},
        {"mode": "basic", "username": "a:b", "password": "p"},
        {"mode": "basic", "username": "u", "password": "line\nbreak"},
        {"mode": "custom_headers", "headers": {}},
        {"mode": "custom_headers", "headers": {f"X-H{i}": "v" for i in range(6)}},
        {"mode": "custom_headers", "headers": {"X-Key": "a", "x-key": "b"}},
        {"mode": "custom_headers", "headers": {"X-Key": "bad\r\nInjected: yes"}},
        {"mode": "custom_headers", "headers": {"X-Key": " padded"}},
        {"mode": "custom_headers", "headers": {"Bad Name": "v"}},
        {"mode": "oauth2", "token_url": "ftp://id.example.com", "client_id": "c", "client_secret": "s"},
        {"mode": "oauth2", "token_url": "https://u:p@id.example.com", "client_id": "c", "client_secret": "s"},
    ],
)
def test_invalid_auth_is_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AUTH.validate_python(data)


@pytest.mark.parametrize(
    "name",
    ["Host", "content-length", "Content-Type", "Transfer-Encoding", "X-Svc-Signature", "x-svc-anything", "Svc-Foo",
     "X-Webhook-Attempt", "User-Agent", "Connection"],
)  # fmt: skip
def test_reserved_headers_cannot_be_custom(name: str) -> None:
    with pytest.raises(ValidationError, match="reserved"):
        CustomHeadersAuth(headers={name: "v"})


def test_the_signature_header_may_keep_its_default_or_be_any_customer_header() -> None:
    assert HmacAuth(secret=SECRET).header == "X-Svc-Signature"
    assert HmacAuth(secret=SECRET, header="X-Acme-Signature").header == "X-Acme-Signature"
    with pytest.raises(ValidationError):
        HmacAuth(secret=SECRET, header="Content-Type")


def test_the_key_id_is_the_prefix_and_the_last_four_characters() -> None:
    assert HmacAuth(secret=SECRET).key_id == "whsec_Zq9x"


def test_a_rotated_secret_keeps_signing_for_24_hours_then_stops() -> None:
    rotated = HmacAuth(secret=SECRET, header="X-Sig").rotated(NEXT_SECRET, NOW)
    assert (rotated.secret, rotated.previous_secret, rotated.header) == (NEXT_SECRET, SECRET, "X-Sig")
    assert rotated.previous_expires_at == NOW + SECRET_OVERLAP == NOW + timedelta(hours=24)
    assert rotated.valid_secrets(NOW) == [NEXT_SECRET, SECRET]
    assert rotated.valid_secrets(NOW + timedelta(hours=23, minutes=59)) == [NEXT_SECRET, SECRET]
    assert rotated.valid_secrets(NOW + timedelta(hours=24)) == [NEXT_SECRET]
    assert rotated.valid_secrets(NOW + timedelta(hours=24, minutes=1)) == [NEXT_SECRET]


def test_rotating_twice_drops_the_oldest_secret() -> None:
    third = "whsec_" + "e5F6" * 8
    twice = HmacAuth(secret=SECRET).rotated(NEXT_SECRET, NOW).rotated(third, NOW + timedelta(hours=1))
    assert twice.valid_secrets(NOW + timedelta(hours=2)) == [third, NEXT_SECRET]


def test_an_endpoint_subscribes_to_every_public_event_by_default() -> None:
    created = endpoint()
    assert created.events == list(WEBHOOK_EVENT_TYPES) and len(created.events) == 11
    assert EventType.DUPLICATE not in created.events
    assert created.status == "active" and created.wants(EventType.DELIVERED)


def test_events_are_deduplicated_and_never_empty_or_duplicate_typed() -> None:
    assert endpoint(events=["bounced", "bounced", "complained"]).events == [EventType.BOUNCED, EventType.COMPLAINED]
    for events in ([], ["duplicate"], ["exploded"]):
        with pytest.raises(ValidationError):
            endpoint(events=events)


def test_wants_needs_enabled_and_subscribed() -> None:
    subscribed = endpoint(events=["bounced"])
    assert subscribed.wants(EventType.BOUNCED) and not subscribed.wants(EventType.DELIVERED)
    assert not subscribed.disable(DisabledReason.MANUAL, NOW).wants(EventType.BOUNCED)


def test_disable_then_enable_resets_the_failure_budget() -> None:
    failing = endpoint(consecutive_failures=20, failing_since=NOW - timedelta(hours=80))
    disabled = failing.disable(DisabledReason.AUTO_FAILURES, NOW)
    assert (disabled.enabled, disabled.status, disabled.disabled_reason, disabled.disabled_at) == (
        False,
        "disabled",
        DisabledReason.AUTO_FAILURES,
        NOW,
    )
    assert disabled.disable(DisabledReason.MANUAL, NOW + timedelta(hours=1)) == disabled  # the first reason stays
    later = NOW + timedelta(days=1)
    enabled = disabled.enable(later)
    assert (enabled.enabled, enabled.disabled_reason, enabled.disabled_at) == (True, None, None)
    assert (enabled.consecutive_failures, enabled.failing_since, enabled.updated_at) == (0, None, later)
    assert enabled.enable(later + timedelta(hours=1)) == enabled


@pytest.mark.parametrize(
    "url",
    ["ftp://hooks.example.com", "https://", "https://user:pw@hooks.example.com/", "https://hooks.example.com/#frag",
     "https://hooks.example.com:0/", "https://hooks.example.com:99999/", "hooks.example.com/in",
     "https://hooks.example.com/a b", "https://" + "a" * 2050 + ".com"],
)  # fmt: skip
def test_malformed_urls_are_refused(url: str) -> None:
    with pytest.raises(ValidationError):
        endpoint(url=url)


def test_modes_are_the_six_of_the_spec() -> None:
    assert [m.value for m in AuthMode] == ["hmac", "bearer", "basic", "custom_headers", "oauth2", "mtls"]
