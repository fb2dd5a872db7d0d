"""Audit entries in the resources table (ACCT#<account> / AUDIT#<time>#<id>, see shared/resources_table.py).

Management writes put their entry in their own transaction with `audit_put`; `record` is for
actions that change nothing else stored here.
"""

from __future__ import annotations

from typing import Any

from postline.audit.domain import AuditEntry
from postline.shared.dynamo import from_attrs, query_page
from postline.shared.resources_table import PLATFORM, account_pk, put_op, transact


def audit_sk(entry: AuditEntry) -> str:
    return f"AUDIT#{entry.created_at:%Y-%m-%dT%H:%M:%S.%f}#{entry.id}"


def audit_put(table: str, entry: AuditEntry) -> dict[str, Any]:
    """The transaction item that records an audit entry beside the write it describes."""
    pk = account_pk(entry.account_id) if entry.account_id else PLATFORM[0]
    return put_op(table, pk, audit_sk(entry), entry.model_dump(mode="json"))


class DynamoAuditStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def record(self, entry: AuditEntry) -> None:
        transact(self._db, [audit_put(self._table, entry)])

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": "AUDIT#"}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=False)
        return [AuditEntry.model_validate(from_attrs(attrs)) for attrs in found], total
