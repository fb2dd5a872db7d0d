"""A deleted subaccount's data, removed a bounded step at a time (AccountData, purge_service.py):

    LIST#<list id>   MEMBER#...        its lists' members (resources table, a partition per list, named
                                       by its LIST#<id> and LISTDEL#<id> items): a list's partition is
                                       emptied, then its item goes, so the next call moves on
    SUP#<account>    ...               its suppression entries (suppressions table)
    uploads/<account>/...              its hosted files (the exports bucket)
    ACCT#<account>   everything else   templates, lists and their addresses, webhooks, uploads' items,
                                       its audit log; not ACCOUNT, the trashed account item (tombstone)

Each call reads one page and deletes what it read (BatchWriteItem, DeleteObjects), so a repeated
call only finds what is left.
"""

from __future__ import annotations

from typing import Any

from postline.shared.dynamo import batch_delete, from_attrs
from postline.shared.resources_table import ACCOUNT_SK, account_pk

LIST = "LIST#"  # lists/store.py: a list's item in the account's partition, and its members' partition
DELETED_LIST = "LISTDEL#"  # a deleted list whose members the list worker had not removed yet


def suppressions_pk(account_id: str) -> str:
    return f"SUP#{account_id}"  # suppressions/store.py


def upload_prefix(account_id: str) -> str:
    return f"uploads/{account_id}/"  # uploads/domain.py object_key


class DynamoAccountData:
    def __init__(self, dynamodb: Any, s3: Any, *, resources: str, suppressions: str, bucket: str) -> None:
        self._db = dynamodb
        self._s3 = s3
        self._resources = resources
        self._suppressions = suppressions
        self._bucket = bucket

    def delete_list_members(self, account_id: str, limit: int) -> int:
        for prefix in (LIST, DELETED_LIST):
            listed = self._keys(self._resources, account_pk(account_id), 1, prefix=prefix)
            if not listed:
                continue
            list_id = str(from_attrs(listed[0])["sk"]).removeprefix(prefix)
            members = self._keys(self._resources, f"{LIST}{list_id}", limit)
            if members:
                batch_delete(self._db, [(self._resources, item) for item in members])
                return len(members)
            batch_delete(self._db, [(self._resources, listed[0])])  # emptied: the list's item goes too
            return 1
        return 0

    def delete_suppressions(self, account_id: str, limit: int) -> int:
        return self._delete_page(self._suppressions, suppressions_pk(account_id), limit)

    def delete_upload_files(self, account_id: str, limit: int) -> int:
        listed = self._s3.list_objects_v2(Bucket=self._bucket, Prefix=upload_prefix(account_id), MaxKeys=limit)
        objects = [{"Key": item["Key"]} for item in listed.get("Contents", [])]
        if objects:
            self._s3.delete_objects(Bucket=self._bucket, Delete={"Objects": objects, "Quiet": True})
        return len(objects)

    def delete_items(self, account_id: str, limit: int) -> int:
        pk = account_pk(account_id)
        found = [item for item in self._keys(self._resources, pk, limit + 1) if item["sk"]["S"] != ACCOUNT_SK]
        found = found[:limit]
        if found:
            batch_delete(self._db, [(self._resources, item) for item in found])
        return len(found)

    def count_list_members(self, account_id: str) -> int:
        list_ids = [
            str(from_attrs(item)["sk"]).removeprefix(prefix)
            for prefix in (LIST, DELETED_LIST)
            for item in self._all_keys(self._resources, account_pk(account_id), prefix=prefix)
        ]
        return sum(self._count(self._resources, f"{LIST}{list_id}") + 1 for list_id in list_ids)  # and its item

    def count_suppressions(self, account_id: str) -> int:
        return self._count(self._suppressions, suppressions_pk(account_id))

    def count_upload_files(self, account_id: str) -> int:
        pages = self._s3.get_paginator("list_objects_v2").paginate(
            Bucket=self._bucket, Prefix=upload_prefix(account_id)
        )
        return sum(page.get("KeyCount", 0) for page in pages)

    def count_items(self, account_id: str) -> int:
        return self._count(self._resources, account_pk(account_id), but=ACCOUNT_SK)

    def _count(self, table: str, pk: str, *, but: str | None = None) -> int:
        """How many items the partition holds (but the one whose sk is `but`)."""
        query: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "Select": "COUNT",
            "ConsistentRead": True,
        }
        if but is not None:
            query["FilterExpression"] = "sk <> :but"
            query["ExpressionAttributeValues"][":but"] = {"S": but}
        total = 0
        while True:
            response = self._db.query(**query)
            total += int(response["Count"])
            if "LastEvaluatedKey" not in response:
                return total
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _all_keys(self, table: str, pk: str, *, prefix: str) -> list[dict[str, Any]]:
        query: dict[str, Any] = {
            "TableName": table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": prefix}},
            "ProjectionExpression": "pk, sk",
            "ConsistentRead": True,
        }
        found: list[dict[str, Any]] = []
        while True:
            response = self._db.query(**query)
            found.extend(response["Items"])
            if "LastEvaluatedKey" not in response:
                return found
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _delete_page(self, table: str, pk: str, limit: int) -> int:
        found = self._keys(table, pk, limit)
        if found:
            batch_delete(self._db, [(table, item) for item in found])
        return len(found)

    def _keys(self, table: str, pk: str, limit: int, *, prefix: str | None = None) -> list[dict[str, Any]]:
        """The keys (pk, sk) of up to `limit` items of the partition (under `prefix`)."""
        condition = "pk = :pk" + (" AND begins_with(sk, :prefix)" if prefix else "")
        values = {":pk": {"S": pk}, **({":prefix": {"S": prefix}} if prefix else {})}
        response = self._db.query(
            TableName=table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ProjectionExpression="pk, sk",
            Limit=limit,
            ConsistentRead=True,
        )
        return list(response["Items"])
