"""The events table: one item per event, partitioned per account, UTC day and shard, and one per tag.

    EVT#<account>#<day>                <timestamp>Z#<event id>  the event; expires_at is its TTL
    TAG#<account>#<day>#<tag>          the event's sk           a copy of the event (`event`, a
                                                                map) for each of its tags, when it
                                                                has several; TTL too
    SHARDS#<account>                   SHARDS                   the account's shard schedule
                                                                (`steps`; sharding.py), if raised
    index by_message:   message_id, sk                        all events of one message
    index by_recipient: <account>#<lowercased recipient>, sk  one recipient's events (sparse)
    index by_type:      <account>#<day>#<type>, sk            one type's events of a day (sparse:
                                                              not DAY_READ_TYPES, query.py)
    index by_tag:       TAG#<account>#<day>#<tag>, sk         the events of a day with that one
                                                              tag (sparse: one distinct tag only)

<day> is yyyy-mm-dd for shard 0 (every account's only shard until its count is raised: the keys
of before sharding) and yyyy-mm-dd.<s> for shard s > 0 (events/sharding.py: which shard, how many,
how reads merge them back).

Day partitions keep every partition bounded however much an account sends, and a time window
maps to a known set of partitions. Every key sorts by the same sk, so any of them reads events
newest first (a day's shards merged by sk) and a page resumes from the last sk it returned. An
index cannot key on a list's elements, hence the tag items of an event with several tags; they
carry none of the indexes' attributes, so no index sees them twice. An event with one distinct
tag (most tagged mail) has no tag item: its own item carries `tag_key`, the key its tag item
would have had, and the by_tag index holds it (one index write, where a tag item cost one more
item's write). A tag's events of a day are the tag items' partition
and the index's partition of the same key, disjoint, merged by sk; events stored before by_tag
have tag items for every tag and no `tag_key`, so they are read exactly once too. The by_type
index holds only the rarer types: `queued`, `sent`, `delivered` (and `duplicate`) have no
`type_key` since 2026-11-29 (3 index writes fewer a delivered message with its send), and a
filter on one reads the day partitions with a type filter, where every such event is, those
stored before with a `type_key` too (their by_type entries are never read again). The stream
drives webhooks: only EVT# items reach it (the template's FilterCriteria; a shard's key starts
EVT# too).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from postline.events.counts import KnownCount
from postline.events.domain import Event
from postline.events.query import (
    DAY_READ_TYPES,
    TYPE_SPREAD,
    EventFilters,
    Position,
    QueryPlan,
    SearchResult,
    Strategy,
)
from postline.events.sharding import (
    CACHE_SECONDS,
    ONE_SHARD,
    ShardSchedule,
    day_part,
    merge_newest,
    shard_of,
    shard_of_key,
)
from postline.shared import stream_watermarks
from postline.shared.dynamo import batch_write, from_attrs, key, to_attrs
from postline.shared.tracing import traced

BY_MESSAGE_INDEX = "by_message"
BY_RECIPIENT_INDEX = "by_recipient"
BY_TYPE_INDEX = "by_type"
BY_TAG_INDEX = "by_tag"
EVENT_PREFIX = "EVT#"  # of event items' pk (tag items' start TAG#)
_PARALLEL = 8  # concurrent partition counts of one request
_READ_BATCH = 200  # items a page query reads at a time (DynamoDB applies Limit before filters)
_STREAM_PAGE = 1000  # items an export reads at a time
SHARDS_SK = "SHARDS"
_TICK = timedelta(microseconds=1)  # the resolution of an event's time in its sk
T = TypeVar("T")


def event_pk(account_id: str, day: str, shard: int = 0) -> str:
    return f"{EVENT_PREFIX}{account_id}#{day_part(day, shard)}"


def sort_key(timestamp: datetime, event_id: str) -> str:
    return f"{timestamp:%Y-%m-%dT%H:%M:%S.%f}Z#{event_id}"


def event_sk(event: Event) -> str:
    return sort_key(event.timestamp, event.id)


def recipient_key(account_id: str, recipient: str) -> str:
    return f"{account_id}#{recipient.lower()}"


def type_key(account_id: str, day: str, event_type: str, shard: int = 0) -> str:
    return f"{account_id}#{day_part(day, shard)}#{event_type}"


def tag_pk(account_id: str, day: str, tag: str, shard: int = 0) -> str:
    return f"TAG#{account_id}#{day_part(day, shard)}#{tag}"


def tag_keys(account_id: str, event_pk_value: str, sk: str, tags: Iterable[str]) -> list[dict[str, Any]]:
    """The keys an event's tag items have, from its own item's key (which names its day and shard).
    An event with one distinct tag written since by_tag has none stored: deleting them is harmless."""
    day = event_pk_value.removeprefix(f"{EVENT_PREFIX}{account_id}#")[:10]
    shard = shard_of_key(event_pk_value)
    return [key(tag_pk(account_id, day, tag, shard), sk) for tag in dict.fromkeys(tags)]


def _one_tag(event: Event) -> str | None:
    """The event's tag when it has exactly one distinct tag: the by_tag index holds it."""
    tags = list(dict.fromkeys(event.tags))
    return tags[0] if len(tags) == 1 else None


def event_put(event: Event, attrs: dict[str, Any] | None = None, shards: int = 1) -> dict[str, Any]:
    """`attrs`: the event's attributes, when the caller has them already (event_items); `shards`:
    the account's count at the event's timestamp (sharding.py)."""
    return _event_item(event, attrs, shard_of(event.message_id, shards))


def _event_item(event: Event, attrs: dict[str, Any] | None, shard: int) -> dict[str, Any]:
    day = f"{event.timestamp:%Y-%m-%d}"
    attrs = to_attrs(event.model_dump(mode="json")) if attrs is None else attrs
    item = {**key(event_pk(event.account_id, day, shard), event_sk(event)), **attrs}
    if event.type.value not in DAY_READ_TYPES:  # the common types stay out of the sparse index
        item["type_key"] = {"S": type_key(event.account_id, day, event.type.value, shard)}
    if event.recipient is not None:  # message-level events stay out of the sparse index
        item["recipient_key"] = {"S": recipient_key(event.account_id, event.recipient)}
    if (tag := _one_tag(event)) is not None:  # instead of a tag item
        item["tag_key"] = {"S": tag_pk(event.account_id, day, tag, shard)}
    return item


def tag_puts(event: Event, attrs: dict[str, Any] | None = None, shards: int = 1) -> list[dict[str, Any]]:
    """One item per distinct tag of an event with several: the event under its tag's day
    partition (the event's shard), same sk and TTL. None for an event with one (by_tag).

    Only pk, sk, `event` and expires_at: no message_id/type_key/recipient_key/tag_key, so no
    index holds the copies."""
    if _one_tag(event) is not None:
        return []
    return _tag_items(event, attrs, shard_of(event.message_id, shards))


def _tag_items(event: Event, attrs: dict[str, Any] | None, shard: int) -> list[dict[str, Any]]:
    """Every tag's item (the backfill gives events stored before by_tag these, as they had)."""
    day = f"{event.timestamp:%Y-%m-%d}"
    attrs = to_attrs(event.model_dump(mode="json")) if attrs is None else attrs
    return [
        {
            **key(tag_pk(event.account_id, day, tag, shard), event_sk(event)),
            "event": {"M": attrs},
            "expires_at": attrs["expires_at"],
        }
        for tag in dict.fromkeys(event.tags)  # a repeated tag: one item (a batch refuses twice the same key)
    ]


def event_items(event: Event, shards: int = 1) -> list[dict[str, Any]]:
    """Everything one event stores: its item, then its tag items (the event serialized once).
    `shards`: the account's count at the event's timestamp (ShardDirectory.count_at)."""
    attrs = to_attrs(event.model_dump(mode="json"))
    return [event_put(event, attrs, shards), *tag_puts(event, attrs, shards)]


class ShardDirectory:
    """The accounts' shard schedules (sharding.py), kept CACHE_SECONDS per process: what writers
    read before writing events and readers before walking a day. One GetItem (0.5 read unit) per
    account and minute on a warm instance; an account never raised has no item."""

    _cache: dict[tuple[str, str], tuple[float, ShardSchedule]] = {}  # shared by every instance
    _lock = threading.Lock()

    def __init__(self, client: Any, table: str, *, cache_seconds: float = CACHE_SECONDS) -> None:
        self._db = client
        self._table = table
        self._cache_seconds = cache_seconds

    def schedule(self, account_id: str) -> ShardSchedule:
        now = time.monotonic()
        with self._lock:
            found = self._cache.get((self._table, account_id))
        if found is not None and now - found[0] < self._cache_seconds:
            return found[1]
        schedule = self._read(account_id, consistent=False)
        with self._lock:
            self._cache[(self._table, account_id)] = (now, schedule)
        return schedule

    def count_at(self, account_id: str, moment: datetime) -> int:
        return self.schedule(account_id).count_at(moment)

    def set_count(self, account_id: str, count: int, now: datetime) -> ShardSchedule:
        """Raises (or lowers) the account's count from RAISE_LEAD on; a change made meanwhile by
        another operator is read again and applied on top (the steps' version is the condition)."""
        return self._change(account_id, count, now, only_up=False)

    def raise_to(self, account_id: str, count: int, now: datetime) -> ShardSchedule:
        """At least `count` from RAISE_LEAD on (events/autoshard.py): when the schedule already ends
        at as many or more (another consumer raised it meanwhile), it is left as it is."""
        return self._change(account_id, count, now, only_up=True)

    def _change(self, account_id: str, count: int, now: datetime, *, only_up: bool) -> ShardSchedule:
        while True:
            current, version = self._read_versioned(account_id)
            if only_up and current.latest >= count:
                with self._lock:
                    self._cache[(self._table, account_id)] = (time.monotonic(), current)
                return current
            changed = current.raised(count, now)
            condition = "attribute_not_exists(pk)" if version is None else "version = :version"
            values: dict[str, Any] = {"L": [{"S": step} for step in changed.encode()]}
            request: dict[str, Any] = {
                "TableName": self._table,
                "Item": {
                    **key(shards_pk(account_id), SHARDS_SK),
                    "steps": values,
                    "version": {"N": str((version or 0) + 1)},
                },
                "ConditionExpression": condition,
            }
            if version is not None:
                request["ExpressionAttributeValues"] = {":version": {"N": str(version)}}
            if _written(self._db.put_item, **request):
                with self._lock:
                    self._cache.pop((self._table, account_id), None)
                return changed

    def _read(self, account_id: str, *, consistent: bool) -> ShardSchedule:
        return self._read_versioned(account_id, consistent=consistent)[0]

    def _read_versioned(self, account_id: str, *, consistent: bool = True) -> tuple[ShardSchedule, int | None]:
        found = self._db.get_item(
            TableName=self._table, Key=key(shards_pk(account_id), SHARDS_SK), ConsistentRead=consistent
        ).get("Item")
        if found is None:
            return ONE_SHARD, None
        return ShardSchedule.decode(step["S"] for step in found["steps"]["L"]), int(found["version"]["N"])


def _written(call: Callable[..., Any], **request: Any) -> bool:
    """Makes a conditional write; False when its condition failed (another writer got there first,
    or what it guarded expired meanwhile)."""
    try:
        call(**request)
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


def shards_pk(account_id: str) -> str:
    return f"SHARDS#{account_id}"


def event_of(attrs: dict[str, Any]) -> Event:
    """The event of an event item or of a tag item."""
    stored = attrs["event"]["M"] if "event" in attrs else attrs
    return Event.model_validate(from_attrs(stored))


class StreamRecords:
    """Reads the events table's stream (NEW_IMAGE records): the consumers' NewEvents port."""

    def new_events(self, records: list[dict[str, Any]]) -> list[Event]:
        return [event_of(record["dynamodb"]["NewImage"]) for record in _inserted_events(records)]

    def positioned_events(self, records: list[dict[str, Any]]) -> list[tuple[str, str, Event]]:
        """(events partition key, stream sequence number, event) of each new event, in stream order."""
        return [
            (
                record["dynamodb"]["Keys"]["pk"]["S"],
                record["dynamodb"]["SequenceNumber"],
                event_of(record["dynamodb"]["NewImage"]),
            )
            for record in _inserted_events(records)
        ]

    def write_seconds(self, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
        """(events partition key, epoch second) of each new event: when it entered the stream."""
        return [
            (record["dynamodb"]["Keys"]["pk"]["S"], int(stream_watermarks.stream_epoch(stamp)))
            for record in _inserted_events(records)
            if (stamp := record["dynamodb"].get("ApproximateCreationDateTime")) is not None
        ]


def _inserted_events(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # The template's FilterCriteria passes inserted events only (not their tag items); checked
    # again here for where no filter applies.
    return [
        record
        for record in records
        if record.get("eventName") == "INSERT" and record["dynamodb"]["Keys"]["pk"]["S"].startswith(EVENT_PREFIX)
    ]


@dataclass
class Backfilled:
    """What one backfill run wrote."""

    events: int = 0  # events given their index keys
    tag_items: int = 0

    def __add__(self, other: Backfilled) -> Backfilled:
        return Backfilled(self.events + other.events, self.tag_items + other.tag_items)


class _Deadline:
    """The request's time budget, shared by its threads: past it, every query stops."""

    def __init__(self, seconds: float) -> None:
        self._at = time.monotonic() + seconds
        self._stopped = threading.Event()

    @property
    def remaining(self) -> float:
        return self._at - time.monotonic()

    def check(self) -> None:
        if self._stopped.is_set() or self.remaining <= 0:
            self._stopped.set()
            raise TimeoutError("the events query ran out of its time budget")

    def stop(self) -> None:
        self._stopped.set()


def _filter_expression(account_id: str, plan: QueryPlan, *, tag_items: bool = False) -> dict[str, Any]:
    """FilterExpression for what the plan's key does not select (the window is the key range), on
    event items or (`tag_items`) on tag items."""
    residual: EventFilters = plan.residual
    clauses: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    # A tag item holds the event as its `event` map (and neither message_id nor recipient_key:
    # both filters read by a key of their own, before the tag, so they are never residual here).
    at = "#event." if tag_items else ""
    if plan.strategy is Strategy.MESSAGE:  # the index spans accounts: another's message id yields nothing
        clauses.append("account_id = :account")
        values[":account"] = {"S": account_id}
    if residual.message_id is not None:
        clauses.append("message_id = :message")
        values[":message"] = {"S": residual.message_id}
    if residual.recipient is not None:
        clauses.append("recipient_key = :recipient")
        values[":recipient"] = {"S": recipient_key(account_id, residual.recipient)}
    if residual.event is not None:
        clauses.append(f"{at}#type = :type")
        names["#type"] = "type"
        values[":type"] = {"S": residual.event}
    if residual.tag is not None:
        clauses.append("contains(tags, :tag)")
        values[":tag"] = {"S": residual.tag}
    for index, (name, value) in enumerate(sorted(residual.metadata.items())):
        clauses.append(f"{at}#metadata.#m{index} = :m{index}")
        names.update({"#metadata": "metadata", f"#m{index}": name})
        values[f":m{index}"] = {"S": value}
    for name in ("ip_pool", "ip"):  # the pool and address a copy left from (data.ip_pool, data.ip)
        value = getattr(residual, name)
        if value is not None:
            clauses.append(f"{at}#data.#{name} = :{name}")
            names.update({"#data": "data", f"#{name}": name})
            values[f":{name}"] = {"S": value}
    if at and clauses:
        names["#event"] = "event"
    expression: dict[str, Any] = {}
    if clauses:
        expression["FilterExpression"] = " AND ".join(clauses)
        expression["ExpressionAttributeValues"] = values
    if names:
        expression["ExpressionAttributeNames"] = names
    return expression


class DynamoEventStore:
    def __init__(self, client: Any, table: str, *, shards: ShardDirectory | None = None) -> None:
        self._db = client
        self._table = table
        self._shards = shards if shards is not None else ShardDirectory(client, table)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def for_message(self, message_id: str) -> list[Event]:
        """Oldest first. Eventually consistent (an index); fine for display and tests."""
        paginator = self._db.get_paginator("query")
        return [
            event_of(item)
            for page in paginator.paginate(
                TableName=self._table,
                IndexName=BY_MESSAGE_INDEX,
                KeyConditionExpression="message_id = :id",
                ExpressionAttributeValues={":id": {"S": message_id}},
            )
            for item in page["Items"]
        ]

    def day_events(self, account_id: str, day: str) -> list[Event]:
        """Every event of one account and UTC day (yyyy-mm-dd), oldest first within each of the
        day's shards, shard after shard (metrics backfill: it sorts them)."""
        paginator = self._db.get_paginator("query")
        shards = self._shards.schedule(account_id).shards_on(date.fromisoformat(day))
        return [
            event_of(item)
            for shard in range(shards)
            for page in paginator.paginate(
                TableName=self._table,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": event_pk(account_id, day, shard)}},
                ConsistentRead=True,
            )
            for item in page["Items"]
        ]

    def put(self, events: list[Event]) -> None:
        batch_write(
            self._db,
            [
                (self._table, item)
                for event in events
                for item in event_items(event, self._shards.count_at(event.account_id, event.timestamp))
            ],
        )

    def backfill_index_keys(self, *, segment: int, segments: int) -> Backfilled:
        """Gives events written before the by_recipient/by_type indexes their index keys, and events
        written before the tag items their tag items.

        A one-off migration for stacks deployed before those changes: one segment of a parallel
        Scan of the events lacking type_key or having tags, each write conditioned on what it adds
        still missing, so reruns and overlapping runs are harmless (a rerun reads every tagged
        event again and writes nothing). Returns how many events and tag items it wrote."""
        done = Backfilled()
        pages = self._db.get_paginator("scan").paginate(
            TableName=self._table,
            Segment=segment,
            TotalSegments=segments,
            FilterExpression="begins_with(pk, :events) AND ("
            "(attribute_not_exists(type_key) AND NOT (#type IN ("
            + ", ".join(f":t{n}" for n in range(len(DAY_READ_TYPES)))
            + "))) OR (attribute_not_exists(recipient_key) AND attribute_exists(recipient)) OR size(tags) > :none)",
            ExpressionAttributeNames={"#type": "type"},
            ExpressionAttributeValues={
                ":events": {"S": EVENT_PREFIX},
                ":none": {"N": "0"},
                **{f":t{n}": {"S": kind} for n, kind in enumerate(sorted(DAY_READ_TYPES))},
            },
        )
        for page in pages:
            for attrs in page["Items"]:
                event = event_of(attrs)
                shard = shard_of_key(attrs["pk"]["S"])  # the keys of the shard it is stored in
                if self._add_index_keys(attrs, _event_item(event, None, shard)):
                    done.events += 1
                if "tag_key" not in attrs:  # an event the by_tag index holds has no tag item
                    for item in _tag_items(event, None, shard):
                        done.tag_items += self._put_new(item)
        return done

    def _add_index_keys(self, attrs: dict[str, Any], keys: dict[str, Any]) -> bool:
        """Adds the by_type and by_recipient keys a write gives the event today and it lacks (an
        event without them is older than by_tag: its tag items, not tag_key, hold its tags; one of
        DAY_READ_TYPES gets no type_key). False when it lacks none, or another run added them."""
        names = [name for name in ("type_key", "recipient_key") if name in keys and name not in attrs]
        if not names:
            return False
        return _written(
            self._db.update_item,
            TableName=self._table,
            Key={"pk": attrs["pk"], "sk": attrs["sk"]},
            UpdateExpression="SET " + ", ".join(f"{name} = :{name}" for name in names),
            ConditionExpression=" AND ".join(["attribute_exists(pk)", *(f"attribute_not_exists({n})" for n in names)]),
            ExpressionAttributeValues={f":{name}": keys[name] for name in names},
        )

    def _put_new(self, item: dict[str, Any]) -> bool:
        return _written(
            self._db.put_item, TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(pk)"
        )

    # -- GET /v3/events ------------------------------------------------------------------------

    @traced  # the page's counts and reads (their Query calls, some in the pool's threads) as one
    def search(
        self,
        account_id: str,
        plan: QueryPlan,
        *,
        limit: int,
        count: bool,
        budget_seconds: float,
        known: KnownCount | None = None,
    ) -> SearchResult:
        """Up to `limit` events of the plan, newest first, and (when `count`) every match.

        Counting queries every partition of the window at once (Select=COUNT, a few in parallel),
        except the part `known` already counts (the roll-ups' counters): of a day inside it, nothing;
        of a day across its edges, only the sk ranges outside it. The page then reads only the
        partitions that hold matches, newest first, and says which those are so later pages skip
        the empty ones too. Raises TimeoutError past the budget.
        """
        deadline = _Deadline(budget_seconds)
        partitions: list[date | None] = list(plan.days) if not plan.single_partition else [None]
        schedule = ONE_SHARD if plan.single_partition else self._shards.schedule(account_id)
        shards = {p: schedule.shards_on(p) if p is not None else 1 for p in partitions}
        total: int | None = None
        days_with_events: tuple[date, ...] | None = None
        if count:  # a COUNT per shard of each partition left to count, all side by side
            ranges = [_uncounted(plan, p, known) for p in partitions]
            calls: list[Callable[[], int]] = [
                partial(self._count, account_id, plan, p, deadline, r, shard)
                for p, r in zip(partitions, ranges, strict=True)
                if r is not None
                for shard in range(shards[p])
            ]
            counts = iter(self._parallel(calls, deadline) if calls else [])
            found_in = [
                sum(next(counts) for _ in range(shards[p])) if r is not None else 0
                for p, r in zip(partitions, ranges, strict=True)
            ]
            total = sum(found_in) + (known.total if known is not None else 0)
            partitions = [
                p
                for p, n in zip(partitions, found_in, strict=True)
                if n or (known is not None and p is not None and p in known.days)
            ]
            if not plan.single_partition:
                days_with_events = tuple(day for day in partitions if day is not None)
        found: list[dict[str, Any]] = []
        for partition in partitions:  # limit + 1: the one past the page says whether there is more
            found += self._read(account_id, plan, partition, shards[partition], limit + 1 - len(found), deadline)
            if len(found) > limit:
                break
        return SearchResult(
            events=[event_of(item) for item in found[:limit]],
            has_more=len(found) > limit,
            total_count=total,
            days_with_events=days_with_events,
        )

    def stream(self, account_id: str, plan: QueryPlan) -> Iterator[Event]:
        """Every event of the plan, newest first, a page at a time (exports): no count, no budget.
        A day's shards are read side by side in sort-key order (merge_newest)."""
        partitions: list[date | None] = list(plan.days) if not plan.single_partition else [None]
        schedule = ONE_SHARD if plan.single_partition else self._shards.schedule(account_id)
        unbounded = _Deadline(math.inf)
        for partition in partitions:
            shards = schedule.shards_on(partition) if partition is not None else 1
            page_size = max(_STREAM_PAGE // shards, 100)
            sources = [
                self._items({**request, "ScanIndexForward": False, "Limit": page_size}, unbounded)
                for shard in range(shards)
                for request in self._queries(account_id, plan, partition, shard)
            ]
            for item in sources[0] if len(sources) == 1 else merge_newest(sources, _sk):
                yield event_of(item)

    def _queries(self, account_id: str, plan: QueryPlan, day: date | None, shard: int = 0) -> list[dict[str, Any]]:
        """The Queries of one partition (one shard of it), whose items are disjoint: one, or for a
        tag its tag items' partition and the by_tag index's partition of the same key."""
        request = self._query(account_id, plan, day, shard)
        if plan.strategy is not Strategy.TAG:
            return [request]
        indexed = self._query(account_id, plan, day, shard, tag_items=False)
        return [
            request,
            {
                **indexed,
                "IndexName": BY_TAG_INDEX,
                "KeyConditionExpression": indexed["KeyConditionExpression"].replace("pk = :key", "tag_key = :key", 1),
            },
        ]

    def _query(
        self, account_id: str, plan: QueryPlan, day: date | None, shard: int = 0, *, tag_items: bool = True
    ) -> dict[str, Any]:
        """The Query of one partition (one shard of it): its key, the window (up to the cursor) as
        sk range, the filters."""
        if plan.strategy is Strategy.MESSAGE:
            index, name, value = BY_MESSAGE_INDEX, "message_id", str(plan.key)
        elif plan.strategy is Strategy.RECIPIENT:
            index, name, value = BY_RECIPIENT_INDEX, "recipient_key", recipient_key(account_id, str(plan.key))
        elif plan.strategy is Strategy.TAG:
            index, name, value = None, "pk", tag_pk(account_id, f"{day:%Y-%m-%d}", str(plan.key), shard)
        elif plan.strategy is Strategy.TYPE:
            index, name = BY_TYPE_INDEX, "type_key"
            value = type_key(account_id, f"{day:%Y-%m-%d}", str(plan.key), shard)
        else:
            index, name, value = None, "pk", event_pk(account_id, f"{day:%Y-%m-%d}", shard)
        newest = sort_key(plan.window.until, "~")  # '~' sorts after every event id of that instant
        if plan.after is not None:
            newest = min(newest, _after_sk(plan.after))
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{name} = :key AND sk BETWEEN :oldest AND :newest",
            **_filter_expression(account_id, plan, tag_items=plan.strategy is Strategy.TAG and tag_items),
        }
        request["ExpressionAttributeValues"] = {
            **request.get("ExpressionAttributeValues", {}),
            ":key": {"S": value},
            ":oldest": {"S": sort_key(plan.window.since, "")},
            ":newest": {"S": newest},
        }
        if index is not None:
            request["IndexName"] = index
        return request

    def _count(
        self,
        account_id: str,
        plan: QueryPlan,
        day: date | None,
        deadline: _Deadline,
        ranges: list[tuple[str, str]] | None = None,
        shard: int = 0,
    ) -> int:
        """The shard's matches: in the whole window, or only in `ranges` (sk bounds, inclusive)."""
        total = 0
        bounds: list[tuple[str, str] | None] = [*ranges] if ranges else [None]
        for bound in bounds:
            for query in self._queries(account_id, plan, day, shard):
                request = {**query, "Select": "COUNT"}
                if bound is not None:
                    values = dict(request["ExpressionAttributeValues"])
                    values[":oldest"], values[":newest"] = {"S": bound[0]}, {"S": bound[1]}
                    request["ExpressionAttributeValues"] = values
                for page in self._pages(request, deadline):
                    total += page["Count"]
        return total

    def _read(
        self, account_id: str, plan: QueryPlan, day: date | None, shards: int, want: int, deadline: _Deadline
    ) -> list[dict[str, Any]]:
        """Up to `want` matching items of one partition, newest first, strictly after the cursor.

        One shard: one Query, paged on as before. More: each shard's first page side by side, a
        little over its even share of `want` (a shard that runs dry before the merged page is full
        reads on, one page at a time), merged by sk."""
        skip = _after_sk(plan.after) if plan.after is not None else None
        requests = [
            {**request, "ScanIndexForward": False}
            for shard in range(shards)
            for request in self._queries(account_id, plan, day, shard)
        ]
        spread = _spread(plan, filtered="FilterExpression" in requests[0])
        # One more than wanted: the cursor's own item may come first. Filters apply after Limit.
        whole = min(max(want + 1, _READ_BATCH) if spread is None else (want + 1) * spread, 1000)
        sources_n = len(requests)
        if sources_n == 1:
            sources = [self._items({**requests[0], "Limit": whole}, deadline, skip)]
        else:
            # a little over each shard's even share; filters of unknown selectivity: _READ_BATCH in all
            share = math.ceil((want + 1) * (spread or 1) * 2 / sources_n) + 1
            share = min(share if spread is not None else max(share, _READ_BATCH // sources_n), 1000)
            first = self._parallel(
                [partial(self._first_page, {**request, "Limit": share}, deadline) for request in requests], deadline
            )
            sources = [
                self._items({**request, "Limit": whole}, deadline, skip, page)
                for request, page in zip(requests, first, strict=True)
            ]
        return list(itertools.islice(sources[0] if sources_n == 1 else merge_newest(sources, _sk), want))

    def _first_page(self, request: dict[str, Any], deadline: _Deadline) -> dict[str, Any]:
        deadline.check()
        page: dict[str, Any] = self._db.query(**request)
        return page

    def _items(
        self,
        request: dict[str, Any],
        deadline: _Deadline,
        skip: str | None = None,
        first: dict[str, Any] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The request's items, page after page as they are consumed (from `first`, when read
        already), the cursor's own item (`skip`) left out."""
        if first is not None:
            yield from (item for item in first["Items"] if item["sk"]["S"] != skip)
            if "LastEvaluatedKey" not in first:
                return
            request = {**request, "ExclusiveStartKey": first["LastEvaluatedKey"]}
        for page in self._pages(request, deadline):
            yield from (item for item in page["Items"] if item["sk"]["S"] != skip)

    def _pages(self, request: dict[str, Any], deadline: _Deadline) -> Iterator[dict[str, Any]]:
        while True:
            deadline.check()
            page: dict[str, Any] = self._db.query(**request)
            yield page
            if "LastEvaluatedKey" not in page:
                return
            request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}

    def _parallel(self, calls: list[Callable[[], T]], deadline: _Deadline) -> list[T]:
        """Results in the order of `calls`; one call runs inline, more share the pool."""
        if len(calls) == 1:
            return [calls[0]()]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=_PARALLEL, thread_name_prefix="events-query")
            pool = self._pool
        futures: list[Future[T]] = [pool.submit(call) for call in calls]
        done, pending = wait(futures, timeout=max(deadline.remaining, 0), return_when=FIRST_EXCEPTION)
        if pending:  # a call failed or time ran out: the others stop at their next query
            deadline.stop()
            for future in pending:
                future.cancel()
            for future in done:
                future.result()  # raises the failure, if that was it
            raise TimeoutError("the events query ran out of its time budget")
        return [future.result() for future in futures]


def _spread(plan: QueryPlan, *, filtered: bool) -> int | None:
    """About how many items a Query reads for each match it returns: 1 unfiltered, TYPE_SPREAD for
    a type the by_type index does not hold (query.py: each a quarter to a third of the events) and
    nothing else; None for filters of unknown selectivity (read _READ_BATCH at a time)."""
    if not filtered:
        return 1
    residual: EventFilters = plan.residual
    if plan.strategy is Strategy.DAY and residual.event is not None and residual == EventFilters(event=residual.event):
        return TYPE_SPREAD
    return None


def _uncounted(plan: QueryPlan, day: date | None, known: KnownCount | None) -> list[tuple[str, str]] | None:
    """The sk ranges of a partition left to count: None for none, [] for the whole window's."""
    if known is None or day is None:
        return []
    start = datetime.combine(day, datetime.min.time(), tzinfo=known.since.tzinfo)
    end = start + timedelta(days=1)
    since, until = plan.window.since, plan.window.until
    ranges: list[tuple[str, str]] = []
    if max(since, start) < min(known.since, end):  # before the counted part
        ranges.append((sort_key(max(since, start), ""), sort_key(min(known.since, end) - _TICK, "~")))
    if max(known.until, start) < end and max(known.until, start) <= until:  # after it
        ranges.append((sort_key(max(known.until, start), ""), sort_key(min(until, end - _TICK), "~")))
    return ranges or None


def _sk(item: dict[str, Any]) -> str:
    return str(item["sk"]["S"])


def _after_sk(position: Position) -> str:
    return sort_key(position.timestamp, position.event_id)
