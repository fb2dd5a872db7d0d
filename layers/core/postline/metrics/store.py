"""Metrics roll-ups in the counters table.

    MET#<account>#<mode>#<yyyy-mm-dd>  <series>#<hh>     counters and latency bins of one UTC hour,
                                                         one attribute per quarter (`q2_sent`,
                                                         `q2_d_412`), only the non-zero ones;
                                                         `v` counts the writes (packing's guard)
    MET#<account>#<mode>#<yyyy-mm-dd>  <series>#d        the same day's hour items packed into one
                                                         (`h05q2_sent`), once the day is closed
    MPK#<account>                      PASS              packing: `packed_through` (yyyy-mm-dd)
    MPK                                RUN#<yyyy-mm-dd>  the day's packing pass over the accounts
    MLAG                               <yyyy-mm-ddThh:mm> `lag`: the roll-up consumer's largest lag of
                                                         that minute (seconds behind the stream: its
                                                         IteratorAge), kept a day; packing waits on it
    MUQ#<account>#<message id>         open#<recipient>  the pair was opened (click#: clicked) once:
                                                         `event`, the event that counts as its first
    MWM#<events table pk>              -                 `seq`: the last stream record of that
                                                         events partition counted, as the consumer
                                                         wrote it until 2026-11-28 (read, no longer
                                                         written; expires three days after its last)
    EVC#<account>#<series>             H#<yyyy-mm-dd>    the events query's counters of every stored
                                                         event (events/count_store.py)

A series is `all` or `<dimension>#<value>` (sending_domain#example.com, tag#invoice, ...). One
partition per account, mode and UTC day keeps partitions bounded and maps a window to known keys.

Exactly once under at-least-once delivery, without a transaction: each hour item and events-query
counter item keeps, beside its counters, the last stream record of each events partition it added
(a mark, `W_<hash>`), and a batch's additions to it are one UpdateItem conditional on its marks
(shared/stream_marks.py says why that is exact): one write unit per item, where a transaction cost
two, and no watermark item. A first open or click is claimed (MUQ, a conditional put naming its
event) before any counter moves: the event that holds the claim is the one that counts it, once.
The account's first counted event (EVC COVER `first`) is written before its counters, once per
instance. Per-event dedup items would cost a write per event and put every event of a hot account
on the same counter items one by one.

Packing (`pack_day`): a series' hour items of a closed day become one `<series>#d` item of the
same attributes prefixed by their hour, in one transaction per group of series: the packed item's
Put (conditional on the packed item's version read, so two passes cannot both add the same hours)
and each hour item's Delete (conditional on its `v` read: a write that reached the item after it
was read cancels the transaction, nothing is lost). A pass that dies between two transactions
leaves series either packed or not, never both: a re-run packs the rest. Readers sum packed and
hour items, so an hour item written after its day was packed still counts (the next pass folds it
in).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from postline.events.count_store import DynamoEventCounts, count_expiry, count_item_key, first_counted_update
from postline.events.counts import CountKey
from postline.metrics.domain import PACKED, PACKED_MAX_BYTES, item_bytes, merge, pack, unpack
from postline.metrics.ports import Chunk, Entry, ItemKey, PackedDay, Pair, RollupItem
from postline.shared import parallel, pass_positions, stream_marks, stream_watermarks
from postline.shared.dynamo import batch_get, batch_write, cancellation_codes, conditional_failed, from_attrs, key

_PARALLEL = 8  # concurrent partition reads of one request
WATERMARK_PREFIX = "MWM#"
VERSION = "v"  # an hour item's write count; packing deletes an hour item only if it is unchanged
LAG_PK = "MLAG"
LAG_WINDOW = timedelta(minutes=10)  # packing heeds the consumer's lag noted this recently
_LAG_KEPT = timedelta(days=1)
_TRANSACTION_ACTIONS = 100
_TRANSACTION_BYTES = 3_500_000  # of DynamoDB's 4 MB a transaction
_FIRST_NOTED: set[str] = set()  # accounts whose first counted event this instance wrote or found set
_LAG_NOTED: dict[str, float] = {}  # the minute -> the largest lag this instance noted in it


def _minute(at: datetime) -> str:
    return f"{at.astimezone(UTC):%Y-%m-%dT%H:%M}"


def rollup_pk(account_id: str, mode: str, day: str) -> str:
    return f"MET#{account_id}#{mode}#{day}"


def rollup_sk(series: str, hour: int) -> str:
    return f"{series}#{hour:02d}"


def packed_sk(series: str) -> str:
    return f"{series}#{PACKED}"


def day_condition(
    *, series: str | None, dimension: str | None, span: tuple[str, str] | None = None
) -> tuple[str, dict[str, Any]]:
    """A day partition's Query (KeyConditionExpression, its values but :pk) for the hour items of one
    series, of every series of a dimension, or of every series of the dimensions from span[0] to
    span[1] (in key order: one Query for dimensions that sort next to each other)."""
    if span is not None:
        return "pk = :pk AND sk BETWEEN :low AND :high", {
            ":low": {"S": f"{span[0]}#"},
            ":high": {"S": f"{span[1]}$"},  # `$` follows `#`: after every `<last dimension>#...` key
        }
    if series is not None:
        return "pk = :pk AND sk BETWEEN :low AND :high", {
            ":low": {"S": rollup_sk(series, 0)},
            ":high": {"S": packed_sk(series)},
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

    def note_lag(self, now: datetime, lag_seconds: float) -> None:
        """The minute's item keeps the largest lag noted in it (a smaller one's conditional write
        changes nothing): one small write per batch that raises what this instance noted in the
        minute, on a key that changes every minute."""
        minute, lag = _minute(now), round(lag_seconds, 3)
        if lag <= _LAG_NOTED.get(minute, -1.0):
            return
        _LAG_NOTED.clear()
        _LAG_NOTED[minute] = lag
        try:
            self._client.update_item(
                TableName=self._table,
                Key=key(LAG_PK, _minute(now)),
                UpdateExpression="SET #lag = :lag, expires_at = :ttl",
                ConditionExpression="attribute_not_exists(#lag) OR #lag < :lag",
                ExpressionAttributeNames={"#lag": "lag"},
                ExpressionAttributeValues={
                    ":lag": {"N": str(round(lag_seconds, 3))},
                    ":ttl": {"N": str(int((now + _LAG_KEPT).timestamp()))},
                },
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise

    def consumer_lag(self, now: datetime) -> float:
        response = self._client.query(
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND sk BETWEEN :since AND :until",
            ExpressionAttributeValues={
                ":pk": {"S": LAG_PK},
                ":since": {"S": _minute(now - LAG_WINDOW)},
                ":until": {"S": _minute(now)},
            },
            ConsistentRead=True,
        )
        return max((float(item["lag"]["N"]) for item in response["Items"] if "lag" in item), default=0.0)

    def extend_complete_from(self, account_id: str, day: date) -> None:
        self._counts.extend_complete_from(account_id, day)

    def first_counted(self, account_id: str) -> datetime | None:
        return self._counts.coverage(account_id).first_counted

    def watermarks(self, partitions: list[str]) -> dict[str, str]:
        return stream_watermarks.read(self._client, self._table, WATERMARK_PREFIX, partitions)

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

    def apply(self, chunk: Chunk) -> set[tuple[str, str]]:
        """Each item's additions it lacks, one conditional UpdateItem per item, eight at a time,
        after the accounts' first counted events (module docstring)."""
        for account_id, first in chunk.firsts.items():
            self._note_first(account_id, first)
        added: list[tuple[str, str]] = []
        tasks: list[Callable[[], None]] = []
        for target, entries in chunk.entries.items():
            if isinstance(target, ItemKey):
                item = key(rollup_pk(target.account_id, target.mode, target.day), rollup_sk(target.series, target.hour))
                sets = {"expires_at": {"N": str(chunk.expires[target])}}
                tasks.append(self._adder(item, entries, sets, {VERSION: 1}, added))
            else:
                sets = {"expires_at": {"N": str(count_expiry(target.day))}}
                tasks.append(self._adder(count_item_key(target), entries, sets, {}, added))
        parallel.run_each(tasks, lambda _: None)
        return set(added)

    def _adder(
        self,
        item: dict[str, Any],
        entries: list[Entry],
        sets: dict[str, dict[str, Any]],
        extra: dict[str, int],
        added: list[tuple[str, str]],
    ) -> Callable[[], None]:
        def add() -> None:
            added.extend(stream_marks.add_once(self._client, self._table, item, entries, sets=sets, extra_adds=extra))

        return add

    def _note_first(self, account_id: str, first: datetime) -> None:
        """The account's first counted event, set once (kept by the instance: no write after)."""
        if account_id in _FIRST_NOTED:
            return
        update = first_counted_update(self._table, account_id, first)["Update"]
        self._client.update_item(**update)
        _FIRST_NOTED.add(account_id)

    def claim_pairs(self, pairs: dict[Pair, tuple[str, int]]) -> dict[Pair, str]:
        owners: dict[Pair, str] = {}
        for pair, (event_id, expires) in pairs.items():
            pk, sk = pair_key(pair)
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item={**key(pk, sk), "event": {"S": event_id}, "expires_at": {"N": str(expires)}},
                    ConditionExpression="attribute_not_exists(pk)",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
                owners[pair] = event_id
            except ClientError as error:
                if not conditional_failed(error):
                    raise
                held = error.response.get("Item") or self._client.get_item(
                    TableName=self._table, Key=key(pk, sk), ConsistentRead=True
                ).get("Item", {})
                owners[pair] = held.get("event", {}).get("S", "")
        return owners

    # -- packing --------------------------------------------------------------------------------

    def pack_day(self, account_id: str, mode: str, day: str) -> PackedDay:
        """Packs each series' hour items of the day into its `<series>#d` item (module docstring)."""
        pk = rollup_pk(account_id, mode, day)
        found: dict[str, _Series] = {}
        paginator = self._client.get_paginator("query")
        for page in paginator.paginate(
            TableName=self._table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
            ConsistentRead=True,
        ):
            for attrs in page["Items"]:
                series, hour, values, version, expires = _parts(attrs)
                part = found.setdefault(series, _Series())
                part.expires = max(part.expires, expires)
                if hour is None:
                    part.packed, part.packed_version = values, version
                else:
                    part.hours[hour], part.versions[hour] = values, version
        result = PackedDay()
        groups: list[list[tuple[str, list[dict[str, Any]]]]] = [[]]
        actions = size = 0
        for series, part in sorted(found.items()):
            if not part.hours:
                continue
            values = merge(part.packed or {}, pack(part.hours))
            if item_bytes(values) > PACKED_MAX_BYTES:
                result.too_large += 1
                continue
            writes = self._pack_actions(pk, series, part, values)
            if actions + len(writes) > _TRANSACTION_ACTIONS or size + item_bytes(values) > _TRANSACTION_BYTES:
                groups.append([])
                actions = size = 0
            groups[-1].append((series, writes))
            actions, size = actions + len(writes), size + item_bytes(values)
        for group in groups:
            if group:
                self._pack_group(group, result)
        return result

    def _pack_actions(self, pk: str, series: str, part: _Series, values: dict[str, int]) -> list[dict[str, Any]]:
        version = (part.packed_version or 0) + 1
        item = {
            **key(pk, packed_sk(series)),
            **{name: {"N": str(value)} for name, value in values.items()},
            VERSION: {"N": str(version)},
            "expires_at": {"N": str(part.expires)},
        }
        put: dict[str, Any] = {"TableName": self._table, "Item": item}
        if part.packed is None:
            put["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            put["ConditionExpression"] = "#v = :v"
            put["ExpressionAttributeNames"] = {"#v": VERSION}
            put["ExpressionAttributeValues"] = {":v": {"N": str(part.packed_version or 0)}}
            if part.packed_version is None:
                put["ConditionExpression"] = "attribute_exists(pk) AND attribute_not_exists(#v)"
                del put["ExpressionAttributeValues"]
        writes: list[dict[str, Any]] = [{"Put": put}]
        for hour, seen in sorted(part.versions.items()):
            delete: dict[str, Any] = {
                "TableName": self._table,
                "Key": key(pk, rollup_sk(series, hour)),
                "ExpressionAttributeNames": {"#v": VERSION},
            }
            if seen is None:
                delete["ConditionExpression"] = "attribute_exists(pk) AND attribute_not_exists(#v)"
            else:
                delete["ConditionExpression"] = "#v = :v"
                delete["ExpressionAttributeValues"] = {":v": {"N": str(seen)}}
            writes.append({"Delete": delete})
        return writes

    def _pack_group(self, group: list[tuple[str, list[dict[str, Any]]]], result: PackedDay) -> None:
        """One transaction for the group; if a write reached one of its items since the read, each
        series alone, and a series whose items changed is left for the next pass."""
        try:
            self._client.transact_write_items(TransactItems=[w for _, writes in group for w in writes])
            result.series += len(group)
            result.hour_items += sum(len(writes) - 1 for _, writes in group)
            return
        except ClientError as exc:
            if not _conditions_failed(exc):
                raise
        if len(group) == 1:
            result.changed += 1
            return
        for one in group:
            self._pack_group([one], result)

    def packed_through(self, account_id: str) -> date | None:
        item = self._client.get_item(TableName=self._table, Key=key(f"MPK#{account_id}", "PASS"), ConsistentRead=True)
        found = item.get("Item", {}).get("packed_through", {}).get("S")
        return date.fromisoformat(found) if found else None

    def save_packed_through(self, account_id: str, day: date) -> None:
        self._client.put_item(
            TableName=self._table,
            Item={**key(f"MPK#{account_id}", "PASS"), "packed_through": {"S": f"{day}"}},
        )

    def pass_position(self, day: date) -> tuple[dict[str, Any] | None, bool]:
        """(where the day's walk of the accounts stands, whether the pass is done)."""
        return pass_positions.read(self._client, self._table, "MPK", day)

    def save_pass_position(self, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime) -> None:
        pass_positions.save(self._client, self._table, "MPK", day, position, done=done, now=now)

    def accounts_with_history(self, position: dict[str, Any] | None, limit: int) -> tuple[list[str], Any]:
        return self._counts.accounts_with_history(position, limit)

    def history_from(self, account_id: str) -> date | None:
        """The first day the roll-ups can hold: the consumer's first event or a backfill's start."""
        coverage = self._counts.coverage(account_id)
        days = [d for d in (coverage.complete_from, coverage.first_counted and coverage.first_counted.date()) if d]
        return min(days) if days else None

    def read(
        self,
        account_id: str,
        mode: str,
        days: list[str],
        *,
        series: str | None = None,
        dimension: str | None = None,
        span: tuple[str, str] | None = None,
        budget_seconds: float,
    ) -> list[RollupItem]:
        """The hour items of `days`: one series (`series`), every series of a dimension, or of the
        dimensions in a key range (`span`, day_condition). Raises TimeoutError past the budget."""
        deadline = time.monotonic() + budget_seconds
        condition, bounds = day_condition(series=series, dimension=dimension, span=span)

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
                    # The key range of a series (`#00` to `#d`) may hold another whose value
                    # continues with `#` (a tag `a#b` after the tag `a`): only this one counts.
                    found += [item for item in _items(day, attrs) if series is None or item.series == series]
                if "LastEvaluatedKey" not in response:
                    return found
                request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

        return _gather(day_items, days, deadline)


def _items(day: str, attrs: dict[str, Any]) -> list[RollupItem]:
    """An hour item as itself, a packed day as the hour items it holds."""
    series, hour, values, _, _ = _parts(attrs)
    if hour is None:
        return [RollupItem(day, series, h, hour_values) for h, hour_values in sorted(unpack(values).items())]
    return [RollupItem(day, series, hour, values)]


def _parts(attrs: dict[str, Any]) -> tuple[str, int | None, dict[str, int], int | None, int]:
    """(series, hour or None for a packed day, counters, version or None, expires_at)."""
    plain = from_attrs(attrs)
    series, _, hour = str(plain.pop("sk")).rpartition("#")
    plain.pop("pk", None)
    expires = int(plain.pop("expires_at", 0))
    version = plain.pop(VERSION, None)
    values = {name: int(value) for name, value in plain.items() if not stream_marks.is_mark(name)}
    return series, (None if hour == PACKED else int(hour)), values, (None if version is None else int(version)), expires


@dataclass
class _Series:
    """What a day partition holds of one series, as read."""

    hours: dict[int, dict[str, int]] = field(default_factory=dict)
    versions: dict[int, int | None] = field(default_factory=dict)
    packed: dict[str, int] | None = None
    packed_version: int | None = None
    expires: int = 0


def _conditions_failed(exc: ClientError) -> bool:
    """Cancelled because an item changed since it was read (a condition), or is being written now
    (another transaction): either way the series is left for the next pass."""
    codes = cancellation_codes(exc)
    cancelled = exc.response.get("Error", {}).get("Code") == "TransactionCanceledException"
    return cancelled and bool({"ConditionalCheckFailed", "TransactionConflict"} & set(codes))


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
