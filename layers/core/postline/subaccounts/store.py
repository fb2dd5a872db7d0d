"""Subaccounts in the resources table (see shared/resources_table.py):

    ACCT#<subaccount>  ACCOUNT             the subaccount: an account item like any other, with
                                           parent_account_id, slug and suspended_by_parent
    ACCT#<parent>      SUBACCT#<slug>      slug -> subaccount id: the parent's list (by slug), and the
                                           slug's uniqueness in the organisation
    ACCT#<parent>      ACCOUNT             the parent's `subaccount_count`: the plan limit, counted in
                                           the transaction that creates or deletes a subaccount
    PURGE              SUBACCT#<id>        a deleted subaccount's purge job, stored by the deletion's
                                           transaction, removed by its last step (purge_service.py)

The subaccount's account item is the one authority on it (name, status); the parent's item only
finds it. Every write is one transaction with its audit entries (the parent's log and the
subaccount's), conditional on the subaccount still belonging to the parent and not being deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from postline.accounts.domain import Account, AccountStatus
from postline.accounts.store import parse_account
from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.shared.dynamo import batch_get, from_attrs, key, query_page, to_attrs, to_value
from postline.shared.errors import ValidationFailed
from postline.shared.resources_table import (
    ACCOUNT_SK,
    account_pk,
    count_under_limit,
    create_counted,
    put_op,
    transact,
)
from postline.subaccounts.domain import PurgeJob, belongs_to, is_slug, is_subaccount_id

SUBACCOUNT = "SUBACCT#"
PURGES = "PURGE"  # the partition of purge jobs: few at a time (an organisation deletes rarely)
COUNTER = "subaccount_count"
_BELONGS = "parent_account_id = :parent AND #status <> :trashed"


def subaccount_sk(slug: str) -> str:
    return f"{SUBACCOUNT}{slug}"


class DynamoSubaccountStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def find_subaccount(self, parent_id: str, reference: str) -> Account | None:
        subaccount_id = reference if is_subaccount_id(reference) else self._by_slug(parent_id, reference)
        if subaccount_id is None:
            return None
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(subaccount_id), ACCOUNT_SK), ConsistentRead=True
        )
        account = parse_account(response.get("Item"))
        return account if account is not None and belongs_to(account, parent_id) else None

    def _by_slug(self, parent_id: str, slug: str) -> str | None:
        if not is_slug(slug):
            return None
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(parent_id), subaccount_sk(slug)), ConsistentRead=True
        )
        return str(from_attrs(response["Item"])["subaccount_id"]) if "Item" in response else None

    def list_subaccounts(self, parent_id: str, *, page: int, per_page: int) -> tuple[list[Account], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(parent_id)}, ":prefix": {"S": SUBACCOUNT}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        ids = [from_attrs(item)["subaccount_id"] for item in found]
        items = batch_get(self._db, self._table, [key(account_pk(i), ACCOUNT_SK) for i in ids]) if ids else []
        by_id = {account.id: account for account in (parse_account(item) for item in items) if account}
        # In the page's order (by slug). One the operator trashed itself keeps its place in the count.
        return [by_id[i] for i in ids if i in by_id and belongs_to(by_id[i], parent_id)], total

    def create_subaccount(self, account: Account, *, max_subaccounts: int, audits: Sequence[AuditEntry]) -> None:
        parent_pk = account_pk(_parent(account))
        slug = account.slug or ""
        data = {**account.model_dump(mode="json"), "key_count": 0, "list_count": 0}  # counted from the start
        ops = [
            count_under_limit(self._table, parent_pk, COUNTER, max_subaccounts),
            put_op(
                self._table, parent_pk, subaccount_sk(slug), {"subaccount_id": account.id}, "attribute_not_exists(pk)"
            ),
            # fails only if the fresh id is taken: internal (500), so the ClientError goes up as it is
            put_op(self._table, account_pk(account.id), ACCOUNT_SK, data, "attribute_not_exists(pk)"),
            *(audit_put(self._table, audit) for audit in audits),
        ]
        taken = ValidationFailed(f"slug: {slug!r} is taken by another subaccount of this organisation.")
        limit = f"Your plan allows at most {max_subaccounts} subaccounts"
        create_counted(self._db, ops, limit=limit, duplicate=taken)

    def update_subaccount(self, account: Account, fields: Sequence[str], audits: Sequence[AuditEntry]) -> None:
        stored = account.model_dump(mode="json", include=set(fields))
        names = {"#status": "status", **{f"#{name}": name for name in stored}}
        values = {f":{name}": to_value(value) for name, value in stored.items()}
        update = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account.id), ACCOUNT_SK),
                "UpdateExpression": "SET " + ", ".join(f"#{name} = :{name}" for name in stored),
                "ConditionExpression": _BELONGS,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": {**values, **self._belongs_values(account)},
            }
        }
        ops = [update, *(audit_put(self._table, audit) for audit in audits)]
        transact(self._db, ops, missing=f"subaccount {account.id} not found",
                 conflict=f"subaccount {account.id} changed concurrently; retry")  # fmt: skip

    def delete_subaccount(self, account: Account, audits: Sequence[AuditEntry], purge: PurgeJob) -> None:
        parent_pk = account_pk(_parent(account))
        trash = {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account.id), ACCOUNT_SK),
                "UpdateExpression": "SET #status = :trashed",
                "ConditionExpression": _BELONGS,
                "ExpressionAttributeNames": {"#status": "status"},
                "ExpressionAttributeValues": self._belongs_values(account),
            }
        }
        ops = [
            trash,
            {"Delete": {"TableName": self._table, "Key": key(parent_pk, subaccount_sk(account.slug or ""))}},
            {
                "Update": {
                    "TableName": self._table,
                    "Key": key(parent_pk, ACCOUNT_SK),
                    "UpdateExpression": f"ADD {COUNTER} :minus",
                    "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                }
            },
            *(audit_put(self._table, audit) for audit in audits),
            put_op(self._table, PURGES, subaccount_sk(account.id), purge.model_dump(mode="json")),
        ]
        transact(self._db, ops, missing=f"subaccount {account.id} not found",
                 conflict=f"subaccount {account.id} changed concurrently; retry")  # fmt: skip

    # -- purges of deleted subaccounts (purge_service.py) ----------------------------------------------

    def due_purges(self, limit: int) -> list[PurgeJob]:
        response = self._db.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": PURGES}},
            Limit=limit,
            ConsistentRead=True,
        )
        return [PurgeJob.model_validate(from_attrs(item)) for item in response["Items"]]

    def save_purge(self, job: PurgeJob) -> None:
        self._db.put_item(
            TableName=self._table,
            Item={**key(PURGES, subaccount_sk(job.account_id)), **to_attrs(job.model_dump(mode="json"))},
        )

    def finish_purge(self, job: PurgeJob, audit: AuditEntry) -> None:
        done = {"Delete": {"TableName": self._table, "Key": key(PURGES, subaccount_sk(job.account_id))}}
        transact(self._db, [done, audit_put(self._table, audit)])

    @staticmethod
    def _belongs_values(account: Account) -> dict[str, Any]:
        return {":parent": {"S": _parent(account)}, ":trashed": {"S": AccountStatus.TRASHED.value}}


def _parent(account: Account) -> str:
    if account.parent_account_id is None:
        raise ValueError(f"account {account.id} is not a subaccount")
    return account.parent_account_id
