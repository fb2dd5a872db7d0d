"""/v3/subaccounts: what the routes take and return (the interface's Subaccount)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints

from postline.accounts.domain import Account
from postline.shared.base import Model
from postline.subaccounts.domain import SLUG_PATTERN, SubaccountStatus, check_slug, status_of

SubaccountName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Slug = Annotated[
    str,
    StringConstraints(min_length=1, max_length=63, pattern=SLUG_PATTERN),
    AfterValidator(check_slug),
    Field(description="URL-safe (a-z, 0-9, '-'), unique in the organisation, fixed at creation; not a UUID."),
]


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class SubaccountCreate(_Strict):
    name: SubaccountName
    slug: Slug


class SubaccountUpdate(_Strict):
    """PATCH: the name. The slug is immutable: naming another one is 400 validation_error."""

    name: SubaccountName | None = None
    slug: Annotated[str, StringConstraints(max_length=63)] | None = Field(
        default=None, description="Immutable: only the current slug is accepted."
    )


class Subaccount(Model):
    id: str = Field(description="A UUID: the subaccount's account id.")
    parent_account_id: str
    name: str
    slug: str
    status: SubaccountStatus
    created_at: datetime


def subaccount_of(account: Account) -> Subaccount:
    return Subaccount(
        id=account.id,
        parent_account_id=account.parent_account_id or "",
        name=account.name or "",
        slug=account.slug or "",
        status=status_of(account),
        created_at=account.created_at,
    )
