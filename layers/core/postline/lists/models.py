"""/v3/lists: what the routes take and return. Lists and members are returned as stored
(domain.MailingList, domain.ListMember)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator

from postline.lists.domain import MAX_BULK_MEMBERS, normalize_email
from postline.shared.base import Model
from postline.suppressions.domain import SkipReason

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Description = Annotated[str, StringConstraints(strip_whitespace=True, max_length=1_000)]
MemberName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Address = Annotated[str, StringConstraints(max_length=1_000)]
Vars = Annotated[
    dict[str, Any], Field(description="Free-form merge variables: at most 100 keys, 10,000 characters as JSON.")
]
MAX_VARS_KEYS = 100
MAX_VARS_CHARS = 10_000
REPLACE = (
    "false (default): each member's given `vars` are merged over the stored ones key by key (a key given as null "
    "is removed); true: they replace them."
)


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


def _address(value: str) -> str:
    return normalize_email(value)


def _vars(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """At most 100 keys and 10,000 characters as JSON: 99 members and the count stay far inside a
    transaction's 4 MB, and a member inside an item's 400 KB."""
    if value is not None and len(value) > MAX_VARS_KEYS:
        raise ValueError(f"vars: at most {MAX_VARS_KEYS} keys")
    if value is not None and len(json.dumps(value, default=str)) > MAX_VARS_CHARS:
        raise ValueError(f"vars: at most {MAX_VARS_CHARS:,} characters as JSON")
    return value


class ListCreate(_Strict):
    address: Address = Field(description="Any valid address, stored lowercased; unique in the account.")
    name: Name
    description: Description | None = None

    _check_address = field_validator("address")(_address)


class ListUpdate(_Strict):
    """PATCH /v3/lists/{id}: the fields given change; the address does not."""

    name: Name | None = None
    description: Description | None = Field(default=None, description="null clears it.")

    @model_validator(mode="after")
    def _something(self) -> ListUpdate:
        if not self.model_fields_set:
            raise ValueError("give name or description")
        if "name" in self.model_fields_set and self.name is None:
            raise ValueError("name: may not be null")
        return self


class MemberCreate(_Strict):
    address: Address = Field(description="Stored lowercased; unique in the list.")
    name: MemberName | None = None
    vars: Vars | None = None
    subscribed: bool = True

    _check_address = field_validator("address")(_address)
    _check_vars = field_validator("vars")(_vars)


class MemberUpdate(_Strict):
    """PATCH /v3/lists/{id}/members/{address}: the fields given change."""

    name: MemberName | None = None
    vars: Vars | None = Field(default=None, description="Replaces the member's vars (null clears them).")
    subscribed: bool | None = None

    _check_vars = field_validator("vars")(_vars)

    @model_validator(mode="after")
    def _something(self) -> MemberUpdate:
        if not self.model_fields_set:
            raise ValueError("give name, vars or subscribed")
        if "subscribed" in self.model_fields_set and self.subscribed is None:
            raise ValueError("subscribed: may not be null")
        return self


class BulkMember(_Strict):
    address: Address  # checked by the rules, so a bad one is skipped
    name: MemberName | None = None
    vars: Vars | None = None
    subscribed: bool | None = Field(default=None, description="New members default to true; absent keeps it.")

    _check_vars = field_validator("vars")(_vars)


class BulkMembersRequest(_Strict):
    """POST /v3/lists/{id}/members/bulk: up to 1,000 members, upserted by address."""

    members: list[BulkMember] = Field(min_length=1, max_length=MAX_BULK_MEMBERS)
    replace_vars: bool = Field(default=False, description=REPLACE)


class SkippedMember(Model):
    index: int = Field(description="Zero-based, in the request's members.")
    address: str = Field(description="As submitted.")
    reason: SkipReason


class BulkMembersResult(Model):
    created: int
    updated: int
    skipped: list[SkippedMember]
    member_count: int = Field(description="The list's member_count after the call.")


class MemberFilters(Model):
    subscribed: bool | None = None
