"""Suppression lists: addresses that must not be mailed (bounces, unsubscribes, complaints), and the
allowlist that overrides them (the interface's suppression types).

Pure rules: which entries block a send, how an address is normalized (email-validator, syntax only,
then lowercased: the lists match addresses case-insensitively), an entry's id (derived from the
account, type and address, so every writer of the same entry names it alike), and how a bulk add's
entries are sorted into writes and skips.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from postline.shared.addresses import normalize_email
from postline.shared.base import Model

MAX_BULK = 10_000  # entries in one bulk add or bulk delete
BULK_CALLS_PER_MINUTE = 10  # bulk add, bulk delete and import together, per account
BULK_ENTRIES_PER_MINUTE = 10_000  # entries through bulk add and bulk delete together, per account
_IDS = uuid.UUID("5f0c2a8e-2d3b-4c1e-9a53-7b1f0e6d4c21")  # the uuid5 namespace of suppression ids


class SuppressionType(StrEnum):
    BOUNCES = "bounces"
    UNSUBSCRIBES = "unsubscribes"
    COMPLAINTS = "complaints"
    ALLOWLIST = "allowlist"


class SuppressionSource(StrEnum):
    VERIFICATION = "verification"
    MANUAL = "manual"
    IMPORT = "import"
    DELIVERY_REPORT = "delivery_report"


class SkipReason(StrEnum):
    INVALID_SYNTAX = "invalid_syntax"
    DUPLICATE_IN_BATCH = "duplicate_in_batch"


class Suppression(Model):
    id: str
    account_id: str
    type: SuppressionType
    email: str  # lowercased
    reason: str | None = None
    source: SuppressionSource | None = None
    override_unsubscribes: bool = False
    created_at: datetime


def blocks(entries: list[Suppression]) -> bool:
    """Whether one address's entries stop a send to it: any block list entry, unless allowlisted
    (an allowlist entry overrides unsubscribes only when it says so)."""
    types = {entry.type for entry in entries}
    allow = next((entry for entry in entries if entry.type is SuppressionType.ALLOWLIST), None)
    if allow is None:
        return bool(types - {SuppressionType.ALLOWLIST})
    return bool(SuppressionType.UNSUBSCRIBES in types and not allow.override_unsubscribes)


def suppression_id(account_id: str, kind: SuppressionType, email: str) -> str:
    """The entry's id: a UUID derived from what the entry is, so two writers of the same entry (a
    bulk add racing a delivery report) give it one id, and a re-added entry keeps its id."""
    return str(uuid.uuid5(_IDS, f"{account_id}\n{kind.value}\n{email}"))


def bulk_call_digest(operation: str, request: str) -> str:
    """What names one bulk call in its minute's window: the operation (add, delete) and the request as
    validated (its JSON). A retry of the identical call, say after API Gateway cut the first try at 29 s
    while its function ran on, does the same idempotent work, so the window charges its entries once."""
    return hashlib.sha256(f"{operation}\n{request}".encode()).hexdigest()


def new_suppression(
    account_id: str,
    kind: SuppressionType,
    email: str,
    now: datetime,
    *,
    reason: str | None = None,
    source: SuppressionSource | None = None,
    override_unsubscribes: bool = False,
) -> Suppression:
    """An entry for an already normalized `email`; override_unsubscribes only on the allowlist."""
    if override_unsubscribes and kind is not SuppressionType.ALLOWLIST:
        raise ValueError("override_unsubscribes is only for allowlist entries")
    # Built without validation: every field is one of the types above, checked by the caller's request
    # model or made here (a bulk add builds 10,000 entries).
    return Suppression.model_construct(
        id=suppression_id(account_id, kind, email),
        account_id=account_id,
        type=kind,
        email=email,
        reason=reason,
        source=source,
        override_unsubscribes=override_unsubscribes,
        created_at=now,
    )


@dataclass(frozen=True)
class Skipped:
    index: int  # zero-based, in the request's entries
    email: str  # as submitted
    reason: SkipReason


@dataclass(frozen=True)
class Sorted:
    """A bulk request's entries: the distinct addresses to write (normalized, with the index of
    their first occurrence), and the ones skipped, in request order."""

    accepted: list[tuple[int, str]]
    skipped: list[Skipped]


def sort_entries(emails: list[str]) -> Sorted:
    """Each submitted address is accepted (its first occurrence, normalized) or skipped: not an
    address (invalid_syntax), or the same address as an earlier entry (duplicate_in_batch)."""
    accepted: list[tuple[int, str]] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for index, submitted in enumerate(emails):
        try:
            email = normalize_email(submitted)
        except ValueError:
            skipped.append(Skipped(index, submitted, SkipReason.INVALID_SYNTAX))
            continue
        if email in seen:
            skipped.append(Skipped(index, submitted, SkipReason.DUPLICATE_IN_BATCH))
            continue
        seen.add(email)
        accepted.append((index, email))
    return Sorted(accepted, skipped)
