"""The authenticated caller of a request."""

from __future__ import annotations

from dataclasses import dataclass

from postline.accounts.domain import Account
from postline.audit.domain import Actor, ActorType
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey


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
