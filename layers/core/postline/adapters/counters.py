"""The counters table: API rate windows and usage counters (atomic ADD, TTL-expired)."""

from __future__ import annotations

from typing import Any

from postline.adapters.dynamo import from_attrs, key


def usage_pk(account_id: str) -> str:
    return f"USAGE#{account_id}"


class DynamoCounterStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        response = self._db.update_item(
            TableName=self._table,
            Key=key(f"RATE#{account_id}", str(window_start)),
            UpdateExpression="ADD requests :one SET expires_at = if_not_exists(expires_at, :ttl)",
            ExpressionAttributeValues={":one": {"N": "1"}, ":ttl": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["requests"]["N"])

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        pk = usage_pk(account_id)
        response = self._db.batch_get_item(
            RequestItems={self._table: {"Keys": [key(pk, f"M#{month}"), key(pk, f"D#{day}")]}}
        )
        found = {item["sk"]["S"]: from_attrs(item) for item in response["Responses"].get(self._table, [])}
        monthly, daily = found.get(f"M#{month}", {}), found.get(f"D#{day}", {})
        return {
            "emails": int(monthly.get("emails", 0)),
            "verify": int(monthly.get("verify", 0)),
            "emails_daily": int(daily.get("emails", 0)),
        }
