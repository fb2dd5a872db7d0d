"""What the retention pass reads and deletes, in the tables and buckets that hold history.

    counters  RETENTION#<account>  PASS   cleared_before: yyyy-mm-dd; every events partition of an
                                          earlier day is empty (the next pass starts there)
    counters  RETENTION            RUN#<yyyy-mm-dd>  the day's pass: where its walk of the accounts
                                          with history stands (`position`, JSON of the index
                                          Query's LastEvaluatedKey), `done`

Deletes are permanent (DeleteItem / DeleteObject: no soft delete) and idempotent, so a pass cut
short at any point and started again deletes what is left and counts nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from botocore.exceptions import ClientError

from postline.accounts.domain import Account
from postline.accounts.store import parse_account
from postline.events.count_store import DynamoEventCounts
from postline.events.domain import Event
from postline.events.sharding import shard_of
from postline.events.store import ShardDirectory, event_of, event_pk, sort_key, tag_pk
from postline.shared import pass_positions
from postline.shared.dynamo import batch_delete, batch_get, conditional_failed, from_attrs, key
from postline.shared.resources_table import ACCOUNT_SK, account_pk
from postline.webhook_delivery.history import sort_key as delivery_sort_key
from postline.webhook_delivery.store import BY_ENDPOINT_INDEX, endpoint_key
from postline.webhooks.store import PREFIX as WEBHOOK_PREFIX

_PAGE = 100  # events read (and deleted with what hangs off them) at a time
_SCAN_PAGE = 100  # accounts read at a time
_MESSAGE_SK = "MSG"
_BODY_SK = "BODY"  # the message's sealed content (sending/store.py)
_DELETE_PROJECTION = "pk, sk, created_at, sched_pk, sealed.s3"
_DELIVERY_SK = "D"


class DynamoRetentionStore:
    def __init__(
        self,
        client: Any,
        s3: Any,
        *,
        resources: str,
        counters: str,
        events: str,
        messages: str,
        deliveries: str,
        content_bucket: str,
    ) -> None:
        self._db = client
        self._s3 = s3
        self._resources = resources
        self._counters = counters
        self._events = events
        self._messages = messages
        self._deliveries = deliveries
        self._bucket = content_bucket
        self._registry = DynamoEventCounts(client, counters)
        self._shards = ShardDirectory(client, events)

    # -- the day's pass over accounts -----------------------------------------------------------

    def run_position(self, day: date) -> tuple[dict[str, Any] | None, bool]:
        """(where the day's accounts scan stands, whether the pass is done)."""
        return pass_positions.read(self._db, self._counters, "RETENTION", day)

    def save_run_position(self, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime) -> None:
        pass_positions.save(self._db, self._counters, "RETENTION", day, position, done=done, now=now)

    def accounts(self, position: dict[str, Any] | None) -> tuple[list[Account], dict[str, Any] | None]:
        """One page of the accounts with history (the sparse index with_history, not a Scan of the
        resources table), their items read in one BatchGetItem, and the next position. A position
        saved by an older pass (a resources-table Scan's key) starts the walk over: harmless, every
        account's progress is its own."""
        if position is not None and "history" not in position:
            position = None
        ids, following = self._registry.accounts_with_history(position, _SCAN_PAGE)
        found = batch_get(self._db, self._resources, [key(account_pk(account_id), ACCOUNT_SK) for account_id in ids])
        by_id = {account.id: account for attrs in found if (account := parse_account(attrs)) is not None}
        return [by_id[account_id] for account_id in ids if account_id in by_id], following

    def register_existing_accounts(self) -> int:
        return register_existing_accounts(self._db, self._resources, self._registry)

    # -- one account's progress ------------------------------------------------------------------

    def cleared_before(self, account_id: str) -> date | None:
        item = self._db.get_item(
            TableName=self._counters, Key=key(f"RETENTION#{account_id}", "PASS"), ConsistentRead=True
        )
        found = from_attrs(item.get("Item", {})).get("cleared_before")
        return date.fromisoformat(found) if found else None

    def save_cut(self, account_id: str, cut: datetime) -> None:
        self._registry.save_cut(account_id, cut)

    def save_cleared_before(self, account_id: str, day: date) -> None:
        """Only ever forward: a stale pass cannot move it back."""
        try:
            self._db.update_item(
                TableName=self._counters,
                Key=key(f"RETENTION#{account_id}", "PASS"),
                UpdateExpression="SET cleared_before = :day",
                ConditionExpression="attribute_not_exists(cleared_before) OR cleared_before < :day",
                ExpressionAttributeValues={":day": {"S": day.isoformat()}},
            )
        except ClientError as exc:
            if not conditional_failed(exc):
                raise

    # -- what lies before the cut ----------------------------------------------------------------

    def expired_events(self, account_id: str, day: date, cut: datetime) -> Iterator[list[Event]]:
        """Pages of the day's events strictly before `cut`, oldest first, shard after shard (the
        day's shards: events/sharding.py). Each page is read after the previous one was deleted,
        so a page is always the oldest that is left of its shard."""
        for shard in range(self._shards.schedule(account_id).shards_on(day)):
            request: dict[str, Any] = {
                "TableName": self._events,
                "KeyConditionExpression": "pk = :pk AND sk < :cut",
                "ExpressionAttributeValues": {
                    ":pk": {"S": event_pk(account_id, day.isoformat(), shard)},
                    ":cut": {"S": sort_key(cut, "")},
                },
                "ConsistentRead": True,
                "Limit": _PAGE,
            }
            while True:
                page = self._db.query(**request)
                if not page["Items"]:
                    break
                yield [event_of(attrs) for attrs in page["Items"]]
                if "LastEvaluatedKey" not in page:
                    break

    def delete_messages(self, message_ids: list[str], cut: datetime) -> tuple[int, int]:
        """Deletes the messages created before `cut` (their body items, and their bodies stored in
        S3) among `message_ids`; a message still waiting for its send_at stays. Returns (messages,
        bodies in S3). A message stored before bodies had an item of their own holds `sealed` itself."""
        ids = list(dict.fromkeys(message_ids))
        keys = [key(f"MSG#{i}", sk) for i in ids for sk in (_MESSAGE_SK, _BODY_SK)]
        found = [from_attrs(attrs) for attrs in batch_get(self._db, self._messages, keys, _DELETE_PROJECTION)]
        messages = {item["pk"]: item for item in found if item["sk"] == _MESSAGE_SK}
        bodies = {item["pk"]: item for item in found if item["sk"] == _BODY_SK}
        doomed = [
            pk
            for pk, item in messages.items()
            if not item.get("sched_pk") and datetime.fromisoformat(item["created_at"]) < cut
        ]
        in_s3 = 0
        for pk in doomed:  # the body first: a pass cut short here finds the message again
            for item in (messages[pk], bodies.get(pk, {})):
                stored = (item.get("sealed") or {}).get("s3")
                if stored:
                    self._s3.delete_object(Bucket=self._bucket, Key=stored)
                    in_s3 += 1
        batch_delete(self._db, [(self._messages, key(pk, _BODY_SK)) for pk in doomed if pk in bodies])
        batch_delete(self._db, [(self._messages, key(pk, _MESSAGE_SK)) for pk in doomed])
        return len(doomed), in_s3

    def delete_events(self, events: list[Event]) -> int:
        """The events and their tag items, permanently: the tag items first, the event items after
        (a BatchWriteItem has no order inside it), so a pass cut short finds the event again."""
        tags: list[tuple[str, dict[str, Any]]] = []
        items: list[tuple[str, dict[str, Any]]] = []
        for event in events:
            day = f"{event.timestamp:%Y-%m-%d}"
            sk = sort_key(event.timestamp, event.id)
            # the shard its writer chose: the schedule never changes for a past instant
            shard = shard_of(event.message_id, self._shards.count_at(event.account_id, event.timestamp))
            tags += [
                (self._events, key(tag_pk(event.account_id, day, t, shard), sk)) for t in dict.fromkeys(event.tags)
            ]
            items.append((self._events, key(event_pk(event.account_id, day, shard), sk)))
        batch_delete(self._db, tags)
        batch_delete(self._db, items)
        return len(events)

    def endpoint_ids(self, account_id: str) -> list[str | None]:
        """The account's webhook endpoints, and None for per-message webhook URLs."""
        ids: list[str | None] = [None]
        request: dict[str, Any] = {
            "TableName": self._resources,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": WEBHOOK_PREFIX}},
            "ProjectionExpression": "sk",
        }
        while True:
            page = self._db.query(**request)
            ids += [attrs["sk"]["S"].removeprefix(WEBHOOK_PREFIX) for attrs in page["Items"]]
            if "LastEvaluatedKey" not in page:
                return ids
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def delete_deliveries(self, account_id: str, endpoint_id: str | None, month: str, cut: datetime) -> int:
        """Deletes one page of the endpoint's deliveries of `month` created before `cut`; 0: none left."""
        page = self._db.query(
            TableName=self._deliveries,
            IndexName=BY_ENDPOINT_INDEX,
            KeyConditionExpression="endpoint_key = :k AND created_sk < :cut",
            ExpressionAttributeValues={
                ":k": {"S": endpoint_key(account_id, endpoint_id, month)},
                ":cut": {"S": delivery_sort_key(cut, "")},
            },
            ProjectionExpression="pk, sk",
            Limit=_PAGE,
        )
        batch_delete(self._db, [(self._deliveries, key(a["pk"]["S"], a["sk"]["S"])) for a in page["Items"]])
        return len(page["Items"])


def register_existing_accounts(client: Any, resources: str, registry: DynamoEventCounts) -> int:
    """Registers every account of the resources table as having history: the one-off Scan that
    brings stacks deployed before the registry up to date (safe to rerun). Returns how many."""
    registered = 0
    pages = client.get_paginator("scan").paginate(
        TableName=resources,
        FilterExpression="sk = :account",
        ExpressionAttributeValues={":account": {"S": ACCOUNT_SK}},
        ProjectionExpression="pk",
    )
    for page in pages:
        for attrs in page["Items"]:
            registry.register(attrs["pk"]["S"].removeprefix(account_pk("")))
            registered += 1
    return registered
