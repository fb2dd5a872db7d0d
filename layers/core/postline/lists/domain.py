"""Mailing lists and their members (the interface's MailingList and ListMember).

Pure rules: a list's address is any valid address (syntax only, lowercased, like the suppression
lists: it is the key a send's `to` names, not a mailbox this service receives for, so it needs no
verified domain); a list's id is a time-ordered UUID (version 7 layout), so the account's lists
sort by creation; a member's id is derived from (list, address), so every writer of the same
member names it alike; and how a bulk upsert merges or replaces a member's `vars`.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from postline.shared.addresses import normalize_email
from postline.shared.base import Model

MAX_BULK_MEMBERS = 1_000  # members in one bulk upsert
TRANSACTION_MEMBERS = 99  # members in one transaction, beside the list's member_count update
_MEMBER_IDS = uuid.UUID("0b7d3f52-6a41-4f0e-8c2d-3e9a51c7d6b4")  # the uuid5 namespace of member ids

__all__ = ["normalize_email"]


class MailingList(Model):
    id: str
    account_id: str
    address: str  # lowercased; the primary lookup key, unique in the account
    name: str
    description: str | None = None
    member_count: int = 0
    created_at: datetime


class ListMember(Model):
    id: str
    list_id: str
    address: str  # lowercased; unique in the list
    name: str | None = None
    vars: dict[str, Any] | None = None
    subscribed: bool = True
    created_at: datetime


def new_list_id(now: datetime) -> str:
    """A UUID whose first 48 bits are the creation time in milliseconds (the version 7 layout), the
    rest random: ids sort by creation, so the account's lists page in creation order."""
    millis = int(now.timestamp() * 1000) & ((1 << 48) - 1)
    value = (millis << 80) | int.from_bytes(secrets.token_bytes(10), "big")
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version 7
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return str(uuid.UUID(int=value))


def member_id(list_id: str, address: str) -> str:
    return str(uuid.uuid5(_MEMBER_IDS, f"{list_id}\n{address}"))


def looks_like_address(value: str) -> bool:
    """A path's list reference: an address (it has an @), else an id."""
    return "@" in value


def merged_vars(
    current: dict[str, Any] | None, given: dict[str, Any] | None, *, replace: bool
) -> dict[str, Any] | None:
    """A member's vars after an upsert: `given` replaces them (replace, or nothing stored yet), or is
    merged over them key by key (a key given as null is removed). None given keeps them as they are."""
    if given is None:
        return current
    if replace or current is None:
        return {name: value for name, value in given.items() if value is not None} or None
    merged = {**current, **given}
    return {name: value for name, value in merged.items() if value is not None} or None


def chunks(items: list[Any], size: int = TRANSACTION_MEMBERS) -> list[list[Any]]:
    return [items[start : start + size] for start in range(0, len(items), size)]
