"""Sending domains in the resources table (ACCT#<account> / DOMAIN#<name>), DKIM keys encrypted.

The DKIM private key is stored encrypted with KMS under the content key and decrypted on read,
with the result cached per container for a few minutes: a send reads it once per domain.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from postline.adapters.dynamo import from_attrs, key, to_attrs
from postline.adapters.resources import account_pk
from postline.domain.domains import SendingDomain

_CACHE_SECONDS = 60.0


def domain_sk(domain: str) -> str:
    return f"DOMAIN#{domain.lower()}"


class DynamoSendingDomains:
    def __init__(self, dynamodb: Any, table: str, kms: Any, key_id: str) -> None:
        self._db = dynamodb
        self._table = table
        self._kms = kms
        self._key_id = key_id
        self._cache: dict[tuple[str, str], tuple[float, SendingDomain | None]] = {}

    def put_domain(self, domain: SendingDomain) -> None:
        data = domain.model_dump(mode="json", exclude={"dkim_private_key"})
        encrypted = self._kms.encrypt(KeyId=self._key_id, Plaintext=domain.dkim_private_key.encode())
        data["dkim_private_key_encrypted"] = base64.b64encode(encrypted["CiphertextBlob"]).decode()
        item = {**key(account_pk(domain.account_id), domain_sk(domain.domain)), **to_attrs(data)}
        self._db.put_item(TableName=self._table, Item=item)
        self._cache.pop((domain.account_id, domain.domain.lower()), None)

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        cache_key = (account_id, domain.lower())
        cached = self._cache.get(cache_key)
        if cached is not None and time.monotonic() - cached[0] < _CACHE_SECONDS:
            return cached[1]
        found = self._read(account_id, domain)
        result = found if found is not None and found.verified else None
        self._cache[cache_key] = (time.monotonic(), result)
        return result

    def _read(self, account_id: str, domain: str) -> SendingDomain | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), domain_sk(domain)), ConsistentRead=True
        ).get("Item")
        if not item:
            return None
        data = from_attrs(item)
        blob = base64.b64decode(data.pop("dkim_private_key_encrypted"))
        data["dkim_private_key"] = self._kms.decrypt(CiphertextBlob=blob)["Plaintext"].decode()
        return SendingDomain.model_validate(data)
