"""Webhook endpoints in the resources table against moto: round trips, secrets sealed at rest,
partial updates, the plan-limit count, and the fan-out's read of enabled endpoints."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag

from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, ActorType, AuditEntry, audit_entry
from postline.shared.dynamo import key
from postline.shared.errors import Conflict, Forbidden, NotFound
from postline.shared.resources_table import account_pk
from postline.webhooks.domain import (
    BasicAuth,
    BearerAuth,
    CustomHeadersAuth,
    DisabledReason,
    EndpointAuth,
    HmacAuth,
    OAuth2Auth,
    WebhookEndpoint,
    mtls_auth,
)
from postline.webhooks.store import DynamoWebhookEndpoints, webhook_sk
from postline.wiring import accounts, webhooks
from tests.aws_stack import InProcessStack
from tests.certs import client_pair

NOW = datetime.now(UTC).replace(microsecond=0)
SECRETS = {
    "hmac": "whsec_" + "hmacSecretValue0" * 2 + "Zz9",
    "previous": "whsec_" + "prevSecretValue00" * 2,
    "token": "tok_live_bearer_token_value_0042",
    "password": "basic password value 17",
    "header": "custom-header-value-0099",
    "client_secret": "oauth-client-secret-value-77",
}


def auths() -> list[EndpointAuth]:
    cert, private_key = client_pair()
    return [
        HmacAuth(
            secret=SECRETS["hmac"],
            header="X-Acme-Signature",
            previous_secret=SECRETS["previous"],
            previous_expires_at=NOW + timedelta(hours=24),
        ),
        BearerAuth(token=SECRETS["token"]),
        BasicAuth(username="acme", password=SECRETS["password"]),
        CustomHeadersAuth(headers={"X-Api-Key": SECRETS["header"]}),
        OAuth2Auth(
            token_url="https://id.example.com/token",
            client_id="acme",
            client_secret=SECRETS["client_secret"],
            audience="https://hooks.example.com",
        ),
        mtls_auth(cert, private_key, NOW),
    ]


@pytest.fixture
def store(stack: InProcessStack) -> DynamoWebhookEndpoints:
    return webhooks.webhook_endpoints()


def _audit(account_id: str, action: str = "webhook.test") -> AuditEntry:
    return audit_entry(
        entry_id=str(uuid.uuid4()),
        account_id=account_id,
        actor=Actor(ActorType.USER, "u"),
        action=action,
        target=None,
        now=NOW,
    )


@pytest.fixture
def account(stack: InProcessStack) -> Account:
    account = Account(id=f"acct_{uuid.uuid4().hex}", plan=Plan.PROFESSIONAL, created_at=NOW)
    accounts.account_store().create_account(account, _audit(account.id, "account.created"))
    return account


def _endpoint(account: Account, auth: EndpointAuth | None = None, **fields: Any) -> WebhookEndpoint:
    return WebhookEndpoint(
        id=f"wh_{uuid.uuid4().hex}",
        account_id=account.id,
        url="https://hooks.example.com/in",
        auth=auth,
        created_at=NOW,
        updated_at=NOW,
        **fields,
    )


def _raw(stack: InProcessStack, endpoint: WebhookEndpoint) -> dict[str, Any]:
    item: dict[str, Any] = stack.client("dynamodb").get_item(
        TableName=stack.env["RESOURCES_TABLE"], Key=key(account_pk(endpoint.account_id), webhook_sk(endpoint.id))
    )["Item"]
    return item


def test_every_mode_round_trips_and_no_secret_is_stored_in_plaintext(
    stack: InProcessStack, store: DynamoWebhookEndpoints, account: Account
) -> None:
    for auth in auths():
        endpoint = _endpoint(account, auth, description="d")
        store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
        assert store.get_endpoint(account.id, endpoint.id) == endpoint

        stored = json.dumps(_raw(stack, endpoint))
        plaintexts = list(SECRETS.values())
        if auth.mode == "mtls":
            plaintexts.append(auth.key_pem)  # type: ignore[union-attr]
        assert not [s for s in plaintexts if s in stored], auth.mode
        assert "PRIVATE KEY" not in stored and "BEGIN" not in stored
        assert _raw(stack, endpoint)["auth_mode"] == {"S": auth.mode.value}


def test_an_endpoint_without_auth_stores_none(
    stack: InProcessStack, store: DynamoWebhookEndpoints, account: Account
) -> None:
    endpoint = _endpoint(account)
    store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
    assert store.get_endpoint(account.id, endpoint.id) == endpoint
    assert "auth_sealed" not in _raw(stack, endpoint)


def test_a_sealed_auth_opens_only_on_its_own_endpoint(
    stack: InProcessStack, store: DynamoWebhookEndpoints, account: Account
) -> None:
    first, second = _endpoint(account, BearerAuth(token=SECRETS["token"])), _endpoint(account, BearerAuth(token="x"))
    for endpoint in (first, second):
        store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
    moved = {**_raw(stack, second), "auth_sealed": _raw(stack, first)["auth_sealed"]}
    stack.client("dynamodb").put_item(TableName=stack.env["RESOURCES_TABLE"], Item=moved)
    fresh = DynamoWebhookEndpoints(
        stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"), stack.env["CONTENT_KEY_ID"]
    )  # no cached data keys: the wrapped key itself must refuse another endpoint's context
    with pytest.raises(Exception, match="InvalidCiphertext"):
        fresh.get_endpoint(account.id, second.id)
    assert store.get_endpoint(account.id, first.id) == first  # caches first's data key
    with pytest.raises(InvalidTag):  # a cached data key still meets the associated data
        store.get_endpoint(account.id, second.id)


def test_updates_write_only_the_named_fields(
    stack: InProcessStack, store: DynamoWebhookEndpoints, account: Account
) -> None:
    endpoint = _endpoint(account, HmacAuth(secret=SECRETS["hmac"]), description="before")
    store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
    # delivery's own counter update, meanwhile
    stack.client("dynamodb").update_item(
        TableName=stack.env["RESOURCES_TABLE"],
        Key=key(account_pk(account.id), webhook_sk(endpoint.id)),
        UpdateExpression="SET consecutive_failures = :n",
        ExpressionAttributeValues={":n": {"N": "4"}},
    )
    later = NOW + timedelta(minutes=1)
    disabled = endpoint.disable(DisabledReason.MANUAL, later).model_copy(
        update={"description": None, "auth": BearerAuth(token=SECRETS["token"])}
    )
    store.update_endpoint(
        disabled,
        fields={"enabled", "disabled_reason", "disabled_at", "description", "auth", "updated_at"},
        expected_updated_at=NOW,
        audit=_audit(account.id),
    )
    stored = store.get_endpoint(account.id, endpoint.id)
    assert stored == disabled.model_copy(update={"consecutive_failures": 4})
    assert "description" not in _raw(stack, endpoint)

    removed = stored.model_copy(update={"auth": None, "updated_at": later + timedelta(seconds=1)})
    store.update_endpoint(removed, fields={"auth", "updated_at"}, expected_updated_at=later, audit=_audit(account.id))
    raw = _raw(stack, endpoint)
    assert "auth_sealed" not in raw and "auth_mode" not in raw
    assert store.get_endpoint(account.id, endpoint.id) == removed


def test_an_update_from_a_stale_read_is_refused(store: DynamoWebhookEndpoints, account: Account) -> None:
    endpoint = _endpoint(account)
    store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
    with pytest.raises(Conflict, match="changed concurrently; retry"):  # it is there: a 409, not a 404
        store.update_endpoint(
            endpoint.model_copy(update={"description": "x"}),
            fields={"description"},
            expected_updated_at=NOW - timedelta(seconds=1),
            audit=_audit(account.id),
        )
    assert store.get_endpoint(account.id, endpoint.id) == endpoint
    gone = endpoint.model_copy(update={"id": "wh_not_stored"})
    with pytest.raises(NotFound, match="wh_not_stored not found"):
        store.update_endpoint(gone, fields={"description"}, expected_updated_at=NOW, audit=_audit(account.id))


def test_the_plan_limit_rides_on_the_account_count(
    stack: InProcessStack, store: DynamoWebhookEndpoints, account: Account
) -> None:
    first, second = _endpoint(account), _endpoint(account)
    store.create_endpoint(first, max_endpoints=2, audit=_audit(account.id))
    store.create_endpoint(second, max_endpoints=2, audit=_audit(account.id))
    with pytest.raises(Forbidden) as refused:
        store.create_endpoint(_endpoint(account), max_endpoints=2, audit=_audit(account.id))
    assert refused.value.code == "plan_limit_reached"
    store.delete_endpoint(first, _audit(account.id))
    with pytest.raises(NotFound):
        store.delete_endpoint(first, _audit(account.id))
    store.create_endpoint(_endpoint(account), max_endpoints=2, audit=_audit(account.id))
    assert store.list_endpoints(account.id, page=1, per_page=25)[1] == 2


def test_lists_page_oldest_first_and_the_fan_out_reads_enabled_endpoints(
    store: DynamoWebhookEndpoints, account: Account
) -> None:
    created = []
    for n in range(5):
        endpoint = _endpoint(account, auths()[n % 2], enabled=n % 2 == 0).model_copy(
            update={"id": f"wh_{n:03d}{uuid.uuid4().hex[:8]}"}
        )
        store.create_endpoint(endpoint, max_endpoints=50, audit=_audit(account.id))
        created.append(endpoint)
    page_two, total = store.list_endpoints(account.id, page=2, per_page=2)
    assert (page_two, total) == (created[2:4], 5)
    assert store.enabled_endpoints(account.id) == [e for e in created if e.enabled]
    assert store.enabled_endpoints(f"acct_{uuid.uuid4().hex}") == []
