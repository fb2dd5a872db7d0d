"""/v3/keys: what the key routes take and return (the secret only in create and rotate replies)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from postline.keys.access import Environment, Scope
from postline.keys.domain import MAX_ALLOWLIST_ENTRIES, AllowlistEntry, ApiKey, TestOutcomes
from postline.shared.base import Model

KeyName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


Allowlist = Annotated[list[AllowlistEntry], Field(max_length=MAX_ALLOWLIST_ENTRIES)]


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class KeyCreate(_Strict):
    name: KeyName
    scope: Scope = Scope.FULL_ACCESS
    env: Environment = Environment.LIVE
    verify_before_send: bool | None = None
    test_outcomes: TestOutcomes | None = None
    ip_allowlist: Allowlist = Field(default_factory=list)

    @model_validator(mode="after")
    def _outcomes_only_for_test(self) -> KeyCreate:
        if self.env is Environment.LIVE and self.test_outcomes is not None:
            raise ValueError("test_outcomes apply to test keys only; live keys always have null")
        return self


class KeyUpdate(_Strict):
    """PATCH: only the fields present change. test_outcomes null resets a test key to the defaults."""

    name: KeyName | None = None
    scope: Scope | None = None
    verify_before_send: bool | None = None
    test_outcomes: TestOutcomes | None = None
    ip_allowlist: Allowlist | None = None


class KeyDetail(Model):
    id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    verify_before_send: bool | None
    test_outcomes: TestOutcomes | None
    ip_allowlist: list[AllowlistEntry]
    last_used_at: datetime | None
    created_at: datetime


class KeyCreated(Model):
    id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    key: str = Field(description="The full secret. Shown only in this reply; store it now.")
    created_at: datetime


class KeyRotated(Model):
    id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    key: str = Field(description="The new secret, shown once. The previous secret stopped working.")
    verify_before_send: bool | None
    test_outcomes: TestOutcomes | None
    ip_allowlist: list[AllowlistEntry]
    created_at: datetime


class DeleteConfirmation(Model):
    message: str


def detail(api_key: ApiKey) -> KeyDetail:
    return KeyDetail.model_validate(api_key.model_dump())
