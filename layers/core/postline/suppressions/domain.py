"""Suppression lists: addresses that must not be mailed (bounces, unsubscribes, complaints), and the
allowlist that overrides them (the interface's suppression types)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel


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


class Suppression(BaseModel):
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
