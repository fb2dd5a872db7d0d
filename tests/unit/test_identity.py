"""GET /v3/whoami: the resolved caller, by key or by console JWT."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.accounts.domain import Account, AccountStatus, Plan
from postline.audit.domain import ActorType
from postline.auth.models import identity_of
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey
from postline.keys.identity import Principal

AT = datetime(2025, 3, 14, tzinfo=UTC)
ACCOUNT = Account(id="acct_1", name="Acme", plan=Plan.PROFESSIONAL, status=AccountStatus.TRIALING, created_at=AT)
KEY = ApiKey(
    id="key_1",
    account_id="acct_1",
    name="ci",
    prefix="pl_test_abcd",
    scope=Scope.SEND_ONLY,
    env=Environment.TEST,
    key_hash="h",
    created_at=AT,
)


def test_identity_of_a_key_names_the_key_its_scope_and_environment() -> None:
    principal = Principal(account=ACCOUNT, scope=KEY.scope, env=KEY.env, key=KEY, source_ip="203.0.113.9")
    assert identity_of(principal).model_dump(mode="json") == {
        "account": {"id": "acct_1", "name": "Acme", "plan": "professional", "status": "trialing"},
        "api_key": {"id": "key_1", "scope": "send_only", "environment": "test"},
    }


def test_identity_of_a_console_user_has_an_empty_key_id() -> None:
    principal = Principal(account=ACCOUNT, scope=Scope.FULL_ACCESS, env=Environment.LIVE, user_id="usr_1")
    assert identity_of(principal).api_key.model_dump(mode="json") == {
        "id": "",
        "scope": "full_access",
        "environment": "live",
    }


def test_a_key_acts_as_a_user_identified_by_the_key_id_and_source_ip() -> None:
    actor = Principal(account=ACCOUNT, scope=KEY.scope, env=KEY.env, key=KEY, source_ip="203.0.113.9").actor()
    assert (actor.type, actor.id, actor.ip_address) == (ActorType.USER, "key_1", "203.0.113.9")


def test_a_console_user_acts_under_their_user_id() -> None:
    principal = Principal(account=ACCOUNT, scope=Scope.FULL_ACCESS, env=Environment.LIVE, user_id="usr_1")
    assert (principal.actor().type, principal.actor().id) == (ActorType.USER, "usr_1")
