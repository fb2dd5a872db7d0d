"""Audit log entries and how staff entries are redacted (the interface's Audit log entry)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from postline.shared.base import Model

REDACTED_STAFF_EMAIL = "staff@redacted.invalid"


class ActorType(StrEnum):
    USER = "user"
    STAFF = "staff"
    SYSTEM = "system"


@dataclass(frozen=True)
class Actor:
    """Who performs a write, and from where."""

    type: ActorType
    id: str | None = None
    ip_address: str | None = None

    @classmethod
    def staff(cls) -> Actor:
        return cls(ActorType.STAFF)

    @classmethod
    def system(cls) -> Actor:
        return cls(ActorType.SYSTEM)


class AuditEntry(Model):
    # Nullable fields default to None: storage omits null attributes.
    id: str
    account_id: str | None = None
    actor_id: str | None = None
    actor_type: ActorType
    actor_email: str | None = None
    action: str
    target: str | None = None
    details: str | None = None
    ip_address: str | None = None
    created_at: datetime


def audit_entry(
    *,
    entry_id: str,
    account_id: str | None,
    actor: Actor,
    action: str,
    target: str | None,
    now: datetime,
    details: str | None = None,
) -> AuditEntry:
    """Staff entries never reveal who or where: actor id and ip are dropped, the email is a constant."""
    staff = actor.type is ActorType.STAFF
    return AuditEntry(
        id=entry_id,
        account_id=account_id,
        actor_id=None if staff or actor.type is ActorType.SYSTEM else actor.id,
        actor_type=actor.type,
        actor_email=REDACTED_STAFF_EMAIL if staff else None,
        action=action,
        target=target,
        details=details,
        ip_address=None if staff else actor.ip_address,
        created_at=now,
    )
