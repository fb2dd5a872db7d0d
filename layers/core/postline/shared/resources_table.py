"""The resources table's shared layout: one partition per account, a sort key per type and id.

    ACCT#<account>   ACCOUNT               the account, with key_count, webhook_count, domain_count and
                                           subaccount_count for plan limits (accounts/store.py)
    ACCT#<account>   KEY#<key id>          an API key, keyed hash only (keys/store.py)
    ACCT#<account>   AUDIT#<time>#<id>     an audit entry, newest last in sort order (audit/store.py)
    ACCT#<account>   TPL#<template id>     a template; ids sort by creation time (templates/store.py)
    ACCT#<account>   DOMAIN#<name>         a sending domain (domains/store.py)
    ACCT#<account>   WEBHOOK#<id>          a webhook endpoint, auth encrypted (webhooks/store.py)
    ACCT#<account>   SUBACCT#<slug>        slug -> subaccount id: the organisation's subaccounts, whose own
                                           ACCOUNT items carry parent_account_id (subaccounts/store.py)
    KEYHASH#<hash>   KEYHASH               secret hash -> (account, key): the auth lookup (keys/store.py)
    PLATFORM         SETTINGS              platform-wide switches, e.g. sending paused (accounts/store.py)
    PLATFORM         SIGNKEY[#<kid>]       webhook signing keys and their pointer (signing_keys/store.py)
    PLATFORM         TLSRPT_DKIM#<domain>[#<selector>]  the TLS-RPT reports' DKIM keys (tlsrpt/keys.py); both
                                           kinds are sealed platform keys (shared/sealed_keys.py)

Every write that changes a resource carries its audit entry in the same transaction
(audit/store.py `audit_put`), so each area's store builds transaction items with `put_op`
and runs them with `transact`.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import cancellation_codes, key, to_attrs
from postline.shared.errors import ApiError, Conflict, Forbidden, NotFound

ACCOUNT_SK = "ACCOUNT"
PLATFORM = ("PLATFORM", "SETTINGS")


def account_pk(account_id: str) -> str:
    return f"ACCT#{account_id}"


def put_op(
    table: str,
    pk: str,
    sk: str,
    data: dict[str, Any],
    condition: str | None = None,
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A TransactWriteItems Put of `data` at (pk, sk), under an optional condition."""
    put: dict[str, Any] = {"TableName": table, "Item": {**key(pk, sk), **to_attrs(data)}}
    if condition:
        put["ConditionExpression"] = condition
    if values:
        put["ExpressionAttributeValues"] = values
    return {"Put": put}


def transact(
    db: Any, ops: list[dict[str, Any]], *, missing: str = "", conflict: str = "", duplicate: ApiError | None = None
) -> None:
    """TransactWriteItems whose first item's failed condition means `duplicate` when given (a create
    whose id is taken: permanent, no retry gets past it), else `missing` (NotFound) when that item
    is not there (with `missing` given), else Conflict: it is there but changed meanwhile, which a
    retry of the same request (reading it again) gets past, so a 409 and not a 404."""
    try:
        db.transact_write_items(TransactItems=ops)
    except ClientError as exc:
        codes = cancellation_codes(exc)
        if codes and codes[0] == "ConditionalCheckFailed":
            if duplicate is not None:
                raise duplicate from exc
            if missing and not _exists(db, ops[0]):
                raise NotFound(missing) from exc
            raise Conflict(conflict or "the resource changed concurrently; retry") from exc
        raise


def _exists(db: Any, op: dict[str, Any]) -> bool:
    """Whether the item a transaction item writes or checks is stored (a consistent read)."""
    (action,) = op.values()
    item_key = action.get("Key") or {name: action["Item"][name] for name in ("pk", "sk")}
    return "Item" in db.get_item(TableName=action["TableName"], Key=item_key, ConsistentRead=True,
                                 ProjectionExpression="pk")  # fmt: skip


def count_under_limit(table: str, pk: str, counter: str, limit: int) -> dict[str, Any]:
    """The transaction item that counts one more resource on the account's item (`counter`, e.g.
    key_count), failing once the plan's `limit` is reached: the first item of `create_counted`."""
    return {
        "Update": {
            "TableName": table,
            "Key": key(pk, ACCOUNT_SK),
            "UpdateExpression": f"ADD {counter} :one",
            "ConditionExpression": f"attribute_exists(pk) AND (attribute_not_exists({counter}) OR {counter} < :max)",
            "ExpressionAttributeValues": {":one": {"N": "1"}, ":max": {"N": str(limit)}},
        }
    }


def create_counted(db: Any, ops: list[dict[str, Any]], *, limit: str, duplicate: ApiError | None = None) -> None:
    """Runs a create whose first item is `count_under_limit` and second the new resource's
    conditional put: the first failing is 403 plan_limit_reached (`limit` says which), the second
    `duplicate`."""
    try:
        db.transact_write_items(TransactItems=ops)
    except ClientError as exc:
        codes = cancellation_codes(exc)
        if codes[:1] == ["ConditionalCheckFailed"]:
            raise Forbidden(f"{limit}; delete one or upgrade.", code="plan_limit_reached") from exc
        if duplicate is not None and codes[1:2] == ["ConditionalCheckFailed"]:
            raise duplicate from exc
        raise
