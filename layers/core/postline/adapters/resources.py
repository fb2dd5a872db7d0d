"""The resources table: accounts, keys, audit (and later webhooks, domains, templates, ...).

Layout (partition per account, sort key per type and id):
    ACCT#<account>   ACCOUNT               the account, with key_count and webhook_count for plan limits
    ACCT#<account>   KEY#<key id>          an API key (keyed hash only)
    ACCT#<account>   AUDIT#<time>#<id>     an audit entry, newest last in sort order
    ACCT#<account>   TPL#<template id>     a template (ids sort by creation time)
    ACCT#<account>   DOMAIN#<name>         a sending domain (adapters/domains.py)
    ACCT#<account>   WEBHOOK#<id>          a webhook endpoint, auth encrypted (adapters/webhooks.py)
    KEYHASH#<hash>   KEYHASH               secret hash -> (account, key): the auth lookup
    PLATFORM         SETTINGS              platform-wide switches (sending paused)

The auth lookup is an item, not a GSI: GSIs are eventually consistent, and a rotated
secret must be refused on the very next request, so auth reads it with ConsistentRead.
Every write that changes a resource carries its audit entry in the same transaction.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.adapters.dynamo import cancellation_codes, from_attrs, key, query_page, to_attrs, to_value
from postline.domain.accounts import Account
from postline.domain.audit import AuditEntry
from postline.domain.errors import Conflict, Forbidden, NotFound
from postline.domain.keys import ApiKey
from postline.domain.templates import Template

ACCOUNT_SK = "ACCOUNT"
KEY_ID_CACHE_SIZE = 10_000
PLATFORM = ("PLATFORM", "SETTINGS")


def account_pk(account_id: str) -> str:
    return f"ACCT#{account_id}"


def key_sk(key_id: str) -> str:
    return f"KEY#{key_id}"


def template_sk(template_id: str) -> str:
    return f"TPL#{template_id}"


def hash_pk(key_hash: str) -> str:
    return f"KEYHASH#{key_hash}"


def audit_sk(entry: AuditEntry) -> str:
    return f"AUDIT#{entry.created_at:%Y-%m-%dT%H:%M:%S.%f}#{entry.id}"


def _put(
    table: str,
    pk: str,
    sk: str,
    data: dict[str, Any],
    condition: str | None = None,
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    put: dict[str, Any] = {"TableName": table, "Item": {**key(pk, sk), **to_attrs(data)}}
    if condition:
        put["ConditionExpression"] = condition
    if values:
        put["ExpressionAttributeValues"] = values
    return {"Put": put}


def audit_put(table: str, entry: AuditEntry) -> dict[str, Any]:
    """The transaction item that records an audit entry beside the write it describes."""
    pk = account_pk(entry.account_id) if entry.account_id else PLATFORM[0]
    return _put(table, pk, audit_sk(entry), entry.model_dump(mode="json"))


def transact(db: Any, ops: list[dict[str, Any]], *, missing: str = "", conflict: str = "") -> None:
    """TransactWriteItems whose first item's failed condition means `missing` (NotFound), else Conflict."""
    try:
        db.transact_write_items(TransactItems=ops)
    except ClientError as exc:
        codes = cancellation_codes(exc)
        if codes and codes[0] == "ConditionalCheckFailed":
            if missing:
                raise NotFound(missing) from exc
            raise Conflict(conflict or "the resource changed concurrently; retry") from exc
        raise


class ResourceStore:
    """Implements AccountStore, KeyStore and AuditStore over one DynamoDB table."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table
        self._key_ids: OrderedDict[str, tuple[str, str]] = OrderedDict()  # hash -> (account, key), LRU

    # -- audit ---------------------------------------------------------------------------------------

    def _audit_op(self, entry: AuditEntry) -> dict[str, Any]:
        return audit_put(self._table, entry)

    def record(self, entry: AuditEntry) -> None:
        self._transact([self._audit_op(entry)])

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": "AUDIT#"}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=False)
        return [AuditEntry.model_validate(from_attrs(attrs)) for attrs in found], total

    # -- accounts ------------------------------------------------------------------------------------

    def get_account(self, account_id: str) -> Account | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), ACCOUNT_SK), ConsistentRead=True
        )
        return _account(response.get("Item"))

    def create_account(self, account: Account, audit: AuditEntry) -> None:
        data = {**account.model_dump(mode="json"), "key_count": 0}
        op = _put(self._table, account_pk(account.id), ACCOUNT_SK, data, "attribute_not_exists(pk)")
        self._transact([op, self._audit_op(audit)], conflict=f"account {account.id} already exists")

    def update_account(self, account: Account, audit: AuditEntry) -> None:
        fields = account.model_dump(mode="json", exclude={"id", "created_at"})
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
        self._transact([update, self._audit_op(audit)], missing=f"account {account.id} not found")

    def platform_sending_paused(self) -> bool:
        response = self._db.get_item(TableName=self._table, Key=key(*PLATFORM), ConsistentRead=True)
        item = from_attrs(response.get("Item", {}))
        return bool(item.get("sending_paused", False))

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None:
        op = _put(self._table, *PLATFORM, {"sending_paused": paused})
        self._transact([op, self._audit_op(audit)])

    # -- keys ----------------------------------------------------------------------------------------

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

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        pk = account_pk(account_id)
        response = self._db.batch_get_item(
            RequestItems={self._table: {"Keys": [key(pk, key_sk(key_id)), key(pk, ACCOUNT_SK)], "ConsistentRead": True}}
        )
        found = {item["sk"]["S"]: item for item in response["Responses"].get(self._table, [])}
        return _api_key(found.get(key_sk(key_id))), _account(found.get(ACCOUNT_SK))

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), key_sk(key_id)), ConsistentRead=True
        )
        return _api_key(response.get("Item"))

    def list_keys(self, account_id: str) -> list[ApiKey]:
        keys = [
            _api_key(item)
            for response in self._query_pages(
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
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(pk, ACCOUNT_SK),
                    "UpdateExpression": "ADD key_count :one",
                    "ConditionExpression": "attribute_exists(pk) AND key_count < :max",
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":max": {"N": str(max_keys)}},
                }
            },
            _put(self._table, pk, key_sk(api_key.id), _key_data(api_key), "attribute_not_exists(pk)"),
            self._put_lookup(api_key),
            self._audit_op(audit),
        ]
        try:
            self._db.transact_write_items(TransactItems=ops)
        except ClientError as exc:
            if cancellation_codes(exc)[:1] == ["ConditionalCheckFailed"]:
                raise Forbidden(
                    f"Your plan allows at most {max_keys} API keys; delete one or upgrade.",
                    code="plan_limit_reached",
                ) from exc
            raise

    def update_key(self, api_key: ApiKey, audit: AuditEntry) -> None:
        ops = [self._put_key_if(api_key, current_hash=api_key.key_hash), self._audit_op(audit)]
        self._transact(ops, missing="API key not found or changed concurrently")

    def rotate_key(self, api_key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None:
        ops = [
            self._put_key_if(api_key, current_hash=previous_hash),
            {"Delete": {"TableName": self._table, "Key": key(hash_pk(previous_hash), "KEYHASH")}},
            self._put_lookup(api_key),
            self._audit_op(audit),
        ]
        self._transact(ops, missing="API key not found or rotated concurrently")

    def _put_key_if(self, api_key: ApiKey, *, current_hash: str) -> dict[str, Any]:
        """Replace the key only if its stored hash is still `current_hash`: a write computed from a
        stale read (a concurrent rotation) fails instead of resurrecting the old secret."""
        return _put(
            self._table,
            account_pk(api_key.account_id),
            key_sk(api_key.id),
            _key_data(api_key),
            "attribute_exists(pk) AND key_hash = :current",
            {":current": {"S": current_hash}},
        )

    def _put_lookup(self, api_key: ApiKey) -> dict[str, Any]:
        return _put(self._table, hash_pk(api_key.key_hash), "KEYHASH", _lookup(api_key), "attribute_not_exists(pk)")

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
            self._audit_op(audit),
        ]
        self._transact(ops, missing="API key not found")

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

    # -- templates -----------------------------------------------------------------------------------

    def get_template(self, account_id: str, template_id: str) -> Template | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), template_sk(template_id)), ConsistentRead=True
        )
        item = response.get("Item")
        return _template(item) if item else None

    def list_templates(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Template], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": "TPL#"}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        return [_template(attrs) for attrs in found], total

    def put_template(
        self, account_id: str, template: Template, *, expected_version: int | None, audit: AuditEntry
    ) -> None:
        """Creates (expected_version None) or replaces the template at expected_version."""
        # The schema is a JSON document of the customer's: stored as text, since DynamoDB numbers
        # stop at 38 digits and 1e126 and nesting at 32 levels, while JSON Schema has no such bounds.
        data = {**template.model_dump(mode="json", exclude={"vars_schema"}), "account_id": account_id}
        if template.vars_schema is not None:
            data["vars_schema_json"] = json.dumps(template.vars_schema)
        if expected_version is None:
            op = _put(self._table, account_pk(account_id), template_sk(template.id), data, "attribute_not_exists(pk)")
            self._transact([op, self._audit_op(audit)], conflict=f"template {template.id} already exists")
        else:
            op = _put(
                self._table,
                account_pk(account_id),
                template_sk(template.id),
                data,
                "attribute_exists(pk) AND version = :version",
                {":version": {"N": str(expected_version)}},
            )
            self._transact(
                [op, self._audit_op(audit)], missing=f"template {template.id} not found or changed meanwhile"
            )

    def delete_template(self, account_id: str, template_id: str, audit: AuditEntry) -> None:
        op = {
            "Delete": {
                "TableName": self._table,
                "Key": key(account_pk(account_id), template_sk(template_id)),
                "ConditionExpression": "attribute_exists(pk)",
            }
        }
        self._transact([op, self._audit_op(audit)], missing=f"template {template_id} not found")

    # -- plumbing ------------------------------------------------------------------------------------

    def _query_pages(self, **kwargs: Any) -> Iterator[dict[str, Any]]:
        paginator = self._db.get_paginator("query")
        yield from paginator.paginate(TableName=self._table, **kwargs)

    def _transact(self, ops: list[dict[str, Any]], *, missing: str = "", conflict: str = "") -> None:
        transact(self._db, ops, missing=missing, conflict=conflict)


def _key_data(api_key: ApiKey) -> dict[str, Any]:
    data = api_key.model_dump(mode="json")
    if api_key.last_used_at is not None:  # a whole-item Put must keep what touch_last_used wrote
        data["last_used_epoch"] = int(api_key.last_used_at.timestamp())
    return data


def _lookup(api_key: ApiKey) -> dict[str, Any]:
    return {"account_id": api_key.account_id, "key_id": api_key.id}


def _template(attrs: dict[str, Any]) -> Template:
    data = from_attrs(attrs)
    schema = data.pop("vars_schema_json", None)
    return Template.model_validate({**data, "vars_schema": json.loads(schema) if schema else None})


def _account(attrs: dict[str, Any] | None) -> Account | None:
    return Account.model_validate(from_attrs(attrs)) if attrs else None


def _api_key(attrs: dict[str, Any] | None) -> ApiKey | None:
    return ApiKey.model_validate(from_attrs(attrs)) if attrs else None
