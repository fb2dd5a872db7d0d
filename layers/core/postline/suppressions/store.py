"""The suppressions table: SUP#<account> / <email>#<type>, one item per list entry; never expires."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import from_attrs, key, to_attrs
from postline.suppressions.domain import Suppression, SuppressionSource, SuppressionType, blocks

_BATCH_GET = 100


def _pk(account_id: str) -> str:
    return f"SUP#{account_id}"


class DynamoSuppressions:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        emails = sorted({address.lower() for address in addresses})
        keys = [key(_pk(account_id), f"{email}#{kind.value}") for email in emails for kind in SuppressionType]
        found: dict[str, list[Suppression]] = {}
        for start in range(0, len(keys), _BATCH_GET):
            request: dict[str, Any] = {self._table: {"Keys": keys[start : start + _BATCH_GET]}}
            while request:
                response = self._db.batch_get_item(RequestItems=request)
                for item in response["Responses"].get(self._table, []):
                    entry = Suppression.model_validate(from_attrs(item))
                    found.setdefault(entry.email, []).append(entry)
                request = response.get("UnprocessedKeys") or {}
        return {email for email, entries in found.items() if blocks(entries)}

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        """Idempotent: an address already on the list keeps its first entry."""
        entry = Suppression(
            id=str(uuid.uuid4()),
            account_id=account_id,
            type=kind,
            email=address.lower(),
            reason=reason,
            source=source,
            created_at=now,
        )
        item = {**key(_pk(account_id), f"{entry.email}#{kind.value}"), **to_attrs(entry.model_dump(mode="json"))}
        try:
            self._db.put_item(TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(pk)")
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        return True
