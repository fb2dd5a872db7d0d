"""The authenticated caller of a request."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from postline.accounts.domain import Account, AccountStatus, Plan
from postline.audit.domain import Actor, ActorType
from postline.keys.domain import ApiKey, Environment, Scope


@dataclass(frozen=True)
class Principal:
    """An account plus the credential used: an API key, or a console user (JWT) when key is None."""

    account: Account
    scope: Scope
    env: Environment
    key: ApiKey | None = None
    user_id: str | None = None
    source_ip: str | None = None

    @property
    def key_id(self) -> str:
        return self.key.id if self.key else ""

    def actor(self) -> Actor:
        return Actor(ActorType.USER, id=self.key.id if self.key else self.user_id, ip_address=self.source_ip)


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
