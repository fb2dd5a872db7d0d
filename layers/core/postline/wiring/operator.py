"""The operator area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.wiring import accounts, keys, shared, subaccounts
from postline.wiring.registry import clock

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.operator.service import OperatorService


def operator_service() -> OperatorService:
    from postline.operator.service import OperatorService

    return OperatorService(
        accounts=accounts.account_store(),
        keys=keys.key_store(),
        key_service=keys.key_service(),
        ids=shared.ids(),
        clock=clock(),
        subaccounts=subaccounts.subaccount_store(),
    )
