"""The reporting domain's DKIM keys in the resources table, private halves sealed by KMS.

    PLATFORM   TLSRPT_DKIM#<domain>              pointer: `active` and `next` selectors; adding a key
                                                 is a transaction conditioned on it, so two relay
                                                 tasks starting together never both mint the first key
    PLATFORM   TLSRPT_DKIM#<domain>#<selector>   a key: public half, KMS-sealed PEM, created_at

The same storage as the webhook signing keys (signing_keys/store.py: PLATFORM partition, the content
key, an encryption context naming the purpose) and the same key pairs as sending domains'
(domains/dkim_keys.py). Which key signs and when it rotates is the service's (tlsrpt/service.py).
"""

from __future__ import annotations

import base64
import threading
import time
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import from_attrs, key, to_attrs
from postline.tlsrpt.domain import ReportKey

_PK = "PLATFORM"
_PREFIX = "TLSRPT_DKIM#"
_CACHE_SECONDS = 60.0
_PURPOSE = "tlsrpt-dkim"


def _pointer(domain: str) -> str:
    return f"{_PREFIX}{domain}"


class DynamoReportKeys:
    def __init__(self, client: Any, table: str, kms: Any, kms_key_id: str) -> None:
        self._db = client
        self._table = table
        self._kms = kms
        self._kms_key_id = kms_key_id
        self._lock = threading.Lock()
        self._cached: dict[str, tuple[float, tuple[ReportKey | None, ReportKey | None]]] = {}
        self._opened: dict[str, str] = {}  # sealed PEM -> PEM, decrypted once per process

    def keys(self, domain: str) -> tuple[ReportKey | None, ReportKey | None]:
        with self._lock:
            cached = self._cached.get(domain)
            if cached is not None and time.monotonic() - cached[0] < _CACHE_SECONDS:
                return cached[1]
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": {"S": _PK}, ":prefix": {"S": _pointer(domain)}},
            ConsistentRead=True,
        )
        items = {item["sk"]: item for item in (from_attrs(raw) for raw in response["Items"])}
        pointer = items.get(_pointer(domain), {})
        found = tuple(
            self._key(domain, items[f"{_pointer(domain)}#{selector}"])
            if (selector := pointer.get(role)) and f"{_pointer(domain)}#{selector}" in items
            else None
            for role in ("active", "next")
        )
        keys = (found[0], found[1])
        if keys[0] is not None:  # a first key the operator mints is seen at once, not a minute later
            with self._lock:
                self._cached[domain] = (time.monotonic(), keys)
        return keys

    def add(self, new: ReportKey, *, staged: bool, replacing: str | None) -> bool:
        role = "next" if staged else "active"
        sealed = self._kms.encrypt(
            KeyId=self._kms_key_id,
            Plaintext=new.private_key.encode(),
            EncryptionContext=self._context(new.domain, new.selector),
        )["CiphertextBlob"]
        item = {
            "domain": new.domain,
            "selector": new.selector,
            "public_key": new.public_key,
            "private_key": base64.b64encode(sealed).decode(),
            "created_at": new.created_at.isoformat(),
        }
        values: dict[str, Any] = {":new": {"S": new.selector}}
        if replacing is None:
            condition = "attribute_not_exists(#role)"
        else:
            condition = "#role = :old"
            values[":old"] = {"S": replacing}
        writes: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {**key(_PK, f"{_pointer(new.domain)}#{new.selector}"), **to_attrs(item)},
                    "ConditionExpression": "attribute_not_exists(pk)",  # a stored key is never replaced
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(_PK, _pointer(new.domain)),
                    "UpdateExpression": "SET #role = :new",
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#role": role},  # names kept clear of reserved words
                    "ExpressionAttributeValues": values,
                }
            },
        ]
        try:
            self._db.transact_write_items(TransactItems=writes)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            return False
        finally:
            self._forget(new.domain)
        return True

    def promote(self, domain: str, selector: str) -> bool:
        try:
            self._db.update_item(
                TableName=self._table,
                Key=key(_PK, _pointer(domain)),
                UpdateExpression="SET #active = :next REMOVE #next",
                ConditionExpression="#next = :next",
                ExpressionAttributeNames={"#active": "active", "#next": "next"},
                ExpressionAttributeValues={":next": {"S": selector}},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        finally:
            self._forget(domain)
        return True

    # -- internals ------------------------------------------------------------------------------

    def _forget(self, domain: str) -> None:
        with self._lock:
            self._cached.pop(domain, None)

    @staticmethod
    def _context(domain: str, selector: str) -> dict[str, str]:
        return {"purpose": _PURPOSE, "domain": domain, "selector": selector}

    def _key(self, domain: str, item: dict[str, Any]) -> ReportKey:
        sealed = item["private_key"]
        if sealed not in self._opened:
            self._opened[sealed] = self._kms.decrypt(
                CiphertextBlob=base64.b64decode(sealed), EncryptionContext=self._context(domain, item["selector"])
            )["Plaintext"].decode()
        return ReportKey(
            domain=domain,
            selector=item["selector"],
            private_key=self._opened[sealed],
            public_key=item["public_key"],
            created_at=datetime.fromisoformat(item["created_at"]),
        )
