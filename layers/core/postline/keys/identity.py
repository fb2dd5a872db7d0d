"""The authenticated caller of a request."""

from __future__ import annotations

from dataclasses import dataclass

from postline.accounts.domain import Account
from postline.audit.domain import Actor, ActorType
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey


@dataclass(frozen=True)
class Principal:
    """An account plus the credential used: an API key, or a console user (JWT) when key is None.

    `account` is the account the request acts in: every area reads and writes there. When an
    organisation's credential acts for one of its subaccounts (the On-Behalf-Of header, auth/service.py),
    `account` is the subaccount and `credential_account` the organisation's account, which owns the key."""

    account: Account
    scope: Scope
    env: Environment
    key: ApiKey | None = None
    user_id: str | None = None
    source_ip: str | None = None
    credential_account: Account | None = None

    @property
    def key_id(self) -> str:
        return self.key.id if self.key else ""

    def actor(self) -> Actor:
        return Actor(ActorType.USER, id=self.key.id if self.key else self.user_id, ip_address=self.source_ip)
