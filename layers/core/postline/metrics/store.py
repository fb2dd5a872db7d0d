"""Metrics roll-ups in the counters table.

    MET#<account>#<mode>#<yyyy-mm-dd>  <series>#<hh>     counters and latency bins of one UTC hour,
                                                         one attribute per quarter (`q2_sent`,
                                                         `q2_d_412`), only the non-zero ones
    MUQ#<account>#<message id>         open#<recipient>  the pair was opened (click#: clicked) once
    MWM#<events table pk>              -                 `seq`: the last stream record of that
                                                         events partition counted in the roll-ups
    EVC#<account>#<series>             D#/H#<yyyy-mm-dd> the events query's counters of every stored
                                                         event (events/count_store.py)

A series is `all` or `<dimension>#<value>` (sending_domain#example.com, tag#invoice, ...). One
partition per account, mode and UTC day keeps partitions bounded and maps a window to known keys.

Exactly once under at-least-once delivery: every write of a batch goes in one transaction with
the new watermark of each events partition it read, conditional on the watermark it started from
(shared/stream_watermarks.py says why that is exact). Per-event dedup items would cost a write per
event and put every event of a hot account on the same counter items one by one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from typing import Any

from postline.events.count_store import DynamoEventCounts, count_update, first_counted_update
from postline.events.counts import CountKey
from postline.metrics.ports import Chunk, ItemKey, Pair, RollupItem
from postline.shared import stream_watermarks
from postline.shared.dynamo import batch_get, batch_write, from_attrs, key

_PARALLEL = 8  # concurrent partition reads of one request
WATERMARK_PREFIX = "MWM#"


def rollup_pk(account_id: str, mode: str, day: str) -> str:
    return f"MET#{account_id}#{mode}#{day}"


def rollup_sk(series: str, hour: int) -> str:
    return f"{series}#{hour:02d}"


def day_condition(*, series: str | None, dimension: str | None) -> tuple[str, dict[str, Any]]:
    """A day partition's Query (KeyConditionExpression, its values but :pk) for the hour items of one
    series, or of every series of a dimension."""
    if series is not None:
        return "pk = :pk AND sk BETWEEN :low AND :high", {
            ":low": {"S": rollup_sk(series, 0)},
            ":high": {"S": rollup_sk(series, 23)},
        }
    return "pk = :pk AND begins_with(sk, :prefix)", {":prefix": {"S": f"{dimension}#"}}


def pair_key(pair: Pair) -> tuple[str, str]:
    account_id, message_id, kind, recipient = pair
    return f"MUQ#{account_id}#{message_id}", f"{kind}#{recipient.lower()}"


class DynamoRollups:
    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table
        self._counts = DynamoEventCounts(client, table)

    def replace_counts(self, account_id: str, day: str, items: dict[CountKey, dict[str, int]]) -> int:
        return self._counts.replace_day(account_id, day, items)

    def extend_complete_from(self, account_id: str, day: date) -> None:
        self._counts.extend_complete_from(account_id, day)

    def first_counted(self, account_id: str) -> datetime | None:
        return self._counts.coverage(account_id).first_counted

    def watermarks(self, partitions: list[str]) -> dict[str, str]:
        return stream_watermarks.read(self._client, self._table, WATERMARK_PREFIX, partitions)

    def seen_pairs(self, pairs: list[Pair]) -> set[Pair]:
        by_key = {pair_key(pair): pair for pair in pairs}
        found = batch_get(self._client, self._table, [key(pk, sk) for pk, sk in by_key], projection="pk, sk")
        return {by_key[(item["pk"]["S"], item["sk"]["S"])] for item in found}

    def pair_events(self, pairs: list[Pair]) -> dict[Pair, str]:
        by_key = {pair_key(pair): pair for pair in pairs}
        found = batch_get(self._client, self._table, [key(pk, sk) for pk, sk in by_key], projection="pk, sk, event")
        return {by_key[(item["pk"]["S"], item["sk"]["S"])]: item.get("event", {}).get("S", "") for item in found}

    def put_pairs(self, pairs: dict[Pair, tuple[str, int]]) -> None:
        puts = []
        for pair, (event_id, expires) in pairs.items():
            pk, sk = pair_key(pair)
            item = {**key(pk, sk), "event": {"S": event_id}, "expires_at": {"N": str(expires)}}
            puts.append((self._table, item))
        batch_write(self._client, puts)

    def replace_day(
        self, account_id: str, day: str, items: dict[ItemKey, dict[str, int]], expires: dict[ItemKey, int]
    ) -> int:
        """Deletes the day's items that `items` lacks, then puts each whole: safe to repeat, and only
        for a closed day (no stream record of it can still arrive to add to an item)."""
        wanted = {
            (rollup_pk(k.account_id, k.mode, k.day), rollup_sk(k.series, k.hour)): k
            for k in items
            if k.account_id == account_id and k.day == day
        }
        stale: list[dict[str, Any]] = []
        paginator = self._client.get_paginator("query")
        for mode in ("live", "test"):
            pk = rollup_pk(account_id, mode, day)
            for page in paginator.paginate(
                TableName=self._table,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": pk}},
                ProjectionExpression="pk, sk",
            ):
                stale += [item for item in page["Items"] if (pk, item["sk"]["S"]) not in wanted]
        for start in range(0, len(stale), 25):
            requests = [{"DeleteRequest": {"Key": key(i["pk"]["S"], i["sk"]["S"])}} for i in stale[start : start + 25]]
            while requests:
                response = self._client.batch_write_item(RequestItems={self._table: requests})
                requests = response.get("UnprocessedItems", {}).get(self._table, [])
        puts = []
        for (pk, sk), item_key in wanted.items():
            values = {name: {"N": str(value)} for name, value in items[item_key].items() if value}
            puts.append((self._table, {**key(pk, sk), **values, "expires_at": {"N": str(expires[item_key])}}))
        batch_write(self._client, puts)
        return len(puts)

    def apply(self, chunk: Chunk, now_epoch: int) -> None:
        """One transaction; raises (a TransactionCanceledException) when a condition failed."""
        actions: list[dict[str, Any]] = []
        for item_key, adds in chunk.adds.items():
            names = list(adds)
            values = {f":v{n}": {"N": str(adds[name])} for n, name in enumerate(names)}
            clauses = ", ".join(f"{name} :v{n}" for n, name in enumerate(names))
            values[":e"] = {"N": str(chunk.expires[item_key])}
            actions.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": key(
                            rollup_pk(item_key.account_id, item_key.mode, item_key.day),
                            rollup_sk(item_key.series, item_key.hour),
                        ),
                        "UpdateExpression": f"ADD {clauses} SET expires_at = :e",
                        "ExpressionAttributeValues": values,
                    }
                }
            )
        actions += [count_update(self._table, item, adds) for item, adds in chunk.counts.items()]
        actions += [first_counted_update(self._table, account, first) for account, first in chunk.firsts.items()]
        for pair, (event_id, expires) in chunk.pairs.items():
            pk, sk = pair_key(pair)
            actions.append(
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": {**key(pk, sk), "event": {"S": event_id}, "expires_at": {"N": str(expires)}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                }
            )
        for partition, (old, new) in chunk.watermarks.items():
            actions.append(stream_watermarks.move(self._table, WATERMARK_PREFIX, partition, old, new, now_epoch))
        self._client.transact_write_items(TransactItems=actions)

    def read(
        self,
        account_id: str,
        mode: str,
        days: list[str],
        *,
        series: str | None = None,
        dimension: str | None = None,
        budget_seconds: float,
    ) -> list[RollupItem]:
        """The hour items of `days`: one series (`series`), or every series of a dimension.
        Raises TimeoutError past the budget."""
        deadline = time.monotonic() + budget_seconds
        condition, bounds = day_condition(series=series, dimension=dimension)

        def day_items(day: str) -> list[RollupItem]:
            found: list[RollupItem] = []
            request: dict[str, Any] = {
                "TableName": self._table,
                "KeyConditionExpression": condition,
                "ExpressionAttributeValues": {":pk": {"S": rollup_pk(account_id, mode, day)}, **bounds},
            }
            while True:
                if time.monotonic() > deadline:
                    raise TimeoutError("the metrics query ran out of its time budget")
                response = self._client.query(**request)
                for attrs in response["Items"]:
                    found.append(_item(day, attrs))
                if "LastEvaluatedKey" not in response:
                    return found
                request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

        return _gather(day_items, days, deadline)


def _item(day: str, attrs: dict[str, Any]) -> RollupItem:
    plain = from_attrs(attrs)
    series, _, hour = str(plain.pop("sk")).rpartition("#")
    plain.pop("pk", None)
    plain.pop("expires_at", None)
    return RollupItem(day, series, int(hour), {name: int(value) for name, value in plain.items()})


def _gather(read: Callable[[str], list[RollupItem]], days: list[str], deadline: float) -> list[RollupItem]:
    if len(days) <= 1:
        return [item for day in days for item in read(day)]
    with ThreadPoolExecutor(max_workers=min(_PARALLEL, len(days))) as pool:
        futures = [pool.submit(read, day) for day in days]
        out: list[RollupItem] = []
        for future in futures:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                for pending in futures:
                    pending.cancel()
                raise TimeoutError("the metrics query ran out of its time budget")
            try:
                out += future.result(timeout=remaining)
            except TimeoutError:
                for pending in futures:
                    pending.cancel()
                raise
        return out
