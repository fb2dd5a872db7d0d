"""Accounts and platform switches in the resources table (see shared/resources_table.py)."""

from __future__ import annotations

from typing import Any

from postline.accounts.domain import Account
from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.shared.dynamo import from_attrs, key, to_value
from postline.shared.errors import ValidationFailed
from postline.shared.resources_table import ACCOUNT_SK, PLATFORM, account_pk, put_op, transact

# A subaccount's parent, slug and the parent's suspension switch: written by subaccounts/store.py only.
ORGANISATION_FIELDS = ("parent_account_id", "slug", "suspended_by_parent")


class DynamoAccountStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def get_account(self, account_id: str) -> Account | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), ACCOUNT_SK), ConsistentRead=True
        )
        return parse_account(response.get("Item"))

    def create_account(self, account: Account, audit: AuditEntry) -> None:
        data = {**account.model_dump(mode="json"), "key_count": 0, "list_count": 0}  # counted from the start
        op = put_op(self._table, account_pk(account.id), ACCOUNT_SK, data, "attribute_not_exists(pk)")
        taken = ValidationFailed(f"account {account.id} already exists")
        transact(self._db, [op, audit_put(self._table, audit)], duplicate=taken)

    def update_account(self, account: Account, audit: AuditEntry) -> None:
        # list_count is the list store's; the organisation fields the subaccount store's; the default
        # IP pool the IP pool store's
        fields = account.model_dump(
            mode="json", exclude={"id", "created_at", "list_count", "default_ip_pool_id", *ORGANISATION_FIELDS}
        )
        names = {f"#{name}": name for name in fields}
        values = {f":{name}": to_value(value) for name, value in fields.items()}
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account.id), ACCOUNT_SK),
                "UpdateExpression": "SET " + ", ".join(f"#{n} = :{n}" for n in fields),
                "ConditionExpression": "attribute_exists(pk)",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        }
        transact(self._db, [update, audit_put(self._table, audit)], missing=f"account {account.id} not found")

    def platform_sending_paused(self) -> bool:
        response = self._db.get_item(TableName=self._table, Key=key(*PLATFORM), ConsistentRead=True)
        item = from_attrs(response.get("Item", {}))
        return bool(item.get("sending_paused", False))

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None:
        op = put_op(self._table, *PLATFORM, {"sending_paused": paused})
        transact(self._db, [op, audit_put(self._table, audit)])


def parse_account(attrs: dict[str, Any] | None) -> Account | None:
    return Account.model_validate(from_attrs(attrs)) if attrs else None
