"""Loading many events fast: straight into the emulator's moto tables, in the emulator's process.

A million PutItems over HTTP would take the best part of an hour on moto; the bench instead
starts the runtime with POSTLINE_EMULATOR_EXTENSION=bench.seed, and the emulator child then
serves POST /_emulator/events (one at a time with DynamoDB requests), which writes the items
into moto's table directly: no stream records (no webhooks for a million old events), no
per-request cost. Each item is the project's own encoding (events/store.py `event_put`, and
`tag_puts` for the tag items written with each event), so the table's and the indexes' keys are
what the service writes. The Query patch's views are dropped afterwards (moto_query.forget) and
rebuilt at once (moto_query.warm), inside the load. With `counters_table`, the load also adds the
roll-ups the metrics consumer would have made of those events (`rollups`: the metrics counters and
the events query's counters, by the project's own functions) and marks the account's event
counters complete from the seed's first day, as the metrics backfill would.

The events, newest first, `step` seconds apart ending at `until`: messages of 4 events each
(queued, sent, delivered, opened/clicked/bounced), recipients from a pool, three tag sets, and
metadata {"plan": "pro" on one message in 10, else "free"; "user": the recipient's number}.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import TypeAdapter

from postline.events.domain import Event, EventType, event_id
from postline.events.query import DAY_READ_TYPES
from postline.events.sharding import shard_of
from postline.events.store import event_pk, event_put, recipient_key, sort_key, tag_pk, tag_puts, type_key
from postline.shared.dynamo import to_value

PATH = "/_emulator/events"
EXTENSION = "bench.seed"
_TYPES = (EventType.QUEUED, EventType.SENT, EventType.DELIVERED)
_LAST = (EventType.OPENED, EventType.CLICKED, EventType.BOUNCED, EventType.OPENED)
_TAGS = (["receipt"], ["newsletter"], ["newsletter", "weekly"])
TAG = "weekly"  # on one message in three
PLAN = "pro"  # metadata plan of one message in ten
_CHECKED = 64  # events compared with the project's own encoding
_NOT_IN_TAG_ITEMS = frozenset({"pk", "sk", "type_key", "recipient_key", "tag_key"})  # the rest is a tag item's `event`
_DATETIME = TypeAdapter(datetime)


@dataclass(frozen=True)
class Seed:
    table: str
    account_id: str
    count: int
    until: datetime
    step_seconds: float
    recipients: int = 10_000
    prefix: str = "b"  # of message ids: distinct per load
    shards: int = 1  # the account's shard count over the whole seed (events/sharding.py)

    def recipient(self, message: int) -> str:
        return f"reader{message % self.recipients}@example.com"


def _event(seed: Seed, index: int) -> Event:
    message = index // 4
    kind = _TYPES[index % 4] if index % 4 < 3 else _LAST[message % len(_LAST)]
    at = seed.until - timedelta(seconds=index * seed.step_seconds)
    message_id = f"msg_{seed.prefix}{message:010d}"
    recipient = seed.recipient(message)
    return Event(
        id=event_id(message_id, kind, recipient),
        account_id=seed.account_id,
        type=kind,
        message_id=message_id,
        recipient=recipient,
        timestamp=at,
        tags=_TAGS[message % 3],
        metadata={"plan": PLAN if message % 10 == 0 else "free", "user": f"u{message % seed.recipients}"},
        data={"smtp_response": "250 2.0.0 OK"} if kind is EventType.DELIVERED else {},
        created_at=at,
        expires_at=int((seed.until + timedelta(days=400)).timestamp()),
    )


def events(seed: Seed) -> Iterator[Event]:
    """The seed's events as the service would store them (slow: pydantic and JSON per event)."""
    for index in range(seed.count):
        yield _event(seed, index)


def load(table: Any, seed: Seed) -> int:
    """Puts the seed's events into a moto Table as put_item would store `event_put(event)` and its
    `tag_puts(event)`, about ten times faster: attribute values are built directly, values many
    events share are shared (events are never updated), and put_item's per-item checks (quadratic
    in the attributes) and stream records are skipped. The first events are checked against
    event_put and tag_puts themselves. Returns the number of events (not of items)."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

    def text(value: str) -> DynamoType:
        made = DynamoType.__new__(DynamoType)
        made.type, made.value = "S", value
        return made

    shared: dict[str, DynamoType] = {}

    def common(value: Any) -> DynamoType:
        name = value if isinstance(value, str) else repr(value)
        found = shared.get(name)
        if found is None:
            found = shared[name] = text(value) if isinstance(value, str) else DynamoType(to_value(value))
        return found

    for index in range(seed.count):
        event = _event(seed, index) if index < _CHECKED else None
        message = index // 4
        kind = _TYPES[index % 4] if index % 4 < 3 else _LAST[message % len(_LAST)]
        at = seed.until - timedelta(seconds=index * seed.step_seconds)
        stamp = _DATETIME.dump_python(at, mode="json")  # as Event.model_dump(mode="json") writes it
        day = f"{at:%Y-%m-%d}"
        message_id = f"msg_{seed.prefix}{message:010d}"
        recipient = seed.recipient(message)
        identifier = event_id(message_id, kind, recipient)
        shard = shard_of(message_id, seed.shards)
        attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.update(
            attrs,
            {
                "pk": common(event_pk(seed.account_id, day, shard)),
                "sk": text(sort_key(at, identifier)),
                "id": text(identifier),
                "account_id": common(seed.account_id),
                "type": common(kind.value),
                "message_id": text(message_id),
                "recipient": common(recipient),
                "timestamp": text(stamp),
                "tags": common(_TAGS[message % 3]),
                "metadata": common(
                    {"plan": PLAN if message % 10 == 0 else "free", "user": f"u{message % seed.recipients}"}
                ),
                "headers": common({}),
                "data": common({"smtp_response": "250 2.0.0 OK"} if kind is EventType.DELIVERED else {}),
                "created_at": text(stamp),
                "expires_at": common(int((seed.until + timedelta(days=400)).timestamp())),
                "recipient_key": common(recipient_key(seed.account_id, recipient)),
            },
        )
        if kind.value not in DAY_READ_TYPES:  # the sparse by_type index holds the rarer types only
            dict.__setitem__(attrs, "type_key", common(type_key(seed.account_id, day, kind.value, shard)))
        tags = _TAGS[message % 3]
        if len(tags) == 1:  # one tag: the by_tag index holds the event, no tag item
            dict.__setitem__(attrs, "tag_key", common(tag_pk(seed.account_id, day, tags[0], shard)))
        item: Item = Item.__new__(Item)  # type: ignore[assignment]
        item.hash_key, item.range_key, item.attrs = attrs["pk"], attrs["sk"], attrs
        if event is not None and item.to_json()["Attributes"] != event_put(event, shards=seed.shards):
            raise AssertionError(f"bench.seed encodes event {index} unlike events/store.py: {event_put(event)}")
        table.items[item.hash_key][item.range_key] = item
        copy = DynamoType.__new__(DynamoType)  # one `event` map shared by the event's tag items
        copy.type, copy.value = "M", {name: value for name, value in attrs.items() if name not in _NOT_IN_TAG_ITEMS}
        tag_items: list[Item] = []
        for tag in tags if len(tags) > 1 else []:
            tag_attrs = LimitedSizeDict.__new__(LimitedSizeDict)
            pk = common(tag_pk(seed.account_id, day, tag, shard))
            dict.update(tag_attrs, {"pk": pk, "sk": attrs["sk"], "event": copy, "expires_at": attrs["expires_at"]})
            tag_item: Item = Item.__new__(Item)  # type: ignore[assignment]
            tag_item.hash_key, tag_item.range_key, tag_item.attrs = pk, attrs["sk"], tag_attrs
            table.items[pk][attrs["sk"]] = tag_item
            tag_items.append(tag_item)
        stored_tags = [stored.to_json()["Attributes"] for stored in tag_items]
        if event is not None and stored_tags != tag_puts(event, shards=seed.shards):
            raise AssertionError(f"bench.seed encodes event {index}'s tag items unlike events/store.py")
    return seed.count


def rollups(seed: Seed) -> tuple[dict[tuple[str, str], dict[str, int]], date]:
    """The roll-up items the metrics consumer would have written for the seed's events (the
    metrics counters and the events query's counters, by the project's own functions), as
    (pk, sk) -> attributes, and the seed's first UTC day. Events are built without validation
    (model_construct): a million take a few seconds, not minutes. Each message's one open or
    click is its first, so it also counts as unique, as the consumer would count it. Each metrics
    hour item carries `v`, the count of writes that reached it (metrics/store.py VERSION, packing's
    guard), here one per event added to it, as if each event had come in a stream batch of its own."""
    from postline.events.count_store import count_expiry, count_pk, count_sk
    from postline.events.counts import count_additions
    from postline.metrics.domain import Counter, contribution
    from postline.metrics.service import _additions
    from postline.metrics.store import VERSION, rollup_pk, rollup_sk

    items: dict[tuple[str, str], dict[str, int]] = {}

    def add(pk: str, sk: str, values: dict[str, int], expires: int) -> None:
        target = items.setdefault((pk, sk), {})
        for name, value in values.items():
            target[name] = target.get(name, 0) + value
        target["expires_at"] = max(target.get("expires_at", 0), expires)

    first = seed.until.date()
    for index in range(seed.count):
        message = index // 4
        kind = _TYPES[index % 4] if index % 4 < 3 else _LAST[message % len(_LAST)]
        at = seed.until - timedelta(seconds=index * seed.step_seconds)
        first = min(first, at.date())
        event = Event.model_construct(
            id="",
            account_id=seed.account_id,
            type=kind,
            message_id=f"msg_{seed.prefix}{message:010d}",
            recipient=seed.recipient(message),
            timestamp=at,
            created_at=at,
            tags=_TAGS[message % 3],
            data={},
            sending_domain=None,
            template_id=None,
            expires_at=int((seed.until + timedelta(days=400)).timestamp()),
        )
        for counted, values in count_additions(event).items():
            pk, sk = count_pk(counted.account_id, counted.series), count_sk(counted.day, counted.hours)
            add(pk, sk, values, count_expiry(counted.day))
        plan = contribution(event)
        if plan is None:
            continue
        counters = dict(plan.counters)
        if plan.unique is not None:
            counters[Counter.UNIQUE_OPENS if plan.unique == "open" else Counter.UNIQUE_CLICKS] = 1
        for rolled, values in _additions(event, counters, plan.latencies, plan.series).items():
            pk, sk = rollup_pk(rolled.account_id, rolled.mode, rolled.day), rollup_sk(rolled.series, rolled.hour)
            add(pk, sk, {**values, VERSION: 1}, event.expires_at)
    return items, first


def load_rollups(table: Any, seed: Seed) -> int:
    """Adds the seed's roll-up items to the counters table (to what an earlier load wrote), and
    marks the account's event counters complete from the seed's first day (the backfill's mark).
    Returns the number of items."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    from postline.events.count_store import coverage_key

    items, first = rollups(seed)
    for (pk, sk), values in items.items():
        stored = table.get_item(DynamoType({"S": pk}), DynamoType({"S": sk}))
        merged = dict(values)
        if stored is not None:
            for name, value in stored.to_json()["Attributes"].items():
                if name not in ("pk", "sk", "expires_at") and "N" in value:
                    merged[name] = merged.get(name, 0) + int(value["N"])
        attrs = {"pk": {"S": pk}, "sk": {"S": sk}, **{name: {"N": str(value)} for name, value in merged.items()}}
        table.put_item(attrs)
    cover = coverage_key(seed.account_id)
    stored = table.get_item(DynamoType(cover["pk"]), DynamoType(cover["sk"]))
    known = stored.to_json()["Attributes"] if stored is not None else {}
    earlier = known.get("complete_from", {}).get("S")
    complete = min(f"{first}", earlier) if earlier else f"{first}"
    table.put_item({**known, **cover, "complete_from": {"S": complete}})
    return len(items)


def _serve_load(body: dict[str, Any]) -> dict[str, Any]:
    from moto.dynamodb.models import dynamodb_backends

    from devtools.local.cloudformation import ACCOUNT_ID, REGION
    from devtools.moto_patches import moto_query

    seed = Seed(
        table=body["table"],
        account_id=body["account_id"],
        count=int(body["count"]),
        until=datetime.fromisoformat(body["until"]),
        step_seconds=float(body["step_seconds"]),
        prefix=str(body["prefix"]),
        shards=int(body.get("shards", 1)),
    )
    tables = dynamodb_backends[ACCOUNT_ID][REGION].tables
    table = tables[seed.table]
    began = time.perf_counter()
    loaded = load(table, seed)
    moto_query.forget(table)
    moto_query.warm(table)  # in this request, not in the first API call's (a million events: >10 s)
    rollup_items = 0
    if body.get("counters_table"):  # the roll-ups the consumer would have made of these events
        counters = tables[body["counters_table"]]
        rollup_items = load_rollups(counters, seed)
        moto_query.forget(counters)
        moto_query.warm(counters)
    return {"loaded": loaded, "rollup_items": rollup_items, "seconds": time.perf_counter() - began}


def wsgi(app: Callable[..., Any]) -> Callable[..., Any]:
    """The emulator extension (see devtools.local.emulator): POST /_emulator/events loads a Seed."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") != "POST":
            return app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        reply = json.dumps(_serve_load(json.loads(environ["wsgi.input"].read(length)))).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(reply)))])
        return [reply]

    return serve
