"""The event counters (events/counts.py) in the counters table.

    EVC#<account>#<series>  H#<yyyy-mm-dd>   the hour item: `h<hh>_<type>`, `e<hh>_<k>`
    EVC#<account>#<series>  D#<yyyy-mm-dd>   the day item: `t_<type>`, `x<k>` (written until
                                             2026-11-28: the day's totals are its hours' sum)
    EVC#<account>           COVER            `first` (ISO time, set once by the consumer),
                                             `complete_from` (yyyy-mm-dd, by the backfill, only
                                             ever earlier), `cut` (ISO time, by the retention
                                             pass, only ever later), `history` (HISTORY: the
                                             account has stored history; index with_history)

The coverage items are also the registry of accounts with history to expire: the sparse index
with_history (history, pk) lists exactly them, so the daily retention pass Queries it instead of
scanning the resources table. The consumer sets `history` with `first` (the same write, and no
index write after the first: a KEYS_ONLY index is written only when its keys change); accounts
with history from before the consumer are registered once by `postline retention
register-accounts`.

One partition per account and series: a window's hour items are one Query (up to 366 items, one
a day with events), beside a Query of the same days' day items (only days counted before
2026-11-28 have one: their `x<k>` classes, see counts.py) and the coverage item's GetItem. The
consumer adds to the items with one conditional write per batch and item (metrics/store.py), so a
hot account's writes are its batches, not its events. Each counter item also keeps the consumer's
marks (`W_<hash>`, shared/stream_marks.py), which readers skip. Counter items expire KEEP_DAYS
after their day (longer than any window), so an item never goes before the events it counts.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.events.counts import KEEP_DAYS, CountItems, CountKey, Coverage, day_start, day_values
from postline.shared.dynamo import batch_write, conditional_failed, from_attrs, key
from postline.shared.stream_marks import is_mark

COVER_SK = "COVER"
HISTORY = "accounts"  # the one value of `history`: the index's only partition, written once per account
WITH_HISTORY_INDEX = "with_history"


def count_pk(account_id: str, series: str) -> str:
    return f"EVC#{account_id}#{series}"


def count_sk(day: str, hours: bool) -> str:
    return f"{'H' if hours else 'D'}#{day}"


def coverage_key(account_id: str) -> dict[str, Any]:
    return key(f"EVC#{account_id}", COVER_SK)


def count_item_key(item: CountKey) -> dict[str, Any]:
    return key(count_pk(item.account_id, item.series), count_sk(item.day, item.hours))


def count_expiry(day: str) -> int:
    return int((day_start(date.fromisoformat(day)) + timedelta(days=KEEP_DAYS)).timestamp())


def first_counted_update(table: str, account_id: str, first: datetime) -> dict[str, Any]:
    """A transaction's Update recording the consumer's first counted event, once."""
    return {
        "Update": {
            "TableName": table,
            "Key": coverage_key(account_id),
            "UpdateExpression": "SET #first = if_not_exists(#first, :first), history = :history",
            "ExpressionAttributeNames": {"#first": "first"},
            "ExpressionAttributeValues": {
                ":first": {"S": first.astimezone(UTC).isoformat()},
                ":history": {"S": HISTORY},
            },
        }
    }


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="event-counts")
        return _pool


class DynamoEventCounts:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    # -- reading (GET /v3/events) ---------------------------------------------------------------

    def read(
        self, account_id: str, series: str, first: date, last: date, partial: list[date], *, budget_seconds: float
    ) -> tuple[Coverage, CountItems]:
        """The account's coverage, the series' days from `first` to `last` (each summed from its
        hour item, with the TTL classes of its day item where one was written) and the hour items
        of the `partial` days: three requests at once. Raises TimeoutError past the budget."""
        deadline = time.monotonic() + budget_seconds
        pool = _shared_pool()
        hours = pool.submit(self._day_items, account_id, series, first, last, True, deadline)
        legacy = pool.submit(self._day_items, account_id, series, first, last, False, deadline)
        coverage = self.coverage(account_id)
        by_hour = hours.result(timeout=max(deadline - time.monotonic(), 0))
        by_day = legacy.result(timeout=max(deadline - time.monotonic(), 0))
        items = CountItems(
            days={day: day_values(by_hour.get(day), by_day.get(day)) for day in sorted({*by_hour, *by_day})},
            hours={day: by_hour[day] for day in partial if day in by_hour},
        )
        return coverage, items

    def _day_items(
        self, account_id: str, series: str, first: date, last: date, hours: bool, deadline: float
    ) -> dict[date, dict[str, int]]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last",
            "ExpressionAttributeValues": {
                ":pk": {"S": count_pk(account_id, series)},
                ":first": {"S": count_sk(f"{first}", hours)},
                ":last": {"S": count_sk(f"{last}", hours)},
            },
        }
        out: dict[date, dict[str, int]] = {}
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError("the events count ran out of its time budget")
            page = self._db.query(**request)
            for attrs in page["Items"]:  # counters only, read as stored (a year of hours: ~50,000)
                out[date.fromisoformat(attrs["sk"]["S"][2:])] = {
                    name: int(value["N"])
                    for name, value in attrs.items()
                    if "N" in value and name != "expires_at" and not is_mark(name)
                }
            if "LastEvaluatedKey" not in page:
                return out
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def coverage(self, account_id: str) -> Coverage:
        found = self._db.get_item(TableName=self._table, Key=coverage_key(account_id), ConsistentRead=True)
        return _coverage(from_attrs(found.get("Item", {})))

    # -- writing outside the consumer ------------------------------------------------------------

    def replace_day(self, account_id: str, day: str, items: dict[CountKey, dict[str, int]]) -> int:
        """Puts the day's counter items whole (the backfill: a closed day recounted from its stored
        events). Safe to repeat. Returns how many it wrote."""
        puts = [
            (
                self._table,
                {
                    **count_item_key(item),
                    **{name: {"N": str(value)} for name, value in values.items() if value},
                    "expires_at": {"N": str(count_expiry(item.day))},
                },
            )
            for item, values in items.items()
            if item.account_id == account_id and item.day == day
        ]
        batch_write(self._db, puts)
        return len(puts)

    def extend_complete_from(self, account_id: str, day: date) -> None:
        """Every day from `day` on is counted (only ever moves earlier)."""
        self._only_if(
            "SET complete_from = :day",
            "attribute_not_exists(complete_from) OR complete_from > :day",
            account_id,
            {":day": {"S": f"{day}"}},
        )

    def register(self, account_id: str) -> None:
        """Lists the account among those with history (what the consumer does on its first event)."""
        self._db.update_item(
            TableName=self._table,
            Key=coverage_key(account_id),
            UpdateExpression="SET history = :history",
            ExpressionAttributeValues={":history": {"S": HISTORY}},
        )

    def accounts_with_history(self, position: dict[str, Any] | None, limit: int) -> tuple[list[str], Any]:
        """One page of the registered accounts' ids (index with_history), and the next position."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": WITH_HISTORY_INDEX,
            "KeyConditionExpression": "history = :history",
            "ExpressionAttributeValues": {":history": {"S": HISTORY}},
            "Limit": limit,
        }
        if position is not None:
            request["ExclusiveStartKey"] = position
        page = self._db.query(**request)
        ids = [item["pk"]["S"].removeprefix("EVC#") for item in page["Items"]]
        return ids, page.get("LastEvaluatedKey")

    def save_cut(self, account_id: str, cut: datetime) -> None:
        """The retention pass deletes what lies before `cut` (only ever moves later)."""
        self._only_if(
            "SET #cut = :cut",
            "attribute_not_exists(#cut) OR #cut < :cut",
            account_id,
            {":cut": {"S": cut.astimezone(UTC).isoformat()}},
            {"#cut": "cut"},
        )

    def _only_if(
        self, update: str, condition: str, account_id: str, values: dict[str, Any], names: dict[str, str] | None = None
    ) -> None:
        request: dict[str, Any] = {
            "TableName": self._table,
            "Key": coverage_key(account_id),
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }
        if names:
            request["ExpressionAttributeNames"] = names
        try:
            self._db.update_item(**request)
        except ClientError as exc:
            if not conditional_failed(exc):
                raise


def _counters(plain: dict[str, Any]) -> dict[str, int]:
    # The consumer's marks (shared/stream_marks.py) are not counters.
    skipped = ("pk", "sk", "expires_at")
    return {name: int(value) for name, value in plain.items() if name not in skipped and not is_mark(name)}


def _coverage(plain: dict[str, Any]) -> Coverage:
    first, complete, cut = plain.get("first"), plain.get("complete_from"), plain.get("cut")
    return Coverage(
        first_counted=datetime.fromisoformat(first) if first else None,
        complete_from=date.fromisoformat(complete) if complete else None,
        cut=datetime.fromisoformat(cut) if cut else None,
    )
