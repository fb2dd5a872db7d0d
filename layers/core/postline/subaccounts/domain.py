"""Subaccounts: the workspaces of an organisation.

A subaccount is an `Account` (accounts/domain.py) whose `parent_account_id` names the organisation's
account, so every area serves it as it serves any account: its keys, domains, templates, lists,
suppressions, webhooks, messages and events are its own, scoped by its id. It has a `slug`, unique
among its siblings and fixed at creation, and two suspension switches: its parent's
(`suspended_by_parent`, POST .../suspend and .../reactivate) and the operator's (`status`).

It is referred to by its id (a UUID) or by its slug, in a path and in the On-Behalf-Of header;
a slug may not look like a UUID, so a reference is never both.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum

from pydantic import Field

from postline.accounts.domain import Account, AccountStatus
from postline.shared.base import Model

SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"  # a DNS label's shape: 1-63, no hyphen at the ends
_SLUG = re.compile(SLUG_PATTERN)
_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

ON_BEHALF_OF = "On-Behalf-Of"  # the request header an organisation's credential acts for a subaccount with
# 403: an organisation's action from inside a subaccount (On-Behalf-Of from a subaccount's own
# credential, or a subaccount of a subaccount).
ORGANISATION_ONLY = "organisation_only"


class SubaccountStatus(StrEnum):
    ACTIVE = "active"
    SUSPENDED = "suspended"


def is_subaccount_id(reference: str) -> bool:
    return _ID.match(reference) is not None


def is_slug(reference: str) -> bool:
    return _SLUG.match(reference) is not None and not is_subaccount_id(reference)


def check_slug(value: str) -> str:
    """A new subaccount's slug: the pattern, and not UUID-shaped (it would read as an id)."""
    if not is_slug(value):
        raise ValueError(
            "a slug is 1-63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit, "
            "and not shaped like a subaccount id (a UUID)"
        )
    return value


def belongs_to(account: Account, parent_id: str) -> bool:
    """Whether `account` is a subaccount of `parent_id` that still exists (a deleted one is trashed)."""
    return account.parent_account_id == parent_id and account.status is not AccountStatus.TRASHED


def status_of(account: Account) -> SubaccountStatus:
    """Suspended while its keys are refused: by its parent's switch or by the operator."""
    return SubaccountStatus.SUSPENDED if account.blocked_code() else SubaccountStatus.ACTIVE


class PurgePhase(StrEnum):
    """What a deleted subaccount's purge removes, in this order (subaccounts/purge_service.py)."""

    KEYS = "keys"  # any key left (deletion revokes them at once; one made meanwhile is caught here)
    DOMAINS = "domains"  # its sending domains, their grants and provider identities
    LIST_MEMBERS = "list_members"  # its lists' members (a partition per list), each list's item counted too
    SUPPRESSIONS = "suppressions"  # its suppression lists (the suppressions table)
    UPLOADS = "uploads"  # its hosted files (the bucket)
    ITEMS = "items"  # the rest of its partition: templates, lists, webhooks, uploads, audit log, ...


class PurgeJob(Model):
    """A deleted subaccount's purge: made in the deletion's transaction, moved on a bounded step at a
    time (the phase it is in, and what each phase removed so far), finished by an entry in the
    organisation's log. Its account item stays, trashed: the id stays 404 and its keys refused."""

    account_id: str
    parent_account_id: str
    slug: str
    phase: PurgePhase = PurgePhase.KEYS
    removed: dict[str, int] = Field(default_factory=dict)
    created_at: datetime


def next_phase(phase: PurgePhase) -> PurgePhase | None:
    phases = list(PurgePhase)
    index = phases.index(phase) + 1
    return phases[index] if index < len(phases) else None
