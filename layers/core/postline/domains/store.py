"""Sending domains in the resources table (ACCT#<account> / DOMAIN#<name>), DKIM keys encrypted.

The DKIM private key is stored encrypted with KMS under the content key. The API only asks
whether a domain is verified (no KMS call); the dispatcher decrypts the key once per container.
Items are cached per container for a minute.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from postline.domains.domain import DomainStatus, SendingDomain
from postline.shared.dynamo import from_attrs, key, to_attrs
from postline.shared.resources_table import account_pk

_CACHE_SECONDS = 60.0


def domain_sk(domain: str) -> str:
    return f"DOMAIN#{domain.lower()}"


class DynamoSendingDomains:
    def __init__(self, dynamodb: Any, table: str, kms: Any, key_id: str) -> None:
        self._db = dynamodb
        self._table = table
        self._kms = kms
        self._key_id = key_id
        self._cache: dict[tuple[str, str], tuple[float, dict[str, Any] | None]] = {}  # the stored items
        self._keys: dict[str, str] = {}  # encrypted DKIM key -> PEM, decrypted once per container

    def put_domain(self, domain: SendingDomain) -> None:
        data = domain.model_dump(mode="json", exclude={"dkim_private_key"})
        encrypted = self._kms.encrypt(KeyId=self._key_id, Plaintext=domain.dkim_private_key.encode())
        data["dkim_private_key_encrypted"] = base64.b64encode(encrypted["CiphertextBlob"]).decode()
        item = {**key(account_pk(domain.account_id), domain_sk(domain.domain)), **to_attrs(data)}
        self._db.put_item(TableName=self._table, Item=item)
        self._cache.pop((domain.account_id, domain.domain.lower()), None)

    def is_verified(self, account_id: str, domain: str) -> bool:
        """For the API's screening: no KMS call, the key stays encrypted."""
        data = self._item(account_id, domain)
        return data is not None and data["status"] == DomainStatus.VERIFIED

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        data = self._item(account_id, domain)
        if data is None or data["status"] != DomainStatus.VERIFIED:
            return None
        blob = data["dkim_private_key_encrypted"]
        if blob not in self._keys:
            plaintext = self._kms.decrypt(CiphertextBlob=base64.b64decode(blob))["Plaintext"]
            self._keys[blob] = plaintext.decode()
        fields = {name: value for name, value in data.items() if name != "dkim_private_key_encrypted"}
        return SendingDomain.model_validate({**fields, "dkim_private_key": self._keys[blob]})

    def _item(self, account_id: str, domain: str) -> dict[str, Any] | None:
        cache_key = (account_id, domain.lower())
        cached = self._cache.get(cache_key)
        if cached is not None and time.monotonic() - cached[0] < _CACHE_SECONDS:
            return cached[1]
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), domain_sk(domain)), ConsistentRead=True
        ).get("Item")
        data = from_attrs(item) if item else None
        self._cache[cache_key] = (time.monotonic(), data)
        return data
