"""GET /v3/whoami: the account and the key a request authenticated with."""

from __future__ import annotations

from postline.accounts.domain import AccountStatus, Plan
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.base import Model


class IdentityAccount(Model):
    id: str
    name: str | None
    plan: Plan | None
    status: AccountStatus | None


class IdentityKey(Model):
    id: str | None
    scope: Scope | None
    environment: Environment | None


class Identity(Model):
    account: IdentityAccount
    api_key: IdentityKey


def identity_of(principal: Principal) -> Identity:
    account = principal.account
    return Identity(
        account=IdentityAccount(id=account.id, name=account.name, plan=account.plan, status=account.status),
        api_key=IdentityKey(id=principal.key_id, scope=principal.scope, environment=principal.env),
    )
