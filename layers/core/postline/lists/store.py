"""Mailing lists and members in the resources table.

    ACCT#<account>  LIST#<list id>        a list, with member_count (ids are time-ordered: creation order)
    ACCT#<account>  LISTADDR#<address>    address -> list id: the lookup by address, and its uniqueness
    ACCT#<account>  LISTDEL#<list id>     a deleted list whose members the list worker still removes
    LIST#<list id>  MEMBER#<address>      a member (its own partition per list: member writes do not
                                          crowd the account's partition), with a `revision`
    ACCT#<account>  ACCOUNT               the account's `list_count`: `ADD` +1/-1 in the transaction
                                          that creates or deletes a list (an account from before lists
                                          were counted has none and is left so: its sends look every
                                          lone `to` up), so a send skips the list lookup at 0

A member's add and delete are one transaction with the list's `ADD member_count` (conditional on the
list existing) and the audit entry, so the count is exact under concurrent writers; a transaction
that meets a concurrent one (TransactionConflict) is retried. A bulk upsert writes up to 99 members
and the count in one transaction, each write conditional on what was read (absent, or its revision),
so a concurrent writer makes the chunk re-read and retry instead of counting twice.
"""

from __future__ import annotations

import random
import time
from typing import Any

from botocore.exceptions import ClientError

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.lists.domain import ListMember, MailingList
from postline.lists.models import MemberFilters
from postline.shared.dynamo import batch_delete, batch_get, cancellation_codes, from_attrs, key, query_page, to_attrs
from postline.shared.errors import Conflict, NotFound, ValidationFailed
from postline.shared.resources_table import ACCOUNT_SK, account_pk, put_op

LIST = "LIST#"
ADDRESS = "LISTADDR#"
DELETED = "LISTDEL#"
MEMBER = "MEMBER#"
_ATTEMPTS = 8
_ABSENT = "attribute_not_exists(pk)"


def list_sk(list_id: str) -> str:
    return f"{LIST}{list_id}"


def members_pk(list_id: str) -> str:
    return f"{LIST}{list_id}"


def member_sk(address: str) -> str:
    return f"{MEMBER}{address}"


def _list(attrs: dict[str, Any]) -> MailingList:
    return MailingList.model_validate(from_attrs(attrs))


def _member(attrs: dict[str, Any]) -> ListMember:
    return ListMember.model_validate(from_attrs(attrs))


def member_item(member: ListMember, revision: int) -> dict[str, Any]:
    return {
        **key(members_pk(member.list_id), member_sk(member.address)),
        **to_attrs(member.model_dump(mode="json")),
        "revision": {"N": str(revision)},
    }


def _count(account_id: str, list_id: str, table: str, change: int) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table,
            "Key": key(account_pk(account_id), list_sk(list_id)),
            "UpdateExpression": "ADD member_count :change",
            "ConditionExpression": "attribute_exists(pk)",
            "ExpressionAttributeValues": {":change": {"N": str(change)}},
        }
    }


class DynamoLists:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    # -- lists ------------------------------------------------------------------------------------------

    def create_list(self, mailing_list: MailingList, audit: AuditEntry, *, counted: bool) -> None:
        """counted: the account keeps a list_count (module text), which this creation adds to."""
        pk = account_pk(mailing_list.account_id)
        ops = [
            put_op(self._table, pk, list_sk(mailing_list.id), mailing_list.model_dump(mode="json"), _ABSENT),
            put_op(self._table, pk, f"{ADDRESS}{mailing_list.address}", {"list_id": mailing_list.id}, _ABSENT),
            audit_put(self._table, audit),
            *([self._count_op(mailing_list.account_id, 1)] if counted else []),
        ]
        codes = self._run(ops)
        if codes[1:2] == ["ConditionalCheckFailed"]:
            raise ValidationFailed(f"address: this account has a list at {mailing_list.address} already.")
        if codes:
            raise Conflict("The list changed concurrently; retry.")

    def get_list(self, account_id: str, list_id: str) -> MailingList | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), list_sk(list_id)), ConsistentRead=True
        ).get("Item")
        return _list(item) if item else None

    def list_id_at(self, account_id: str, address: str) -> str | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), f"{ADDRESS}{address}"), ConsistentRead=True
        ).get("Item")
        return item["list_id"]["S"] if item else None

    def list_addresses_among(self, account_id: str, addresses: list[str]) -> set[str]:
        """Which of `addresses` (normalized) are addresses of the account's lists: BatchGetItem, 100 a call."""
        keys = [key(account_pk(account_id), f"{ADDRESS}{address}") for address in dict.fromkeys(addresses)]
        found = batch_get(self._db, self._table, keys, projection="sk")
        return {str(item["sk"]).removeprefix(ADDRESS) for item in found}

    def list_page(self, account_id: str, *, page: int, per_page: int) -> tuple[list[MailingList], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": LIST}},
            "ConsistentRead": True,
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        return [_list(attrs) for attrs in found], total

    def update_list(self, mailing_list: MailingList, audit: AuditEntry) -> MailingList:
        sets, removes = ["#name = :name"], []
        values: dict[str, Any] = {":name": {"S": mailing_list.name}}
        if mailing_list.description is None:
            removes.append("description")
        else:
            sets.append("description = :description")
            values[":description"] = {"S": mailing_list.description}
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(mailing_list.account_id), list_sk(mailing_list.id)),
                "UpdateExpression": "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else ""),
                "ConditionExpression": "attribute_exists(pk)",
                "ExpressionAttributeNames": {"#name": "name"},
                "ExpressionAttributeValues": values,
            }
        }
        if self._run([update, audit_put(self._table, audit)]):
            raise NotFound(f"No list {mailing_list.id} in this account.")
        found = self.get_list(mailing_list.account_id, mailing_list.id)
        if found is None:
            raise NotFound(f"No list {mailing_list.id} in this account.")
        return found

    def delete_list(self, mailing_list: MailingList, audit: AuditEntry, *, counted: bool) -> None:
        """Removes the list and its address at once and leaves a marker the list worker removes once it
        has removed the members. counted: as create_list's."""
        pk = account_pk(mailing_list.account_id)
        ops = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(pk, list_sk(mailing_list.id)),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {"Delete": {"TableName": self._table, "Key": key(pk, f"{ADDRESS}{mailing_list.address}")}},
            put_op(self._table, pk, f"{DELETED}{mailing_list.id}", {"list_id": mailing_list.id}),
            audit_put(self._table, audit),
            *([self._count_op(mailing_list.account_id, -1)] if counted else []),
        ]
        if self._run(ops):
            raise NotFound(f"No list {mailing_list.id} in this account.")

    def _count_op(self, account_id: str, delta: int) -> dict[str, Any]:
        """The account's list_count by `delta`, in the list's own transaction (only where it is kept)."""
        return {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account_id), ACCOUNT_SK),
                "UpdateExpression": "ADD list_count :delta",
                "ConditionExpression": "attribute_exists(list_count)",
                "ExpressionAttributeValues": {":delta": {"N": str(delta)}},
            }
        }

    def remove_members(self, list_id: str, *, limit: int) -> int:
        """Removes up to `limit` of a deleted list's members; how many it removed (0: none left)."""
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": members_pk(list_id)}},
            ProjectionExpression="pk, sk",
            Limit=limit,
        )
        keys = [{"pk": attrs["pk"], "sk": attrs["sk"]} for attrs in response["Items"]]
        batch_delete(self._db, [(self._table, item_key) for item_key in keys])
        return len(keys)

    def deletion_done(self, account_id: str, list_id: str) -> None:
        self._db.delete_item(TableName=self._table, Key=key(account_pk(account_id), f"{DELETED}{list_id}"))

    # -- members ----------------------------------------------------------------------------------------

    def add_member(self, account_id: str, member: ListMember, audit: AuditEntry) -> None:
        ops = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": member_item(member, 1),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            _count(account_id, member.list_id, self._table, 1),
            audit_put(self._table, audit),
        ]
        codes = self._run(ops)
        if codes[:1] == ["ConditionalCheckFailed"]:
            raise ValidationFailed(
                f"address: {member.address} is a member of this list already; PATCH it to change it."
            )
        if codes:
            raise NotFound(f"No list {member.list_id} in this account.")

    def get_member(self, list_id: str, address: str) -> tuple[ListMember, int] | None:
        item = self._db.get_item(
            TableName=self._table, Key=key(members_pk(list_id), member_sk(address)), ConsistentRead=True
        ).get("Item")
        return (_member(item), int(item["revision"]["N"])) if item else None

    def members_page(
        self, list_id: str, filters: MemberFilters, *, page: int, per_page: int
    ) -> tuple[list[ListMember], int]:
        condition: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": members_pk(list_id)}, ":prefix": {"S": MEMBER}},
            "ConsistentRead": True,
        }
        if filters.subscribed is not None:
            condition["FilterExpression"] = "subscribed = :subscribed"
            condition["ExpressionAttributeValues"][":subscribed"] = {"BOOL": filters.subscribed}
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        return [_member(attrs) for attrs in found], total

    def subscribed_page(self, list_id: str, *, after: str | None, limit: int) -> tuple[list[ListMember], str | None]:
        """The list's subscribed members in address order, `limit` items read at a time from `after`
        (an address): the fan-out's page, and the address to go on from (None: the end)."""
        response = self._db.query(**self._subscribed_query(list_id, after=after, limit=limit))
        last = response.get("LastEvaluatedKey")
        return [_member(attrs) for attrs in response["Items"]], last["sk"]["S"][len(MEMBER) :] if last else None

    def subscribed_page_end(self, list_id: str, *, after: str | None, limit: int) -> str | None:
        """The address subscribed_page's page from `after` ends at (None: the list ends there), read
        as that page is (the same Query, `limit` items) but returning no item: a page task's bounds."""
        request = {**self._subscribed_query(list_id, after=after, limit=limit), "Select": "COUNT"}
        last = self._db.query(**request).get("LastEvaluatedKey")
        return last["sk"]["S"][len(MEMBER) :] if last else None

    def _subscribed_query(self, list_id: str, *, after: str | None, limit: int) -> dict[str, Any]:
        """The Query of a page of the list's subscribed members: `limit` items read from `after`."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "FilterExpression": "subscribed = :yes",
            "ExpressionAttributeValues": {
                ":pk": {"S": members_pk(list_id)},
                ":prefix": {"S": MEMBER},
                ":yes": {"BOOL": True},
            },
            "Limit": limit,
        }
        if after is not None:
            request["ExclusiveStartKey"] = key(members_pk(list_id), member_sk(after))
        return request

    def subscribed_range(self, list_id: str, *, after: str | None, through: str | None) -> list[ListMember]:
        """The subscribed members after `after` up to and including `through` (None: from the start,
        to the end), in address order: a page task's page, read as its bounds say (who joined or left
        since the bounds were read counts as of now; no member falls between two pages)."""
        values: dict[str, Any] = {":pk": {"S": members_pk(list_id)}, ":yes": {"BOOL": True}}
        if through is None:
            condition = "pk = :pk AND begins_with(sk, :prefix)"
            values[":prefix"] = {"S": MEMBER}
        else:
            condition = "pk = :pk AND sk BETWEEN :low AND :high"
            values[":low"], values[":high"] = {"S": MEMBER}, {"S": member_sk(through)}
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": condition,
            "FilterExpression": "subscribed = :yes",
            "ExpressionAttributeValues": values,
        }
        if after is not None:
            request["ExclusiveStartKey"] = key(members_pk(list_id), member_sk(after))
        members: list[ListMember] = []
        while True:
            response = self._db.query(**request)
            members.extend(_member(attrs) for attrs in response["Items"])
            if "LastEvaluatedKey" not in response:
                return members
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def update_member(self, member: ListMember, revision: int, audit: AuditEntry) -> bool:
        """Writes the member over the stored one if it is still at `revision`; False when it is not."""
        put = {
            "Put": {
                "TableName": self._table,
                "Item": member_item(member, revision + 1),
                "ConditionExpression": "revision = :revision",
                "ExpressionAttributeValues": {":revision": {"N": str(revision)}},
            }
        }
        return not self._run([put, audit_put(self._table, audit)])

    def unsubscribe_member(self, account_id: str, list_id: str, address: str, audit: AuditEntry) -> bool:
        """A list message's one-click unsubscribe: the member's `subscribed` goes false (a new revision)
        with its audit entry, only while it is a subscribed member; False otherwise (a repeat)."""
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(members_pk(list_id), member_sk(address)),
                "UpdateExpression": "SET subscribed = :no, revision = revision + :one",
                "ConditionExpression": "subscribed = :yes",
                "ExpressionAttributeValues": {":no": {"BOOL": False}, ":yes": {"BOOL": True}, ":one": {"N": "1"}},
            }
        }
        return not self._run([update, audit_put(self._table, audit)])

    def delete_member(self, account_id: str, list_id: str, address: str, audit: AuditEntry) -> bool:
        """False when there is no such member (or list)."""
        ops = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(members_pk(list_id), member_sk(address)),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            _count(account_id, list_id, self._table, -1),
            audit_put(self._table, audit),
        ]
        return not self._run(ops)

    def members_at(self, list_id: str, addresses: list[str]) -> dict[str, tuple[ListMember, int]]:
        keys = [key(members_pk(list_id), member_sk(address)) for address in addresses]
        found = {}
        for attrs in batch_get(self._db, self._table, keys):
            member = _member(attrs)
            found[member.address] = (member, int(attrs["revision"]["N"]))
        return found

    def upsert_members(
        self, account_id: str, list_id: str, created: list[ListMember], changed: list[tuple[ListMember, int]]
    ) -> list[str]:
        """One transaction: the new members (absent as read), the changed ones (at the revision read)
        and the list's member_count. The cancellation codes ([] when written): the caller re-reads and
        retries when a member changed concurrently."""
        ops: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": member_item(member, 1),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            for member in created
        ]
        ops += [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": member_item(member, revision + 1),
                    "ConditionExpression": "revision = :revision",
                    "ExpressionAttributeValues": {":revision": {"N": str(revision)}},
                }
            }
            for member, revision in changed
        ]
        ops.append(_count(account_id, list_id, self._table, len(created)))
        return self._run(ops)

    # -- helpers ----------------------------------------------------------------------------------------

    def _run(self, ops: list[dict[str, Any]]) -> list[str]:
        """TransactWriteItems, retried while it only met concurrent transactions; the cancellation
        codes of a transaction a condition refused, [] when written."""
        for attempt in range(_ATTEMPTS):
            try:
                self._db.transact_write_items(TransactItems=ops)
            except ClientError as error:
                codes = cancellation_codes(error)
                if not codes:
                    raise
                if "ConditionalCheckFailed" in codes or attempt == _ATTEMPTS - 1:
                    if "ConditionalCheckFailed" not in codes:
                        raise
                    return codes
                time.sleep(random.uniform(0, 0.02 * 2**attempt))
                continue
            return []
        raise AssertionError("unreachable")
