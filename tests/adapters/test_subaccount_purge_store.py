"""A deleted subaccount's data removed a bounded step at a time on moto (subaccounts/purge_store.py):
its lists' member partitions and then the lists' items, its suppressions (through the suppressions
store's own layout), its hosted files in the bucket, then the rest of its partition but its account
item; another account's data untouched."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from postline.lists.store import list_sk, member_sk, members_pk
from postline.shared.dynamo import key
from postline.shared.resources_table import ACCOUNT_SK, account_pk
from postline.suppressions.domain import SuppressionType, new_suppression
from postline.uploads.domain import object_key
from postline.wiring import subaccount_purge
from postline.wiring import suppressions as suppressions_root
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _put(stack: InProcessStack, pk: str, sk: str) -> None:
    stack.client("dynamodb").put_item(TableName=stack.env["RESOURCES_TABLE"], Item=key(pk, sk))


def _partition(stack: InProcessStack, pk: str, table: str = "RESOURCES_TABLE") -> list[str]:
    items: list[dict[str, Any]] = stack.client("dynamodb").query(
        TableName=stack.env[table], KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": pk}}
    )["Items"]
    return [item["sk"]["S"] for item in items]


def _hold(stack: InProcessStack, account_id: str) -> str:
    """An account's data of every kind; returns its list's id."""
    list_id = str(uuid.uuid4())
    pk = account_pk(account_id)
    for sk in (ACCOUNT_SK, list_sk(list_id), f"LISTADDR#news@{account_id}.test", "TPL#tpl_1", "WEBHOOK#w1", "AUDIT#x"):
        _put(stack, pk, sk)
    for n in range(7):
        _put(stack, members_pk(list_id), member_sk(f"m{n}@example.com"))
    suppressions_root.suppressions().put_many(
        [new_suppression(account_id, SuppressionType.BOUNCES, f"b{n}@example.com", NOW) for n in range(3)]
    )
    s3 = stack.client("s3")
    for n in range(3):
        s3.put_object(Bucket=stack.env["EXPORTS_BUCKET"], Key=object_key(account_id, f"up_{n}"), Body=b"x")
    return list_id


def _drain(remove: Any, account_id: str, limit: int) -> list[int]:
    counts = []
    while True:
        counts.append(remove(account_id, limit))
        if counts[-1] == 0:
            return counts


def test_each_kind_goes_a_bounded_step_at_a_time_and_nothing_of_anyone_else(stack: InProcessStack) -> None:
    deleted, other = f"sub-{uuid.uuid4()}", f"acct_{uuid.uuid4().hex}"
    list_id = _hold(stack, deleted)
    other_list = _hold(stack, other)
    data = subaccount_purge.account_data()

    counts = (data.count_list_members, data.count_suppressions, data.count_upload_files, data.count_items)
    # What each drain below removes, counted first (the items once the lists' items are gone, as a purge does)
    assert [count(deleted) for count in counts] == [8, 3, 3, 5]
    assert _drain(data.delete_list_members, deleted, 3) == [3, 3, 1, 1, 0]  # 7 members, then the list's item
    assert _partition(stack, members_pk(list_id)) == [] and list_sk(list_id) not in _partition(
        stack, account_pk(deleted)
    )
    assert _drain(data.delete_suppressions, deleted, 2) == [2, 1, 0]
    assert _drain(data.delete_upload_files, deleted, 2) == [2, 1, 0]
    assert data.count_items(deleted) == 4
    assert _drain(data.delete_items, deleted, 2) == [2, 2, 0]  # LISTADDR, TPL, WEBHOOK, AUDIT
    assert _partition(stack, account_pk(deleted)) == [ACCOUNT_SK]  # the tombstone stays
    assert [count(deleted) for count in counts] == [0, 0, 0, 0]

    assert len(_partition(stack, account_pk(other))) == 6 and len(_partition(stack, members_pk(other_list))) == 7
    assert len(_partition(stack, f"SUP#{other}", "SUPPRESSIONS_TABLE")) == 3
    listed = stack.client("s3").list_objects_v2(Bucket=stack.env["EXPORTS_BUCKET"], Prefix=f"uploads/{other}/")
    assert listed["KeyCount"] == 3
