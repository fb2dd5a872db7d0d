"""The platform's own key pairs in the resources table, private halves sealed by KMS: one store for
every kind (webhook signing keys, signing_keys/store.py; the TLS-RPT reports' DKIM keys,
tlsrpt/keys.py), parameterised by the kind's `purpose`.

    PLATFORM   <group>          the pointer: one attribute per role (`kid`; `active`, `next`) naming
                                the key that holds it. Adding a key is a transaction conditioned on
                                the role's current holder, so two processes never both mint one
    PLATFORM   <group>#<id>     a key: its public half and the private half sealed with the content
                                KMS key under the context {purpose, ...the kind's fields}, as text

A group is the keys of one use: `SIGNKEY` (the webhook signing keys), `TLSRPT_DKIM#<domain>`. What
the attributes mean, which key signs and when one rotates are the kind's adapter's and service's;
this store reads a group (cached a minute once its pointer exists, so a first key is seen at once),
seals and opens private halves (each opened once per process) and moves the pointer.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import from_attrs, key, to_attrs, to_value

PK = "PLATFORM"
CACHE_SECONDS = 60.0


@dataclass(frozen=True)
class KeyGroup:
    """A group as stored: the pointer's attributes (role -> key id) and each key's attributes by id."""

    pointer: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)

    def holder(self, role: str) -> dict[str, Any] | None:
        """The key the pointer names for `role`, if it is stored."""
        key_id = self.pointer.get(role)
        return self.keys.get(key_id) if isinstance(key_id, str) else None


class SealedPlatformKeys:
    def __init__(self, client: Any, table: str, kms: Any, kms_key_id: str, *, purpose: str) -> None:
        self._db = client
        self._table = table
        self._kms = kms
        self._kms_key_id = kms_key_id
        self._purpose = purpose
        self._lock = threading.Lock()
        self._cached: dict[str, tuple[float, KeyGroup]] = {}
        self._opened: dict[str, bytes] = {}  # sealed text -> private half, decrypted once per process

    # -- reads ----------------------------------------------------------------------------------

    def group(self, name: str) -> KeyGroup:
        with self._lock:
            cached = self._cached.get(name)
            if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
                return cached[1]
        items = self._query(name)
        found = KeyGroup(
            pointer={k: v for k, v in items.pop(name, {}).items() if k not in ("pk", "sk")},
            keys={sk.removeprefix(f"{name}#"): item for sk, item in items.items() if sk.startswith(f"{name}#")},
        )
        if found.pointer:  # a group without a pointer has no key yet: the first one is seen at once
            with self._lock:
                self._cached[name] = (time.monotonic(), found)
        return found

    def open(self, sealed: str, context: Mapping[str, str]) -> bytes:
        """The private half sealed by `seal` under the same context."""
        opened = self._opened.get(sealed)
        if opened is None:
            opened = self._kms.decrypt(
                CiphertextBlob=base64.b64decode(sealed), EncryptionContext=self._context(context)
            )["Plaintext"]
            self._opened[sealed] = opened
        return opened

    # -- writes ---------------------------------------------------------------------------------

    def seal(self, private: bytes, context: Mapping[str, str]) -> str:
        """The private half encrypted by the content key under {purpose, **context}, as base64 text."""
        blob = self._kms.encrypt(KeyId=self._kms_key_id, Plaintext=private, EncryptionContext=self._context(context))
        return base64.b64encode(blob["CiphertextBlob"]).decode()

    def add(
        self,
        name: str,
        key_id: str,
        item: dict[str, Any],
        *,
        role: str,
        replacing: str | None,
        on_replaced: dict[str, Any] | None = None,
    ) -> bool:
        """Stores the key `key_id` (a stored key is never overwritten) and points `role` at it, in one
        transaction conditioned on `role` naming `replacing` (None: no key holds it yet); with
        `on_replaced`, the replaced key gets those attributes in the same transaction. False when
        the condition failed: another process got there first."""
        values: dict[str, Any] = {":new": {"S": key_id}}
        if replacing is None:
            condition = "attribute_not_exists(#role)"
        else:
            condition = "#role = :old"
            values[":old"] = {"S": replacing}
        writes: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {**key(PK, f"{name}#{key_id}"), **to_attrs(item)},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(PK, name),
                    "UpdateExpression": "SET #role = :new",
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#role": role},  # names kept clear of reserved words
                    "ExpressionAttributeValues": values,
                }
            },
        ]
        if replacing is not None and on_replaced:
            names = {f"#a{n}": attribute for n, attribute in enumerate(on_replaced)}
            writes.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(PK, f"{name}#{replacing}"),
                        "UpdateExpression": "SET " + ", ".join(f"#a{n} = :a{n}" for n in range(len(names))),
                        "ExpressionAttributeNames": names,
                        "ExpressionAttributeValues": {
                            f":a{n}": to_value(value) for n, value in enumerate(on_replaced.values())
                        },
                    }
                }
            )
        return self._transact(name, writes)

    def promote(self, name: str, key_id: str, *, source: str, target: str) -> bool:
        """The key holding `source` takes `target` (and `source` is cleared); False when `source`
        no longer names `key_id`."""
        update = {
            "TableName": self._table,
            "Key": key(PK, name),
            "UpdateExpression": "SET #target = :id REMOVE #source",
            "ConditionExpression": "#source = :id",
            "ExpressionAttributeNames": {"#target": target, "#source": source},
            "ExpressionAttributeValues": {":id": {"S": key_id}},
        }
        return self._transact(name, [{"Update": update}])

    def remove(self, name: str, key_id: str) -> None:
        self._db.delete_item(TableName=self._table, Key=key(PK, f"{name}#{key_id}"))
        self.forget(name)

    def forget(self, name: str) -> None:
        with self._lock:
            self._cached.pop(name, None)

    # -- internals ------------------------------------------------------------------------------

    def _transact(self, name: str, writes: list[dict[str, Any]]) -> bool:
        """Runs the writes of group `name` in one transaction: False when a condition failed."""
        try:
            self._db.transact_write_items(TransactItems=writes)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            return False
        finally:
            self.forget(name)
        return True

    def _context(self, context: Mapping[str, str]) -> dict[str, str]:
        return {"purpose": self._purpose, **context}

    def _query(self, name: str) -> dict[str, dict[str, Any]]:
        """The pointer and keys of `name` by sort key (pages followed: a group is a handful of items)."""
        items: dict[str, dict[str, Any]] = {}
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :group)",
            "ExpressionAttributeValues": {":pk": {"S": PK}, ":group": {"S": name}},
            "ConsistentRead": True,
        }
        while True:
            response = self._db.query(**request)
            for raw in response["Items"]:
                item = from_attrs(raw)
                items[item["sk"]] = item
            if "LastEvaluatedKey" not in response:
                return items
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
