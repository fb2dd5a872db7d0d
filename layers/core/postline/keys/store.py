"""API keys in the resources table (see shared/resources_table.py): the key item under its account
and the KEYHASH#<hash> lookup item.

The auth lookup is an item, not a GSI: GSIs are eventually consistent, and a rotated secret must
be refused on the very next request, so auth reads it with ConsistentRead. The account item's
key_count enforces the plan's key limit in the same transaction as the key.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.accounts.domain import Account
from postline.accounts.store import parse_account
from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.keys.domain import ApiKey
from postline.shared.dynamo import from_attrs, key
from postline.shared.resources_table import ACCOUNT_SK, account_pk, count_under_limit, create_counted, put_op, transact

KEY_ID_CACHE_SIZE = 10_000


def key_sk(key_id: str) -> str:
    return f"KEY#{key_id}"


def hash_pk(key_hash: str) -> str:
    return f"KEYHASH#{key_hash}"


class DynamoKeyStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table
        self._key_ids: OrderedDict[str, tuple[str, str]] = OrderedDict()  # hash -> (account, key), LRU

    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        # A hash names one key forever, so a found mapping is cached for the container's life; the
        # caller's consistent read of the key item (and its hash) stays the authority on validity.
        if key_hash in self._key_ids:
            self._key_ids.move_to_end(key_hash)
            return self._key_ids[key_hash]
        response = self._db.get_item(TableName=self._table, Key=key(hash_pk(key_hash), "KEYHASH"), ConsistentRead=True)
        item = from_attrs(response.get("Item", {}))
        if not item:
            return None
        self._key_ids[key_hash] = (item["account_id"], item["key_id"])
        if len(self._key_ids) > KEY_ID_CACHE_SIZE:
            self._key_ids.popitem(last=False)
        return self._key_ids[key_hash]

    def known_key(self, key_hash: str) -> tuple[str, str] | None:
        return self._key_ids.get(key_hash)

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        pk = account_pk(account_id)
        response = self._db.batch_get_item(
            RequestItems={self._table: {"Keys": [key(pk, key_sk(key_id)), key(pk, ACCOUNT_SK)], "ConsistentRead": True}}
        )
        found = {item["sk"]["S"]: item for item in response["Responses"].get(self._table, [])}
        return _api_key(found.get(key_sk(key_id))), parse_account(found.get(ACCOUNT_SK))

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), key_sk(key_id)), ConsistentRead=True
        )
        return _api_key(response.get("Item"))

    def list_keys(self, account_id: str) -> list[ApiKey]:
        paginator = self._db.get_paginator("query")
        keys = [
            _api_key(item)
            for response in paginator.paginate(
                TableName=self._table,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
                ExpressionAttributeValues={":pk": {"S": account_pk(account_id)}, ":prefix": {"S": "KEY#"}},
                ConsistentRead=True,
            )
            for item in response["Items"]
        ]
        return sorted((k for k in keys if k), key=lambda k: (k.created_at, k.id))

    def create_key(self, api_key: ApiKey, *, max_keys: int, audit: AuditEntry) -> None:
        pk = account_pk(api_key.account_id)
        ops = [
            count_under_limit(self._table, pk, "key_count", max_keys),
            put_op(self._table, pk, key_sk(api_key.id), _key_data(api_key), "attribute_not_exists(pk)"),
            self._put_lookup(api_key),
            audit_put(self._table, audit),
        ]
        create_counted(self._db, ops, limit=f"Your plan allows at most {max_keys} API keys")

    def update_key(self, api_key: ApiKey, audit: AuditEntry) -> None:
        ops = [self._put_key_if(api_key, current_hash=api_key.key_hash), audit_put(self._table, audit)]
        transact(self._db, ops, missing="API key not found", conflict="API key changed concurrently; retry")

    def rotate_key(self, api_key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None:
        ops = [
            self._put_key_if(api_key, current_hash=previous_hash),
            {"Delete": {"TableName": self._table, "Key": key(hash_pk(previous_hash), "KEYHASH")}},
            self._put_lookup(api_key),
            audit_put(self._table, audit),
        ]
        transact(self._db, ops, missing="API key not found", conflict="API key rotated concurrently; retry")

    def _put_key_if(self, api_key: ApiKey, *, current_hash: str) -> dict[str, Any]:
        """Replace the key only if its stored hash is still `current_hash`: a write computed from a
        stale read (a concurrent rotation) fails instead of resurrecting the old secret."""
        return put_op(
            self._table,
            account_pk(api_key.account_id),
            key_sk(api_key.id),
            _key_data(api_key),
            "attribute_exists(pk) AND key_hash = :current",
            {":current": {"S": current_hash}},
        )

    def _put_lookup(self, api_key: ApiKey) -> dict[str, Any]:
        lookup = {"account_id": api_key.account_id, "key_id": api_key.id}
        return put_op(self._table, hash_pk(api_key.key_hash), "KEYHASH", lookup, "attribute_not_exists(pk)")

    def delete_key(self, api_key: ApiKey, audit: AuditEntry) -> None:
        pk = account_pk(api_key.account_id)
        ops = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(pk, key_sk(api_key.id)),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {"Delete": {"TableName": self._table, "Key": key(hash_pk(api_key.key_hash), "KEYHASH")}},
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(pk, ACCOUNT_SK),
                    "UpdateExpression": "ADD key_count :minus",
                    "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                }
            },
            audit_put(self._table, audit),
        ]
        transact(self._db, ops, missing="API key not found")

    def touch_last_used(self, api_key: ApiKey, now: datetime) -> None:
        # Conditional, so concurrent requests in the same minute write at most once between them.
        epoch = int(now.timestamp())
        try:
            self._db.update_item(
                TableName=self._table,
                Key=key(account_pk(api_key.account_id), key_sk(api_key.id)),
                UpdateExpression="SET last_used_at = :at, last_used_epoch = :epoch",
                ConditionExpression="attribute_exists(pk) AND "
                "(attribute_not_exists(last_used_epoch) OR last_used_epoch < :cutoff)",
                ExpressionAttributeValues={
                    ":at": {"S": now.isoformat()},
                    ":epoch": {"N": str(epoch)},
                    ":cutoff": {"N": str(epoch - 59)},
                },
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise


def _key_data(api_key: ApiKey) -> dict[str, Any]:
    data = api_key.model_dump(mode="json")
    if api_key.last_used_at is not None:  # a whole-item Put must keep what touch_last_used wrote
        data["last_used_epoch"] = int(api_key.last_used_at.timestamp())
    return data


def _api_key(attrs: dict[str, Any] | None) -> ApiKey | None:
    return ApiKey.model_validate(from_attrs(attrs)) if attrs else None
