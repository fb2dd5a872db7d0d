"""Webhook signing keys in the resources table, private halves encrypted by KMS.

    PLATFORM   SIGNKEY#<kid>      a key: public half, KMS-encrypted seed, created/replaced times
    PLATFORM   SIGNKEY            pointer to the active kid: creating a key is a transaction
                                  conditioned on it, so two cold containers never both mint one

Ed25519 comes from PyNaCl (libsodium), not hand-written.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError
from nacl.signing import SigningKey as NaclSigningKey

from postline.shared.dynamo import from_attrs, key, to_attrs
from postline.signing_keys.domain import SigningKey, active, due_for_rotation, expired, new_kid, published

_PK = "PLATFORM"
_POINTER = "SIGNKEY"
_PREFIX = "SIGNKEY#"
_CACHE_SECONDS = 60.0


class DynamoSigningKeys:
    def __init__(self, client: Any, table: str, kms: Any, kms_key_id: str) -> None:
        self._db = client
        self._table = table
        self._kms = kms
        self._kms_key_id = kms_key_id
        self._lock = threading.Lock()
        self._cached: tuple[float, list[SigningKey], dict[str, str]] | None = None
        self._private: dict[str, NaclSigningKey] = {}

    # -- reads ----------------------------------------------------------------------------------

    def keys(self) -> list[SigningKey]:
        return self._load()[0]

    def published(self, now: datetime) -> list[SigningKey]:
        return published(self.keys(), now)

    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, signature) by the active key, minting the first key on first use."""
        current = active(self.keys())
        if current is None:
            self.rotate(now)
            current = active(self.keys())
            assert current is not None, "a key was just created"
        return current.kid, self._signing_key(current.kid).sign(content).signature

    # -- writes ---------------------------------------------------------------------------------

    def rotate(self, now: datetime, *, force: bool = False) -> str | None:
        """Mints a new active key when the current one is due (or forced); drops expired keys."""
        keys = self.keys()
        for old in expired(keys, now):
            self._db.delete_item(TableName=self._table, Key=key(_PK, _PREFIX + old.kid))
        if not force and not due_for_rotation(keys, now):
            return None
        current = active(keys)
        seed = NaclSigningKey.generate()
        kid = new_kid(now, secrets.token_hex(4))
        encrypted = self._kms.encrypt(
            KeyId=self._kms_key_id, Plaintext=bytes(seed), EncryptionContext={"purpose": "webhook-signing", "kid": kid}
        )["CiphertextBlob"]
        item = {
            "kid": kid,
            "public_key": base64.b64encode(bytes(seed.verify_key)).decode(),
            "private_key": base64.b64encode(encrypted).decode(),
            "created_at": now.isoformat(),
        }
        pointer: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(_PK, _POINTER),
            "UpdateExpression": "SET kid = :new",
            "ExpressionAttributeValues": {":new": {"S": kid}},
        }
        if current:
            pointer["ConditionExpression"] = "kid = :old"
            pointer["ExpressionAttributeValues"][":old"] = {"S": current.kid}
        else:
            pointer["ConditionExpression"] = "attribute_not_exists(kid)"
        writes: list[dict[str, Any]] = [
            {"Put": {"TableName": self._table, "Item": {**key(_PK, _PREFIX + kid), **to_attrs(item)}}},
            {"Update": pointer},
        ]
        if current:
            writes.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(_PK, _PREFIX + current.kid),
                        "UpdateExpression": "SET replaced_at = :now",
                        "ExpressionAttributeValues": {":now": {"S": now.isoformat()}},
                    }
                }
            )
        try:
            self._db.transact_write_items(TransactItems=writes)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            return None  # another container rotated first; its key is the active one
        finally:
            self._cached = None
        return kid

    # -- internals ------------------------------------------------------------------------------

    def _load(self) -> tuple[list[SigningKey], dict[str, str]]:
        with self._lock:
            if self._cached and time.monotonic() - self._cached[0] < _CACHE_SECONDS:
                return self._cached[1], self._cached[2]
            response = self._db.query(
                TableName=self._table,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
                ExpressionAttributeValues={":pk": {"S": _PK}, ":prefix": {"S": _PREFIX}},
                ConsistentRead=True,
            )
            items = [from_attrs(attrs) for attrs in response["Items"]]
            keys = [
                SigningKey(
                    kid=item["kid"],
                    public_key=base64.b64decode(item["public_key"]),
                    created_at=item["created_at"],
                    replaced_at=item.get("replaced_at"),
                )
                for item in items
            ]
            private = {item["kid"]: item["private_key"] for item in items}
            self._cached = (time.monotonic(), keys, private)
            return keys, private

    def _signing_key(self, kid: str) -> NaclSigningKey:
        if kid not in self._private:
            encrypted = base64.b64decode(self._load()[1][kid])
            seed = self._kms.decrypt(
                CiphertextBlob=encrypted, EncryptionContext={"purpose": "webhook-signing", "kid": kid}
            )["Plaintext"]
            self._private[kid] = NaclSigningKey(seed)
        return self._private[kid]
