"""The subaccounts area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Resources
from postline.wiring import accounts, keys, shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.subaccounts.organisation import Organisation
    from postline.subaccounts.service import SubaccountService
    from postline.subaccounts.store import DynamoSubaccountStore


@built_once()
def subaccount_store() -> DynamoSubaccountStore:
    from postline.subaccounts.store import DynamoSubaccountStore

    return DynamoSubaccountStore(client("dynamodb"), settings(Resources).table)


def subaccount_service() -> SubaccountService:
    from postline.subaccounts.service import SubaccountService

    return SubaccountService(subaccounts=subaccount_store(), keys=keys.key_store(), ids=shared.ids(), clock=clock())


@built_once()
def organisation() -> Organisation:
    from postline.subaccounts.organisation import Organisation

    return Organisation(accounts=accounts.account_store(), subaccounts=subaccount_store())
