"""Kept copies in the messages table, beside their message (its partition, its TTL):

MSG#<id>  COPY#<recipient>   one recipient's copy of a test-mode message, sealed
MSG#<id>  MSG                the message; the check goes on it as `content_check`
MSG#<id>  BODY               the message's sealed body (sending/store.py; older messages hold it
                             in the message item as `sealed`)
"""

from __future__ import annotations

from typing import Any

from postline.shared.dynamo import batch_get, batch_write, from_attrs, key, to_attrs

_MESSAGE_SK = "MSG"  # sending/store.py's message item (content_checks stands below sending)
_BODY_SK = "BODY"  # and its body's item
COPY_PREFIX = "COPY#"  # data_removals/holdings.py erases them with their message


def _pk(message_id: str) -> str:
    return f"MSG#{message_id}"


class DynamoCopyStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def put_copies(self, copies: list[tuple[str, str, dict[str, Any], int | None]]) -> None:
        puts = []
        for message_id, recipient, sealed, expires_at in copies:
            data: dict[str, Any] = {"recipient": recipient, "sealed": sealed, "expires_at": expires_at}
            puts.append((self._table, {**key(_pk(message_id), f"{COPY_PREFIX}{recipient}"), **to_attrs(data)}))
        batch_write(self._db, puts)

    def copies(self, message_id: str) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :copy)",
            "ExpressionAttributeValues": {":pk": {"S": _pk(message_id)}, ":copy": {"S": COPY_PREFIX}},
            "ConsistentRead": True,
        }
        while True:
            page = self._db.query(**request)
            for attrs in page.get("Items", []):
                item = from_attrs(attrs)
                found[item["recipient"]] = item["sealed"]
            if "LastEvaluatedKey" not in page:
                return found
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def sealed_body(self, message_id: str) -> dict[str, Any] | None:
        """The message's sealed content (message_content's StoredBodies port): its body item's, or
        the message item's own from before bodies had an item; {} when neither holds one, None when
        there is no such message. One BatchGetItem of both items."""
        keys = [key(_pk(message_id), _MESSAGE_SK), key(_pk(message_id), _BODY_SK)]
        found = {attrs["sk"]["S"]: from_attrs(attrs) for attrs in batch_get(self._db, self._table, keys, "sk, sealed")}
        if _MESSAGE_SK not in found:
            return None
        sealed: dict[str, Any] = found[_MESSAGE_SK].get("sealed") or found.get(_BODY_SK, {}).get("sealed") or {}
        return sealed
