"""Webhook endpoints in the resources table (ACCT#<account> / WEBHOOK#<id>), auth encrypted.

The auth object holds every mode's secrets (hmac secrets, tokens, passwords, header values,
client secrets, mTLS private keys), so it is stored only sealed: per write, KMS GenerateDataKey
under the content key gives a data key that AES-GCM-seals the auth JSON (an mTLS pair passes
KMS's 4 KB Encrypt limit, hence the envelope, as in the vault). The account and endpoint ids are
the KMS encryption context and the associated data, so a sealed blob opens only on its own
endpoint. Only the mode stays readable; a table dump reveals no secret. Data keys are decrypted
once per container. The other fields are plain attributes, so delivery can update its failure
counters with an UpdateItem that leaves the owner's settings (and updated_at) alone.

The plan limit is the account item's webhook_count, moved in the same transaction as the endpoint.
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError
from pydantic import TypeAdapter

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.shared.dynamo import from_attrs, key, query_page, to_attrs, to_value
from postline.shared.resources_table import ACCOUNT_SK, account_pk, count_under_limit, create_counted, transact
from postline.shared.sealing import open_bytes, seal_bytes
from postline.webhooks.domain import DisabledReason, EndpointAuth, WebhookEndpoint

PREFIX = "WEBHOOK#"
_KEY_CACHE = 256
_AUTH = TypeAdapter(EndpointAuth)
_TIME = TypeAdapter(datetime)


def webhook_sk(endpoint_id: str) -> str:
    return f"{PREFIX}{endpoint_id}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class DynamoWebhookEndpoints:
    def __init__(self, dynamodb: Any, table: str, kms: Any, key_id: str) -> None:
        self._db = dynamodb
        self._table = table
        self._kms = kms
        self._key_id = key_id
        self._keys: OrderedDict[str, bytes] = OrderedDict()  # wrapped data key -> plaintext, LRU

    # -- reads ----------------------------------------------------------------------------------------

    def get_endpoint(self, account_id: str, endpoint_id: str) -> WebhookEndpoint | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), webhook_sk(endpoint_id)), ConsistentRead=True
        ).get("Item")
        return self._endpoint(item) if item else None

    def list_endpoints(self, account_id: str, *, page: int, per_page: int) -> tuple[list[WebhookEndpoint], int]:
        found, total = query_page(
            self._db, self._table, self._partition(account_id), page=page, per_page=per_page, forward=True
        )
        return [self._endpoint(attrs) for attrs in found], total

    def enabled_endpoints(self, account_id: str) -> list[WebhookEndpoint]:
        # One Query; more than one page only when mTLS material makes the items large.
        condition = self._partition(account_id)
        condition["ExpressionAttributeValues"][":enabled"] = {"BOOL": True}
        paginator = self._db.get_paginator("query")
        return [
            self._endpoint(attrs)
            for response in paginator.paginate(
                TableName=self._table, FilterExpression="enabled = :enabled", **condition
            )
            for attrs in response["Items"]
        ]

    # -- writes ---------------------------------------------------------------------------------------

    def create_endpoint(self, endpoint: WebhookEndpoint, *, max_endpoints: int, audit: AuditEntry) -> None:
        pk = account_pk(endpoint.account_id)
        ops = [
            count_under_limit(self._table, pk, "webhook_count", max_endpoints),
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {**key(pk, webhook_sk(endpoint.id)), **to_attrs(self._data(endpoint))},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            audit_put(self._table, audit),
        ]
        # The put fails only if endpoint.id is taken: a fresh id (shared/ids.py: time and 64 random
        # bits) collided, which is internal (500, a retry gets a new id), so no `duplicate` error.
        create_counted(self._db, ops, limit=f"Your plan allows at most {max_endpoints} webhook endpoints")

    def update_endpoint(
        self, endpoint: WebhookEndpoint, *, fields: set[str], expected_updated_at: datetime, audit: AuditEntry
    ) -> None:
        data = self._data(endpoint) if "auth" in fields else endpoint.model_dump(mode="json", exclude={"auth"})
        names = {"#updated_at": "updated_at"}
        values = {":expected": {"S": _TIME.dump_python(expected_updated_at, mode="json")}}
        sets, removes = [], []
        for attribute in sorted(_attributes(fields)):
            names[f"#{attribute}"] = attribute
            if data.get(attribute) is None:
                removes.append(f"#{attribute}")
            else:
                values[f":{attribute}"] = to_value(data[attribute])
                sets.append(f"#{attribute} = :{attribute}")
        expression = ("SET " + ", ".join(sets) if sets else "") + (" REMOVE " + ", ".join(removes) if removes else "")
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(endpoint.account_id), webhook_sk(endpoint.id)),
                "UpdateExpression": expression.strip(),
                "ConditionExpression": "attribute_exists(pk) AND #updated_at = :expected",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        }
        transact(
            self._db,
            [update, audit_put(self._table, audit)],
            missing=f"webhook endpoint {endpoint.id} not found",
            conflict=f"webhook endpoint {endpoint.id} changed concurrently; retry",
        )

    def delete_endpoint(self, endpoint: WebhookEndpoint, audit: AuditEntry) -> None:
        pk = account_pk(endpoint.account_id)
        ops = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(pk, webhook_sk(endpoint.id)),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(pk, ACCOUNT_SK),
                    "UpdateExpression": "ADD webhook_count :minus",
                    "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                }
            },
            audit_put(self._table, audit),
        ]
        transact(self._db, ops, missing=f"webhook endpoint {endpoint.id} not found")

    # -- delivery health: the fan-out and the retry workflow; the owner's settings are left alone ------

    def record_success(self, account_id: str, endpoint_id: str) -> None:
        try:  # conditional, so the common case (no streak) costs a read-sized write that changes nothing
            self._db.update_item(
                TableName=self._table,
                Key=key(account_pk(account_id), webhook_sk(endpoint_id)),
                UpdateExpression="SET consecutive_failures = :zero REMOVE failing_since",
                ConditionExpression="consecutive_failures > :zero",
                ExpressionAttributeValues={":zero": {"N": "0"}},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def record_failure(self, account_id: str, endpoint_id: str, now: datetime) -> WebhookEndpoint | None:
        try:
            attrs = self._db.update_item(
                TableName=self._table,
                Key=key(account_pk(account_id), webhook_sk(endpoint_id)),
                UpdateExpression="SET consecutive_failures = consecutive_failures + :one, "
                "failing_since = if_not_exists(failing_since, :now)",
                ConditionExpression="attribute_exists(pk) AND enabled = :true",
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":now": {"S": _TIME.dump_python(now, mode="json")},
                    ":true": {"BOOL": True},
                },
                ReturnValues="ALL_NEW",
            )["Attributes"]
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None  # deleted or disabled meanwhile: nothing to count against
            raise
        return self._endpoint(attrs)

    def auto_disable(self, endpoint: WebhookEndpoint, entry: AuditEntry) -> bool:
        now = _TIME.dump_python(entry.created_at, mode="json")
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(endpoint.account_id), webhook_sk(endpoint.id)),
                "UpdateExpression": "SET enabled = :false, disabled_reason = :reason, disabled_at = :now, "
                "updated_at = :now",
                "ConditionExpression": "enabled = :true AND consecutive_failures >= :count",
                "ExpressionAttributeValues": {
                    ":false": {"BOOL": False},
                    ":true": {"BOOL": True},
                    ":reason": {"S": DisabledReason.AUTO_FAILURES.value},
                    ":now": {"S": now},
                    ":count": {"N": str(endpoint.consecutive_failures)},
                },
            }
        }
        try:
            self._db.transact_write_items(TransactItems=[update, audit_put(self._table, entry)])
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "TransactionCanceledException":
                return False  # another worker disabled it first, or the owner changed it
            raise
        return True

    # -- items ----------------------------------------------------------------------------------------

    def _partition(self, account_id: str) -> dict[str, Any]:
        return {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": PREFIX}},
            "ConsistentRead": True,
        }

    def _data(self, endpoint: WebhookEndpoint) -> dict[str, Any]:
        data = endpoint.model_dump(mode="json", exclude={"auth"})
        if endpoint.auth is not None:
            data["auth_mode"] = endpoint.auth.mode.value
            data["auth_sealed"] = self._seal(endpoint, endpoint.auth)
        return data

    def _endpoint(self, attrs: dict[str, Any]) -> WebhookEndpoint:
        data = from_attrs(attrs)
        sealed = data.pop("auth_sealed", None)
        fields = {name: value for name, value in data.items() if name in WebhookEndpoint.model_fields}
        endpoint = WebhookEndpoint.model_validate(fields)
        if sealed is None:
            return endpoint
        return endpoint.model_copy(update={"auth": self._open(endpoint, sealed)})

    def _seal(self, endpoint: WebhookEndpoint, auth: EndpointAuth) -> dict[str, str]:
        generated = self._kms.generate_data_key(
            KeyId=self._key_id, KeySpec="AES_256", EncryptionContext=_context(endpoint)
        )
        sealed = seal_bytes(generated["Plaintext"], _AUTH.dump_json(auth), _aad(endpoint))
        return {"key": _b64(generated["CiphertextBlob"]), "data": _b64(sealed)}

    def _open(self, endpoint: WebhookEndpoint, sealed: dict[str, str]) -> EndpointAuth:
        wrapped = sealed["key"]
        data_key = self._keys.get(wrapped)
        if data_key is None:
            response = self._kms.decrypt(CiphertextBlob=base64.b64decode(wrapped), EncryptionContext=_context(endpoint))
            data_key = self._keys[wrapped] = response["Plaintext"]
            if len(self._keys) > _KEY_CACHE:
                self._keys.popitem(last=False)
        self._keys.move_to_end(wrapped)
        return _AUTH.validate_json(open_bytes(data_key, base64.b64decode(sealed["data"]), _aad(endpoint)))


def _attributes(fields: set[str]) -> set[str]:
    """Item attributes behind model fields: auth is stored as its mode and its sealed form."""
    return (fields - {"auth"}) | ({"auth_mode", "auth_sealed"} if "auth" in fields else set())


def _context(endpoint: WebhookEndpoint) -> dict[str, str]:
    return {"account_id": endpoint.account_id, "webhook_id": endpoint.id}


def _aad(endpoint: WebhookEndpoint) -> bytes:
    return json.dumps(_context(endpoint), sort_keys=True).encode()
