"""The suppressions table: one item per list entry; never expires.

    SUP#<account>  <email>#<type>   an entry (email lowercased): the send path's check and every
                                    lookup by (type, email) is a key read, 100 keys to a BatchGetItem
    index by_created: SUP#<account> / created    every entry of the account, newest first
    index by_type:    SUP#<account>#<type> / created   one list, newest first
    index by_id:      id (KEYS_ONLY)             the API's lookup by id, then a consistent GetItem
    SUP#<account>  ERASED#<keyed hash>   an erased address's objection (data_removals/): `types`
                                    (a string set of the block lists it was on), no plaintext and
                                    none of the indexes' attributes (no list, export or lookup by
                                    id shows it); the send path's check reads it beside the entries

`created` is `<created_at, microseconds, Z>#<id>`, so it sorts by time and is unique. Ids are derived
from (account, type, email) (domain.suppression_id): a bulk add writes absent entries without a
condition, and a concurrent writer of the same entry writes the same id. Every route is a GetItem,
a BatchGetItem or a Query; nothing scans. Single writes carry their audit entry (resources table)
in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from botocore.exceptions import ClientError
from pydantic import TypeAdapter

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.shared.dynamo import (
    batch_delete,
    batch_get,
    batch_write,
    cancellation_codes,
    conditional_failed,
    from_attrs,
    key,
    query_page,
)
from postline.suppressions.domain import (
    Suppression,
    SuppressionSource,
    SuppressionType,
    blocks,
    new_suppression,
)
from postline.suppressions.models import SuppressionFilters

BY_CREATED = "by_created"
BY_TYPE = "by_type"
BY_ID = "by_id"
_AFTER_ANY_ID = "#~"  # sorts after "#<id>" (ids are lowercase hex and dashes)
_TIME = TypeAdapter(datetime)
ERASED = "ERASED#"


def _pk(account_id: str) -> str:
    return f"SUP#{account_id}"


def _type_pk(account_id: str, kind: SuppressionType) -> str:
    return f"SUP#{account_id}#{kind.value}"


def entry_sk(email: str, kind: SuppressionType) -> str:
    return f"{email}#{kind.value}"


def erased_sk(address_hash: str) -> str:
    return f"{ERASED}{address_hash}"


def _moment(at: datetime) -> str:
    return f"{at.astimezone(UTC):%Y-%m-%dT%H:%M:%S.%f}Z"


@lru_cache(maxsize=64)
def _times(at: datetime) -> tuple[str, str]:
    """created_at as the model stores it, and as the indexes sort it (a bulk add's entries share one)."""
    return _TIME.dump_python(at, mode="json"), _moment(at)


def entry_item(entry: Suppression) -> dict[str, Any]:
    """The stored item of an entry, with the attributes its indexes read: built attribute by attribute
    (a bulk add builds 10,000), as `to_attrs(entry.model_dump(mode="json"))` would."""
    stored, moment = _times(entry.created_at)
    item = {
        **key(_pk(entry.account_id), entry_sk(entry.email, entry.type)),
        "id": {"S": entry.id},
        "account_id": {"S": entry.account_id},
        "type": {"S": entry.type.value},
        "email": {"S": entry.email},
        "override_unsubscribes": {"BOOL": entry.override_unsubscribes},
        "created_at": {"S": stored},
        "created": {"S": f"{moment}#{entry.id}"},
        "type_pk": {"S": _type_pk(entry.account_id, entry.type)},
    }
    if entry.reason is not None:
        item["reason"] = {"S": entry.reason}
    if entry.source is not None:
        item["source"] = {"S": entry.source.value}
    return item


def _entry(attrs: dict[str, Any]) -> Suppression:
    return Suppression.model_validate(from_attrs(attrs))


class DynamoSuppressions:
    def __init__(
        self,
        client: Any,
        table: str,
        audit_table: str,
        *,
        workers: int = 1,
        erased_hashes: Callable[[str, list[str]], list[str]] | None = None,
    ) -> None:
        """audit_table: the resources table, where the API's writes record their audit entries;
        workers: the batch calls of `suppressed`, `present` and `put_many` made at once (the import
        worker's chunks: 10 BatchGetItem and 40 BatchWriteItem calls a chunk of 1,000 rows; a 5,000
        batch's check: 250 BatchGetItem calls); erased_hashes: (account id, addresses) -> the keyed
        hash each erased address is kept under, in order, so `suppressed` still honours them (None:
        readers that never send)."""
        self._db = client
        self._table = table
        self._audit_table = audit_table
        self._workers = workers
        self._erased_hashes = erased_hashes

    # -- sending and delivery ---------------------------------------------------------------------------

    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        emails = sorted({address.lower() for address in addresses})
        # One partition attribute shared by every key (read-only once built): a 5,000 batch asks for 25,000.
        pk = {"S": _pk(account_id)}
        kinds = [entry_sk("", kind) for kind in SuppressionType]  # "#<type>": entry_sk is email + that
        keys = [{"pk": pk, "sk": {"S": email + kind}} for email in emails for kind in kinds]
        hashed: dict[str, str] = {}
        if self._erased_hashes is not None:
            hashes = self._erased_hashes(account_id, emails)
            hashed = {erased_sk(sk): email for sk, email in zip(hashes, emails, strict=True)}
            keys += [{"pk": pk, "sk": {"S": sk}} for sk in hashed]
        found: dict[str, list[Suppression]] = {}
        for attrs in batch_get(self._db, self._table, keys, workers=self._workers):
            sk = attrs["sk"]["S"]
            if sk in hashed:  # an erased address: its objection, kept as the list types alone
                email = hashed[sk]
                kept = [SuppressionType(kind) for kind in attrs.get("types", {}).get("SS", [])]
                at = datetime.fromisoformat(attrs["erased_at"]["S"])
                found.setdefault(email, []).extend(new_suppression(account_id, kind, email, at) for kind in kept)
                continue
            entry = _entry(attrs)
            found.setdefault(entry.email, []).append(entry)
        return {email for email, entries in found.items() if blocks(entries)}

    def erase(self, account_id: str, address: str, address_hash: str) -> int:
        """The address's plaintext entries go; if they stopped sends to it (an objection: a bounce,
        an unsubscribe, a complaint, not overridden), the block lists it was on stay under its
        keyed hash, so `suppressed` keeps refusing it. Idempotent. Returns the entries erased."""
        email = address.lower()
        entries = [_entry(attrs) for attrs in batch_get(
            self._db, self._table, [key(_pk(account_id), entry_sk(email, kind)) for kind in SuppressionType]
        )]  # fmt: skip
        if not entries:
            return 0
        writes: list[dict[str, Any]] = []
        if blocks(entries):
            kinds = sorted({entry.type.value for entry in entries} - {SuppressionType.ALLOWLIST.value})
            writes.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(_pk(account_id), erased_sk(address_hash)),
                        "UpdateExpression": "ADD #types :types SET erased_at = if_not_exists(erased_at, :at)",
                        "ExpressionAttributeNames": {"#types": "types"},
                        "ExpressionAttributeValues": {
                            ":types": {"SS": kinds},
                            ":at": {"S": min(entry.created_at for entry in entries).isoformat()},
                        },
                    }
                }
            )
        writes += [
            {"Delete": {"TableName": self._table, "Key": key(_pk(account_id), entry_sk(email, entry.type))}}
            for entry in entries
        ]
        self._db.transact_write_items(TransactItems=writes)
        return len(entries)

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        """Idempotent: an address already on the list keeps its first entry."""
        entry = new_suppression(account_id, kind, address.lower(), now, reason=reason, source=source)
        try:
            self._db.put_item(
                TableName=self._table, Item=entry_item(entry), ConditionExpression="attribute_not_exists(pk)"
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise
            return False
        return True

    # -- the API ----------------------------------------------------------------------------------------

    def get(self, account_id: str, suppression_id: str) -> Suppression | None:
        response = self._db.query(
            TableName=self._table,
            IndexName=BY_ID,
            KeyConditionExpression="#id = :id",
            ExpressionAttributeNames={"#id": "id"},
            ExpressionAttributeValues={":id": {"S": suppression_id}},
        )
        pk = _pk(account_id)
        for found in response["Items"]:
            if found["pk"]["S"] == pk:  # another account's id is not found
                item = self._db.get_item(
                    TableName=self._table, Key={"pk": found["pk"], "sk": found["sk"]}, ConsistentRead=True
                ).get("Item")
                return _entry(item) if item else None
        return None

    def find(self, account_id: str, kind: SuppressionType, email: str) -> Suppression | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(_pk(account_id), entry_sk(email, kind)), ConsistentRead=True
        ).get("Item")
        return _entry(item) if item else None

    def list_page(
        self, account_id: str, filters: SuppressionFilters, *, page: int, per_page: int
    ) -> tuple[list[Suppression], int]:
        found, total = query_page(
            self._db,
            self._table,
            _list_condition(account_id, filters),
            page=page,
            per_page=per_page,
            forward=filters.email_prefix is not None,
        )
        return [_entry(attrs) for attrs in found], total

    def create(self, entry: Suppression, audit: AuditEntry) -> Suppression | None:
        put = {"Put": {"TableName": self._table, "Item": entry_item(entry)}}
        return entry if self._with_audit(put, "attribute_not_exists(pk)", audit) else None

    def remove(self, entry: Suppression, audit: AuditEntry) -> bool:
        entry_key = key(_pk(entry.account_id), entry_sk(entry.email, entry.type))
        return self._with_audit({"Delete": {"TableName": self._table, "Key": entry_key}}, "attribute_exists(pk)", audit)

    def _with_audit(self, write: dict[str, Any], condition: str, audit: AuditEntry) -> bool:
        """The write, under its condition, and its audit entry in one transaction; False (nothing
        written) when the condition fails."""
        for operation in write.values():
            operation["ConditionExpression"] = condition
        try:
            self._db.transact_write_items(TransactItems=[write, audit_put(self._audit_table, audit)])
        except ClientError as error:
            if cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]:
                return False
            raise
        return True

    def stream(self, account_id: str, kind: SuppressionType | None) -> Iterator[Suppression]:
        """Every entry of one list (or all), newest first, a page of the index at a time."""
        condition = _list_condition(account_id, SuppressionFilters(type=kind))
        for page in self._db.get_paginator("query").paginate(
            TableName=self._table, ScanIndexForward=False, **condition
        ):
            yield from (_entry(attrs) for attrs in page["Items"])

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        keys = [key(_pk(account_id), entry_sk(email, kind)) for email in emails]
        found = batch_get(self._db, self._table, keys, "sk", workers=self._workers)
        return {attrs["sk"]["S"].rsplit("#", 1)[0] for attrs in found}

    def put_many(self, entries: list[Suppression]) -> None:
        batch_write(self._db, [(self._table, entry_item(entry)) for entry in entries], workers=self._workers)

    def delete_many(self, account_id: str, kind: SuppressionType, emails: list[str]) -> None:
        batch_delete(self._db, [(self._table, key(_pk(account_id), entry_sk(email, kind))) for email in emails])


def _list_condition(account_id: str, filters: SuppressionFilters) -> dict[str, Any]:
    """The Query of a list: by address prefix (the table, by address), else by type (by_type) or all
    (by_created), newest first, the time window a key range; what the key cannot say is filtered."""
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    window: list[str] = []
    if filters.since is not None:
        values[":since"] = {"S": _moment(filters.since)}
        window.append("created >= :since")
    if filters.until is not None:
        values[":until"] = {"S": _moment(filters.until) + _AFTER_ANY_ID}
        window.append("created <= :until")
    condition: dict[str, Any] = {}
    if filters.email_prefix is not None:
        values[":pk"] = {"S": _pk(account_id)}
        values[":prefix"] = {"S": filters.email_prefix}
        condition["KeyConditionExpression"] = "pk = :pk AND begins_with(sk, :prefix)"
        filtered = list(window)
        if filters.type is not None:
            names["#type"] = "type"
            values[":type"] = {"S": filters.type.value}
            filtered.append("#type = :type")
        if filtered:
            condition["FilterExpression"] = " AND ".join(filtered)
    else:
        if filters.type is not None:
            condition["IndexName"] = BY_TYPE
            values[":pk"] = {"S": _type_pk(account_id, filters.type)}
            partition = "type_pk = :pk"
        else:
            condition["IndexName"] = BY_CREATED
            values[":pk"] = {"S": _pk(account_id)}
            partition = "pk = :pk"
        if len(window) == 2:
            window = ["created BETWEEN :since AND :until"]
        condition["KeyConditionExpression"] = " AND ".join([partition, *window])
    condition["ExpressionAttributeValues"] = values
    if names:
        condition["ExpressionAttributeNames"] = names
    return condition
