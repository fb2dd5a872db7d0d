"""Sending domains in the resources table (ACCT#<account> / DOMAIN#<name>), DKIM keys encrypted.

The DKIM private key is stored encrypted with KMS under the content key (a 2048-bit PEM is well
inside KMS Encrypt's 4 KB) and never leaves the store in an API reply. The API's send screening
only asks whether a domain is verified (no KMS call); the dispatcher decrypts the key once per
container. Verified items are cached per container for a minute for those two reads, which are an
account's own domain; another account's domain it sends from (shared with the company or granted)
is read at once (current_domain), so unsharing it stops the next send.

The name is the sort key, so a name is unique in the account by construction; the API addresses
a domain by its id, found with one Query of the account's domains (the plan bounds them, 100 at
most). The plan limit is the account item's domain_count, moved in the same transaction as the
domain. Domains with a check due carry `due` and `next_check_at`, the keys of the sparse index
by_next_check the scheduled re-check reads. `revision` guards against a check and an edit writing
over each other; `sent_count` is only ever ADDed to, by sending.

A grant to an outside account (external_accounts) is an item in the grantee's partition,
ACCT#<grantee> / DOMGRANT#<name>#<owner> -> the owner and the domain id, written in the
transaction that changes the domain's list: the grantee finds what it may send from with one Query
of its own partition, and the domain's own list stays the authority (a grant it no longer names
grants nothing). A revoked grant's item stays, marked `revoked`, so the grantee's messages accepted
before still find the owner's DKIM key at delivery; deleting the domain deletes its grants, current
and revoked (the domain item lists the revoked ones: `revoked_accounts`).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError
from pydantic import TypeAdapter

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.domains.domain import DomainStatus, SendingDomain
from postline.shared.dynamo import batch_delete, cancellation_codes, from_attrs, key, to_attrs, to_value, transient
from postline.shared.errors import ValidationFailed
from postline.shared.resources_table import ACCOUNT_SK, account_pk, count_under_limit, create_counted, transact

_SAVE_PAUSES = (0.2, 0.5, 1.0, 2.0)  # seconds between tries of a save (save_domain)

PREFIX = "DOMAIN#"
GRANT = "DOMGRANT#"
DUE_INDEX = "by_next_check"
DUE = "DOMAIN"  # the by_next_check partition: every domain with a check due
_CACHE_SECONDS = 60.0
_TIME = TypeAdapter(datetime)
_SEALED = {"dkim_private_key": "dkim_private_key_encrypted", "next_dkim_private_key": "next_dkim_private_key_encrypted"}
_FIXED = {"account_id", "domain", "id", "created_at", "sent_count", "revision", *_SEALED}


def domain_sk(domain: str) -> str:
    return f"{PREFIX}{domain.lower()}"


def grant_sk(domain: str, owner_id: str) -> str:
    return f"{GRANT}{domain.lower()}#{owner_id}"


class DynamoSendingDomains:
    def __init__(self, dynamodb: Any, table: str, kms: Any, key_id: str) -> None:
        self._db = dynamodb
        self._table = table
        self._kms = kms
        self._key_id = key_id
        self._cache: dict[tuple[str, str], tuple[float, dict[str, Any]]] = {}  # verified items as stored
        self._keys: dict[str, str] = {}  # encrypted DKIM key -> PEM, decrypted once per container

    # -- sending ----------------------------------------------------------------------------------------

    def put_domain(self, domain: SendingDomain) -> None:
        """Stores a domain as it is, outside the plan count and the audit log: fixtures only."""
        item = {**key(account_pk(domain.account_id), domain_sk(domain.domain)), **to_attrs(self._sealed(domain))}
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
        return self._domain(data)

    def current_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        """As verified_domain, from the table at once (for another workspace's send: the owner's
        unshare, written by another container, must stop it at once)."""
        data = self._item(account_id, domain, cached=False)
        if data is None or data["status"] != DomainStatus.VERIFIED:
            return None
        return self._domain(data)

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        self._db.update_item(
            TableName=self._table,
            Key=key(account_pk(account_id), domain_sk(domain)),
            UpdateExpression="ADD sent_count :copies",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":copies": {"N": str(copies)}},
        )

    def granted_domain(self, account_id: str, domain: str, *, revoked_too: bool = False) -> SendingDomain | None:
        for owner_id, _ in self._grants(account_id, f"{GRANT}{domain.lower()}#"):
            if revoked_too:  # for a message accepted under the grant: the owner's domain as it is
                found = self.verified_domain(owner_id, domain)
                if found is not None:
                    return found
                continue
            found = self.current_domain(owner_id, domain)
            if found is not None and account_id in found.external_accounts:
                return found
        return None

    def granted_domains(self, account_id: str) -> list[SendingDomain]:
        found = (self.get_domain(owner_id, domain_id) for owner_id, domain_id in self._grants(account_id, GRANT))
        return [domain for domain in found if domain is not None and account_id in domain.external_accounts]

    def _grants(self, account_id: str, prefix: str) -> list[tuple[str, str]]:
        """(owner, domain id) of the grant items in the grantee's partition under `prefix`."""
        paginator = self._db.get_paginator("query")
        pages = paginator.paginate(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": {"S": account_pk(account_id)}, ":prefix": {"S": prefix}},
            ConsistentRead=True,
        )
        items = (from_attrs(attrs) for page in pages for attrs in page["Items"])
        return [(str(item["owner_account_id"]), str(item["domain_id"])) for item in items]

    def _grant_ops(
        self, domain: SendingDomain, granted: Sequence[str], revoked: Sequence[str], *, keep_revoked: bool = False
    ) -> list[dict[str, Any]]:
        """keep_revoked: a revoked grant's item stays, marked `revoked` (it grants nothing: the domain's
        list is the authority), so the grantee's messages accepted under it still find the owner's key."""
        sk = grant_sk(domain.domain, domain.account_id)
        fields = {"owner_account_id": domain.account_id, "domain_id": domain.id, "domain": domain.domain}
        data, gone = to_attrs(fields), to_attrs({**fields, "revoked": True})
        puts = [{"Put": {"TableName": self._table, "Item": {**key(account_pk(a), sk), **data}}} for a in granted]
        if keep_revoked:
            marks = [{"Put": {"TableName": self._table, "Item": {**key(account_pk(a), sk), **gone}}} for a in revoked]
            return puts + marks
        deletes = [{"Delete": {"TableName": self._table, "Key": key(account_pk(a), sk)}} for a in revoked]
        return puts + deletes

    # -- the resource -----------------------------------------------------------------------------------

    def get_domain(self, account_id: str, domain_id: str) -> SendingDomain | None:
        return next((domain for domain in self.list_domains(account_id) if domain.id == domain_id), None)

    def list_domains(self, account_id: str) -> list[SendingDomain]:
        paginator = self._db.get_paginator("query")
        pages = paginator.paginate(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": {"S": account_pk(account_id)}, ":prefix": {"S": PREFIX}},
            ConsistentRead=True,
        )
        return [self._domain(from_attrs(attrs)) for page in pages for attrs in page["Items"]]

    def create_domain(self, domain: SendingDomain, *, max_domains: int, audit: AuditEntry) -> None:
        pk = account_pk(domain.account_id)
        ops = [
            count_under_limit(self._table, pk, "domain_count", max_domains),
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {**key(pk, domain_sk(domain.domain)), **to_attrs(self._sealed(domain))},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            audit_put(self._table, audit),
        ]
        create_counted(
            self._db,
            ops,
            limit=f"Your plan allows at most {max_domains} sending domains",
            duplicate=ValidationFailed(f"domain: this account already has {domain.domain}."),
        )

    def save_domain(
        self,
        domain: SendingDomain,
        *,
        expected_revision: int,
        audit: AuditEntry | None,
        rekeyed: bool = False,
        granted: Sequence[str] = (),
        revoked: Sequence[str] = (),
    ) -> bool:
        data = self._sealed(domain) if rekeyed else self._data(domain)
        names, values = {"#revision": "revision"}, {":expected": {"N": str(expected_revision)}, ":one": {"N": "1"}}
        sets, removes = ["#revision = #revision + :one"], []
        written = set(data) | set(SendingDomain.model_fields) | {"due"} | (set(_SEALED.values()) if rekeyed else set())
        for name in sorted(written):
            if name in _FIXED:
                continue
            names[f"#{name}"] = name
            if data.get(name) is None:
                removes.append(f"#{name}")
            else:
                values[f":{name}"] = to_value(data[name])
                sets.append(f"#{name} = :{name}")
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(domain.account_id), domain_sk(domain.domain)),
                "UpdateExpression": "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else ""),
                "ConditionExpression": "attribute_exists(pk) AND #revision = :expected",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        }
        ops = [
            update,
            *([audit_put(self._table, audit)] if audit else []),
            *self._grant_ops(domain, granted, revoked, keep_revoked=True),
        ]
        # Tried for longer than botocore's retries on an error AWS calls transient: a scheduled check's
        # save follows the owner's warning (domains/service.py recheck_due), and a save that failed would
        # leave the domain due and its next run warn again. A repeat of a write that did commit finds the
        # revision moved: False, as for any write another made meanwhile.
        for pause in (*_SAVE_PAUSES, None):
            try:
                self._db.transact_write_items(TransactItems=ops)
                break
            except ClientError as exc:
                if cancellation_codes(exc)[:1] == ["ConditionalCheckFailed"]:
                    return False  # deleted, or written by another check or edit since it was read
                if pause is None or not transient(exc):
                    raise
                time.sleep(pause)
        self._cache.pop((domain.account_id, domain.domain), None)
        return True

    def delete_domain(self, domain: SendingDomain, audit: AuditEntry) -> None:
        pk = account_pk(domain.account_id)
        ops = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(pk, domain_sk(domain.domain)),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(pk, ACCOUNT_SK),
                    "UpdateExpression": "ADD domain_count :minus",
                    "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                }
            },
            audit_put(self._table, audit),
            *self._grant_ops(domain, (), domain.external_accounts),
        ]
        transact(self._db, ops, missing=f"sending domain {domain.id} not found")
        self._cache.pop((domain.account_id, domain.domain), None)
        # The revoked grants' markers after the transaction, not in it: their list has no bound (a
        # transaction takes 100 items) and they grant nothing, so one a crash leaves behind is inert.
        sk = grant_sk(domain.domain, domain.account_id)
        marked = [a for a in domain.revoked_accounts if a not in domain.external_accounts]
        batch_delete(self._db, [(self._table, key(account_pk(a), sk)) for a in marked])

    def due_domains(self, now: datetime, limit: int) -> list[SendingDomain]:
        response = self._db.query(
            TableName=self._table,
            IndexName=DUE_INDEX,
            KeyConditionExpression="due = :due AND next_check_at <= :now",
            # The same ISO form the model stores, so the strings compare as the times do.
            ExpressionAttributeValues={":due": {"S": DUE}, ":now": {"S": _TIME.dump_python(now, mode="json")}},
            Limit=limit,
        )
        return [self._domain(from_attrs(attrs)) for attrs in response["Items"]]

    # -- items ------------------------------------------------------------------------------------------

    def _data(self, domain: SendingDomain) -> dict[str, Any]:
        data = domain.model_dump(mode="json", exclude=set(_SEALED))
        data["due"] = DUE if domain.next_check_at is not None else None
        return data

    def _sealed(self, domain: SendingDomain) -> dict[str, Any]:
        """The item's data with its private keys encrypted: for the writes that create or change them."""
        data = self._data(domain)
        for field, attribute in _SEALED.items():
            pem = getattr(domain, field)
            if pem is not None:
                encrypted = self._kms.encrypt(KeyId=self._key_id, Plaintext=pem.encode())
                data[attribute] = base64.b64encode(encrypted["CiphertextBlob"]).decode()
        return data

    def _domain(self, data: dict[str, Any]) -> SendingDomain:
        fields = {name: value for name, value in data.items() if name in SendingDomain.model_fields}
        for field, attribute in _SEALED.items():
            if attribute in data:
                fields[field] = self._opened(data[attribute])
        return SendingDomain.model_validate(fields)

    def _opened(self, blob: str) -> str:
        if blob not in self._keys:
            plaintext = self._kms.decrypt(CiphertextBlob=base64.b64decode(blob))["Plaintext"]
            self._keys[blob] = plaintext.decode()
        return self._keys[blob]

    def _item(self, account_id: str, domain: str, *, cached: bool = True) -> dict[str, Any] | None:
        """cached=False: read at once, and the cache is left as it is."""
        cache_key = (account_id, domain.lower())
        held = self._cache.get(cache_key) if cached else None
        if held is not None and time.monotonic() - held[0] < _CACHE_SECONDS:
            return held[1]
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), domain_sk(domain)), ConsistentRead=True
        ).get("Item")
        data = from_attrs(item) if item else None
        # Only verified domains are remembered: one verified meanwhile (by the verify route's function,
        # another container) sends at once, while a lost status lags at most a minute behind its grace.
        if cached and data is not None and data["status"] == DomainStatus.VERIFIED:
            self._cache[cache_key] = (time.monotonic(), data)
        return data
