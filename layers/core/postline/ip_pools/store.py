"""IP pools in the resources table (see shared/resources_table.py):

    ACCT#<account>   IPPOOL#<pool id>   an account's pool (dedicated or warming), with its addresses
    PLATFORM         IPPOOL#<pool id>   a platform pool (account_id null): the shared pool
    IP#<address>     IP                 who holds an address: account_id (absent: the platform), pool_id
    ACCT#<account>   ACCOUNT            ip_pool_count (the plan limit, counted in the transaction that
                                        creates or deletes a pool) and default_ip_pool_id

A pool item carries `version`; every write of it is conditional on the version read, so two moves
of addresses between the same pools cannot both win. Each write is one transaction with its audit
entry.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.ip_pools.domain import Pool
from postline.shared.dynamo import from_attrs, key
from postline.shared.errors import ValidationFailed
from postline.shared.resources_table import (
    ACCOUNT_SK,
    PLATFORM,
    account_pk,
    count_under_limit,
    create_counted,
    put_op,
    transact,
)

POOL = "IPPOOL#"
COUNTER = "ip_pool_count"
DEFAULT = "default_ip_pool_id"


def pool_key(account_id: str | None, pool_id: str) -> tuple[str, str]:
    return (PLATFORM[0] if account_id is None else account_pk(account_id)), f"{POOL}{pool_id}"


def ip_key(ip: str) -> tuple[str, str]:
    return f"IP#{ip}", "IP"


class DynamoIpPoolStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def list_pools(self, account_id: str | None) -> list[Pool]:
        pk = pool_key(account_id, "")[0]
        paginator = self._db.get_paginator("query")
        pools = [
            _pool(item)
            for page in paginator.paginate(
                TableName=self._table,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
                ExpressionAttributeValues={":pk": {"S": pk}, ":prefix": {"S": POOL}},
                ConsistentRead=True,
            )
            for item in page["Items"]
        ]
        return sorted(pools, key=lambda pool: (pool.created_at, pool.id))

    def get_pool(self, account_id: str | None, pool_id: str) -> Pool | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(*pool_key(account_id, pool_id)), ConsistentRead=True
        )
        return _pool(response["Item"]) if "Item" in response else None

    def create_pool(self, pool: Pool, *, max_pools: int | None, make_default: bool, audit: AuditEntry) -> None:
        put = put_op(self._table, *pool_key(pool.account_id, pool.id), _data(pool), "attribute_not_exists(pk)")
        if pool.account_id is None or max_pools is None:
            self._db.transact_write_items(TransactItems=[put, audit_put(self._table, audit)])
            return
        count = count_under_limit(self._table, account_pk(pool.account_id), COUNTER, max_pools)
        if make_default:  # the same account item: one transaction item may not touch it twice
            count["Update"]["UpdateExpression"] += f" SET {DEFAULT} = :pool"
            count["Update"]["ExpressionAttributeValues"][":pool"] = {"S": pool.id}
        ops = [count, put, audit_put(self._table, audit)]
        create_counted(self._db, ops, limit=f"Your plan allows at most {max_pools} dedicated IP pools")

    def save_pool(self, pool: Pool, *, default: bool | None, audit: AuditEntry) -> None:
        ops = [self._versioned_put(pool)]
        if default is True and pool.account_id is not None:
            ops.append(self._set_default(pool.account_id, pool.id))
        elif default is False and pool.account_id is not None:
            ops.append(self._unset_default(pool.account_id, pool.id))
        ops.append(audit_put(self._table, audit))
        transact(self._db, ops, missing=f"IP pool {pool.id} not found",
                 conflict=f"IP pool {pool.id} changed concurrently; retry")  # fmt: skip

    def delete_pool(self, pool: Pool, *, was_default: bool, audit: AuditEntry) -> None:
        ops: list[dict[str, Any]] = [
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": key(*pool_key(pool.account_id, pool.id)),
                    "ConditionExpression": "version = :version",
                    "ExpressionAttributeValues": {":version": {"N": str(pool.version)}},
                }
            }
        ]
        if pool.account_id is not None:
            uncount = f"ADD {COUNTER} :minus" + (f" REMOVE {DEFAULT}" if was_default else "")
            ops.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(account_pk(pool.account_id), ACCOUNT_SK),
                        "UpdateExpression": uncount,
                        "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                    }
                }
            )
        ops.append(audit_put(self._table, audit))
        transact(self._db, ops, missing=f"IP pool {pool.id} not found",
                 conflict=f"IP pool {pool.id} changed concurrently; retry")  # fmt: skip

    def ip_holder(self, ip: str) -> tuple[str | None, str] | None:
        response = self._db.get_item(TableName=self._table, Key=key(*ip_key(ip)), ConsistentRead=True)
        if "Item" not in response:
            return None
        item = from_attrs(response["Item"])
        return item.get("account_id"), str(item["pool_id"])

    def move_ip(self, ip: str, source: Pool, target: Pool, audit: AuditEntry) -> None:
        holder = {
            "Update": {
                "TableName": self._table,
                "Key": key(*ip_key(ip)),
                "UpdateExpression": "SET pool_id = :target",
                "ConditionExpression": "pool_id = :source",
                "ExpressionAttributeValues": {":target": {"S": target.id}, ":source": {"S": source.id}},
            }
        }
        ops = [self._versioned_put(source), self._versioned_put(target), holder, audit_put(self._table, audit)]
        transact(self._db, ops, missing=f"IP pool {source.id} not found",
                 conflict=f"IP {ip} or its pools changed concurrently; retry")  # fmt: skip

    def allocate_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        holder = put_op(
            self._table, *ip_key(ip), {"ip": ip, "account_id": pool.account_id, "pool_id": pool.id},
            "attribute_not_exists(pk)",
        )  # fmt: skip
        ops = [holder, self._versioned_put(pool), audit_put(self._table, audit)]
        transact(self._db, ops, duplicate=ValidationFailed(f"ip: {ip} is allocated already; release it first"))

    def release_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        holder = {
            "Delete": {
                "TableName": self._table,
                "Key": key(*ip_key(ip)),
                "ConditionExpression": "pool_id = :pool",
                "ExpressionAttributeValues": {":pool": {"S": pool.id}},
            }
        }
        transact(self._db, [holder, self._versioned_put(pool), audit_put(self._table, audit)],
                 missing=f"IP {ip} is not allocated", conflict=f"IP {ip} moved concurrently; retry")  # fmt: skip

    def _versioned_put(self, pool: Pool) -> dict[str, Any]:
        """The pool written at pool.version, over the stored version one below it."""
        return put_op(
            self._table, *pool_key(pool.account_id, pool.id), _data(pool), "version = :version",
            {":version": {"N": str(pool.version - 1)}},
        )  # fmt: skip

    def _set_default(self, account_id: str, pool_id: str) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account_id), ACCOUNT_SK),
                "UpdateExpression": f"SET {DEFAULT} = :pool",
                "ConditionExpression": "attribute_exists(pk)",
                "ExpressionAttributeValues": {":pool": {"S": pool_id}},
            }
        }

    def _unset_default(self, account_id: str, pool_id: str) -> dict[str, Any]:
        """REMOVE, on the condition that it is this pool (the service read it so): a Conflict otherwise."""
        return {
            "Update": {
                "TableName": self._table,
                "Key": key(account_pk(account_id), ACCOUNT_SK),
                "UpdateExpression": f"REMOVE {DEFAULT}",
                "ConditionExpression": f"{DEFAULT} = :pool",
                "ExpressionAttributeValues": {":pool": {"S": pool_id}},
            }
        }


def _data(pool: Pool) -> dict[str, Any]:
    return pool.model_dump(mode="json")


def _pool(attrs: dict[str, Any]) -> Pool:
    data = from_attrs(attrs)
    return Pool.model_validate({name: value for name, value in data.items() if name not in ("pk", "sk")})


class DynamoWarmupCounts:
    """WARMUP#<pool id> / <day>: a warming pool's copies that day (one atomic ADD per copy)."""

    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def take(self, pool_id: str, day: date) -> int:
        response = self._db.update_item(
            TableName=self._table,
            Key=key(f"WARMUP#{pool_id}", day.isoformat()),
            UpdateExpression="ADD sent :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["sent"]["N"])
