"""Deleted subaccounts' purge (subaccounts/purge_service.py): its job store, its data adapter, and the
domain service that deletes their domains. A root of its own: the subaccounts root sits below the
domains one (which reads an organisation's workspaces through it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ExportFiles, Resources, Suppressions
from postline.wiring import domains, keys, shared, subaccounts
from postline.wiring.registry import client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.subaccounts.purge_service import PurgeService
    from postline.subaccounts.purge_store import DynamoAccountData


def account_data() -> DynamoAccountData:
    from postline.subaccounts.purge_store import DynamoAccountData

    return DynamoAccountData(
        client("dynamodb"),
        client("s3"),
        resources=settings(Resources).table,
        suppressions=settings(Suppressions).table,
        bucket=settings(ExportFiles).bucket,
    )


def purge_service() -> PurgeService:
    from postline.subaccounts.purge_service import PurgeService

    return PurgeService(
        jobs=subaccounts.subaccount_store(),
        keys=keys.key_store(),
        domains=domains.domain_service(),
        data=account_data(),
        ids=shared.ids(),
        clock=clock(),
    )
