"""The webhook deliveries table: one item per (event, target), its attempts inside it.

    WHD#<delivery id>   D     the delivery; expires_at is its TTL (the account's history retention)
    index by_endpoint:  endpoint_key = <account>#<endpoint id or "url">#<yyyy-mm>, created_sk
                        one endpoint's deliveries, newest first, a bounded partition per month

Recording an attempt is a put conditioned on the attempt count it read (the size of `attempts`),
so two workers that race on one delivery cannot both record attempt n.

Sparse in by_endpoint until its first attempt: the open write (`create`, before the first POST, so
a redelivered event never POSTs twice) holds the partition key's value as `open_key`, not as
`endpoint_key`, so the index is not written; the first recorded attempt (or a cancellation) writes
`endpoint_key` and the delivery joins the index then: one index write a delivery fewer. A
delivery is listed in its endpoint's history from its first attempt on (pending ones, whose first
attempt is under way, are not), and the retention sweep reaches it from then (before, its TTL
does). A data removal finds the pending ones by key: their ids follow from the erased events
(delivery_id), read from the base table (data_removals/holdings.py).

A data removal leaves a tombstone at each delivery key of an erased event (`tombstone_item`: the
key, `status` "erased", `expires_at`; no personal data, no `endpoint_key`, so never in by_endpoint),
so a late fan-out of the event's stream record (the events stream keeps records 24 hours) finds its
open write refused and POSTs nothing. Every read by key here takes a tombstone for no delivery:
`get` None, `get_many` leaves it out, and `save` is refused on it (it has no `attempts`). One more
tombstone, at the event's mark (domain.erasure_mark_id), written before the removal reads the
account's endpoints, answers `erased` for an endpoint created after that read (no tombstone of its
own): the fan-out asks it only for an endpoint newer than the event; a resend's copy, which the
removal cannot find by key, asks it around its attempt and `erase`s itself (a tombstone put).

An item holds nothing its keys hold (a write unit is 1 KB, the item written twice and its index
twice): the id is in pk, the account and endpoint in endpoint_key, created_at in created_sk, and
`manual` only when true. Items written before 2026-11-28 hold them too (and `attempt_count`), and
read the same.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import conditional_failed, from_attrs, key, to_attrs
from postline.webhook_delivery.domain import Delivery, DeliveryStatus, erasure_mark_id
from postline.webhook_delivery.history import HistoryRead, month_start_key, sort_key, split_sort_key

BY_ENDPOINT_INDEX = "by_endpoint"
_SK = "D"
_BATCH_GET_LIMIT = 100
_FILTERED_READ = 200  # items a filtered history Query reads at a time (DynamoDB filters after Limit)


def _pk(delivery_id: str) -> str:
    return f"WHD#{delivery_id}"


def item_key(delivery_id: str) -> dict[str, Any]:
    """The delivery's key in the table (a data removal reads and deletes pending ones by it)."""
    return key(_pk(delivery_id), _SK)


def endpoint_key(account_id: str, endpoint_id: str | None, month: str) -> str:
    return f"{account_id}#{endpoint_id or 'url'}#{month}"


_IN_KEYS = ("id", "account_id", "endpoint_id", "created_at")  # what the keys hold (module docstring)


OPEN_KEY = "open_key"  # endpoint_key's value on a delivery not yet in the index (the module docstring)

TOMBSTONE = "erased"  # a tombstone's status: never a DeliveryStatus, never shown (the module docstring)
# A tombstone outlives every stream record of its event: the events stream keeps a record 24 hours
# from its write, which came before the removal; the second day is margin (a batch being retried).
TOMBSTONE_KEPT = timedelta(hours=48)


def tombstone_item(delivery_id: str, now: datetime) -> dict[str, Any]:
    """What a data removal leaves at the key of an erased event's delivery, in place of whatever
    was there: ~60 bytes (one write unit), nothing about the event or its recipient, gone by TTL."""
    expires_at = int((now + TOMBSTONE_KEPT).timestamp())
    return {**item_key(delivery_id), "status": {"S": TOMBSTONE}, "expires_at": {"N": str(expires_at)}}


def _is_tombstone(attrs: dict[str, Any]) -> bool:
    return bool(attrs.get("status", {}).get("S") == TOMBSTONE)


def _item(delivery: Delivery, *, indexed: bool = True) -> dict[str, Any]:
    data = delivery.model_dump(mode="json", exclude={*_IN_KEYS, *(() if delivery.manual else ("manual",))})
    partition = endpoint_key(delivery.account_id, delivery.endpoint_id, f"{delivery.created_at:%Y-%m}")
    data["endpoint_key" if indexed else OPEN_KEY] = partition
    data["created_sk"] = sort_key(delivery.created_at, delivery.id)
    return {**key(_pk(delivery.id), _SK), **to_attrs(data)}


def _delivery(attrs: dict[str, Any]) -> Delivery:
    plain = from_attrs(attrs)
    account_id, target, _ = str(plain.get("endpoint_key") or plain[OPEN_KEY]).split("#")
    created_at, delivery_id = split_sort_key(str(plain["created_sk"]))
    plain.setdefault("id", delivery_id)
    plain.setdefault("account_id", account_id)
    plain.setdefault("created_at", created_at)
    if target != "url":
        plain.setdefault("endpoint_id", target)
    return Delivery.model_validate(plain)


class DynamoDeliveryStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def create(self, delivery: Delivery) -> bool:
        """False when it exists already (a redelivered event record). Not in by_endpoint yet: `save`
        puts it there (the module docstring)."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item=_item(delivery, indexed=False),
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as exc:
            if conditional_failed(exc):
                return False
            raise
        return True

    def get(self, delivery_id: str) -> Delivery | None:
        """The delivery; None when there is none, or only an erased event's tombstone."""
        response = self._db.get_item(TableName=self._table, Key=key(_pk(delivery_id), _SK), ConsistentRead=True)
        found = response.get("Item")
        return _delivery(found) if found is not None and not _is_tombstone(found) else None

    def get_many(self, delivery_ids: list[str]) -> dict[str, Delivery]:
        """The deliveries that exist among `delivery_ids`, by id (BatchGetItem, 100 a call); a
        tombstone is none."""
        found: dict[str, Delivery] = {}
        for start in range(0, len(delivery_ids), _BATCH_GET_LIMIT):
            chunk = list(dict.fromkeys(delivery_ids[start : start + _BATCH_GET_LIMIT]))
            pending: dict[str, Any] = {self._table: {"Keys": [key(_pk(d), _SK) for d in chunk], "ConsistentRead": True}}
            for attempt in range(8):
                response = self._db.batch_get_item(RequestItems=pending)
                for attrs in response["Responses"].get(self._table, []):
                    if _is_tombstone(attrs):
                        continue
                    delivery = _delivery(attrs)
                    found[delivery.id] = delivery
                pending = response.get("UnprocessedKeys") or {}
                if not pending:
                    break
                time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off as the SDK guide says
            if pending:
                raise RuntimeError("DynamoDB left deliveries unread")
        return found

    def save(self, delivery: Delivery, *, attempts_before: int) -> bool:
        """Stores a new state of the delivery; False when someone recorded an attempt first."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item=_item(delivery),
                # attribute_exists(attempts): every delivery has them, so a delivery a data removal
                # deleted or left its tombstone at (no `attempts`) meanwhile stays erased
                ConditionExpression="attribute_exists(attempts) AND size(attempts) = :before",
                ExpressionAttributeValues={":before": {"N": str(attempts_before)}},
            )
        except ClientError as exc:
            if conditional_failed(exc):
                return False
            raise
        return True

    def erased(self, event_id: str) -> bool:
        """Whether a data removal left its mark for the event (the module docstring)."""
        key_ = item_key(erasure_mark_id(event_id))
        found = self._db.get_item(
            TableName=self._table,
            Key=key_,
            ConsistentRead=True,
            ProjectionExpression="#s",
            ExpressionAttributeNames={"#s": "status"},
        ).get("Item")
        return found is not None and _is_tombstone(found)

    def erase(self, delivery_id: str, now: datetime) -> None:
        """The delivery replaced by a tombstone (a resend's copy of an erased event)."""
        self._db.put_item(TableName=self._table, Item=tombstone_item(delivery_id, now))

    def for_endpoint(
        self,
        account_id: str,
        endpoint_id: str | None,
        months: list[str],
        *,
        since: datetime,
        until: datetime,
        statuses: Collection[DeliveryStatus] = (),
        event_types: Collection[str] = (),
    ) -> Iterator[Delivery]:
        """Newest first over the given months (newest month first), within [since, until], of the
        given statuses and event types when given (all of them to the end: a resend's selection)."""
        extra = _filters(statuses, event_types)
        paginator = self._db.get_paginator("query")
        for month in months:
            query = self._query(account_id, endpoint_id, month, since=since, until=until, before=None)
            for page in paginator.paginate(**_merged(query, extra)):
                yield from (_delivery(attrs) for attrs in page["Items"])

    def read_history(
        self,
        account_id: str,
        endpoint_id: str,
        months: list[str],
        *,
        since: datetime,
        until: datetime,
        before: str | None,
        statuses: Collection[DeliveryStatus],
        event_types: Collection[str],
        want: int,
        budget_seconds: float,
    ) -> HistoryRead:
        """Up to `want` deliveries as for_endpoint selects them, reading until the budget runs out
        (the first Query always runs, so every call moves on). A filtered Query reads 200 items at
        a time, not `want`, since DynamoDB applies the filter after the Limit."""
        extra = _filters(statuses, event_types)
        # +1: the `before` item itself comes first when it matches
        extra["Limit"] = max(want + 1, _FILTERED_READ) if "FilterExpression" in extra else want + 1
        deadline = time.monotonic() + budget_seconds
        found: list[Delivery] = []
        position, queried = before, False
        for month in months:
            if before is not None and before <= month_start_key(month):
                continue  # nothing older than the position in this month: a page that stopped after it
            query = _merged(self._query(account_id, endpoint_id, month, since=since, until=until, before=before), extra)
            while True:
                if queried and time.monotonic() >= deadline:
                    return HistoryRead(found, resume_at=position)
                page = self._db.query(**query)
                queried = True
                found += [_delivery(attrs) for attrs in page["Items"] if attrs["created_sk"]["S"] != before]
                if len(found) >= want:
                    return HistoryRead(found[:want])
                if "LastEvaluatedKey" not in page:
                    position = month_start_key(month)  # the month is read through
                    break
                position = page["LastEvaluatedKey"]["created_sk"]["S"]
                query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return HistoryRead(found)

    def _query(
        self,
        account_id: str,
        endpoint_id: str | None,
        month: str,
        *,
        since: datetime,
        until: datetime,
        before: str | None,
    ) -> dict[str, Any]:
        """One month partition of the endpoint, newest first, within [since, until] and up to `before`."""
        high = before if before is not None else f"{sort_key(until, '')}~"  # '~' sorts after '#<id>'
        return {
            "TableName": self._table,
            "IndexName": BY_ENDPOINT_INDEX,
            "KeyConditionExpression": "endpoint_key = :k AND created_sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": {
                ":k": {"S": endpoint_key(account_id, endpoint_id, month)},
                ":low": {"S": sort_key(since, "")},
                ":high": {"S": high},
            },
            "ScanIndexForward": False,
        }


def _filters(statuses: Collection[DeliveryStatus], event_types: Collection[str]) -> dict[str, Any]:
    """The FilterExpression of the given statuses and event types (all when none given)."""
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    conditions = []
    if statuses:
        names["#status"] = "status"
        conditions.append(f"#status IN ({', '.join(f':s{n}' for n in range(len(statuses)))})")
        values.update({f":s{n}": {"S": str(status)} for n, status in enumerate(statuses)})
    if event_types:
        conditions.append(f"event_type IN ({', '.join(f':e{n}' for n in range(len(event_types)))})")
        values.update({f":e{n}": {"S": event_type} for n, event_type in enumerate(event_types)})
    extra: dict[str, Any] = {}
    if conditions:
        extra["FilterExpression"] = " AND ".join(conditions)
        extra["ExpressionAttributeValues"] = values
    if names:
        extra["ExpressionAttributeNames"] = names
    return extra


def _merged(query: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The Query with the filter's parameters added (their expression values joined to its own)."""
    values = {**query["ExpressionAttributeValues"], **extra.get("ExpressionAttributeValues", {})}
    return {**query, **extra, "ExpressionAttributeValues": values}
