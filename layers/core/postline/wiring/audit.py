"""The audit area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Resources
from postline.wiring.registry import built_once, client, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.audit.service import AuditService
    from postline.audit.store import DynamoAuditStore


@built_once()
def audit_store() -> DynamoAuditStore:
    from postline.audit.store import DynamoAuditStore

    return DynamoAuditStore(client("dynamodb"), settings(Resources).table)


def audit_service() -> AuditService:
    from postline.audit.service import AuditService

    return AuditService(audit=audit_store())
