"""Webhook signing keys in the resources table, private halves encrypted by KMS.

    PLATFORM   SIGNKEY#<kid>      a key: public half, KMS-encrypted seed, created/replaced times
    PLATFORM   SIGNKEY            pointer to the active kid: creating a key is a transaction
                                  conditioned on it, so two cold containers never both mint one

Ed25519 comes from PyNaCl (libsodium), not hand-written. When to rotate and what to publish is
the service's (signing_keys/service.py); this store mints, signs and forgets keys.
"""

from __future__ import annotations

import base64
import threading
import time
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError
from nacl.signing import SigningKey as NaclSigningKey

from postline.shared.dynamo import from_attrs, key, to_attrs
from postline.signing_keys.domain import SigningKey

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

    def keys(self) -> list[SigningKey]:
        return self._load()[0]

    def sign_with(self, kid: str, content: bytes) -> bytes:
        return self._signing_key(kid).sign(content).signature

    def remove(self, kid: str) -> None:
        self._db.delete_item(TableName=self._table, Key=key(_PK, _PREFIX + kid))
        self._cached = None

    def mint(self, kid: str, now: datetime, *, replacing: SigningKey | None) -> bool:
        """A new key pair, generated here so its seed exists only sealed by KMS, stored as the active
        key in one transaction conditioned on the pointer still naming `replacing`."""
        seed = NaclSigningKey.generate()
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
        if replacing:
            pointer["ConditionExpression"] = "kid = :old"
            pointer["ExpressionAttributeValues"][":old"] = {"S": replacing.kid}
        else:
            pointer["ConditionExpression"] = "attribute_not_exists(kid)"
        writes: list[dict[str, Any]] = [
            {"Put": {"TableName": self._table, "Item": {**key(_PK, _PREFIX + kid), **to_attrs(item)}}},
            {"Update": pointer},
        ]
        if replacing:
            writes.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(_PK, _PREFIX + replacing.kid),
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
            return False  # another container rotated first; its key is the active one
        finally:
            self._cached = None
        return True

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
