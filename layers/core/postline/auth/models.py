"""GET /v3/whoami: the account and the key a request authenticated with."""

from __future__ import annotations

from pydantic import BaseModel

from postline.accounts.domain import AccountStatus, Plan
from postline.auth.identity import Principal
from postline.keys.domain import Environment, Scope


class IdentityAccount(BaseModel):
    id: str
    name: str | None
    plan: Plan | None
    status: AccountStatus | None


class IdentityKey(BaseModel):
    id: str | None
    scope: Scope | None
    environment: Environment | None


class Identity(BaseModel):
    account: IdentityAccount
    api_key: IdentityKey


def identity_of(principal: Principal) -> Identity:
    account = principal.account
    return Identity(
        account=IdentityAccount(id=account.id, name=account.name, plan=account.plan, status=account.status),
        api_key=IdentityKey(id=principal.key_id, scope=principal.scope, environment=principal.env),
    )
