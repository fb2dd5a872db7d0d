"""The accounts area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Resources
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.accounts.store import DynamoAccountStore


@built_once()
def account_store() -> DynamoAccountStore:
    from postline.accounts.store import DynamoAccountStore

    return DynamoAccountStore(client("dynamodb"), settings(Resources).table)


@built_once(maxsize=1024)
def retention_days(account_id: str) -> int:
    """The history window new items' TTL is set from (retention/domain.py): the plan's, with a
    downgrade's grace or an organisation's window when longer."""
    from postline.accounts.domain import PLAN_LIMITS, Plan
    from postline.accounts.domain import retention_days as window

    account = account_store().get_account(account_id)
    return window(account, clock().now()) if account else PLAN_LIMITS[Plan.FREE].retention_days
