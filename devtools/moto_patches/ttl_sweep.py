"""DynamoDB's Time to Live and S3's lifecycle expiration in the emulator, on the runtime's clock.

Why: moto stores a table's TimeToLiveSpecification and never acts on it, so every item the
template marks as short-lived (idempotency keys, webhook attempts, sessions, rate windows, jobs)
stays for the life of the process: a `make run` left under load grew ~2,860 MB an hour
(docs/benchmarks.md, "Soak"). DynamoDB deletes an item, within a few days at most (usually
minutes), once the epoch seconds in its TTL attribute are past, and writes the deletion to the
table's stream as a REMOVE whose `userIdentity` is `{"type": "Service", "principalId":
"dynamodb.amazonaws.com"}`, the mark that tells a TTL deletion from a user's.

How: `sweep()` walks the items of every table whose TTL is ENABLED and deletes, through moto's own
`Table.delete_item` (so moto_query.py's views and the stream follow, and the stream record is
moto's own REMOVE), each item whose TTL attribute is a Number of epoch seconds before the
runtime's clock (stream_trims.now(): `POST /_postline/clock`) and no more than five years before
it (DynamoDB ignores older values, and attributes of other types); the record gets the service's
`userIdentity`. It deletes at most `limit` items a call, so the caller holds the emulator's
DynamoDB lock a bounded time. The emulator (devtools/local/emulator.py) runs it in a thread every
`POSTLINE_TTL_SWEEP_SECONDS` (60) and at once after the clock moves, as a request through its
snapshot gate and its one-DynamoDB-request-at-a-time lock (`POST /_postline/ttl-sweep`, which
answers `{"deleted": n, "more": bool}`; tests call it directly). Like DynamoDB, reads still see an
expired item until the sweep has deleted it.

S3: moto stores a bucket's lifecycle configuration and never applies it, so export files (and
imports, verification results) stayed in the emulator's memory. The same sweep deletes, through
moto's `delete_object`, each object of an unversioned bucket that an Enabled rule with
`Expiration.Days` and a prefix (the template's rules: `Prefix` or `Filter.Prefix`, no tags)
covers, once its age on the runtime's clock passes the days, rounded to the next midnight UTC as
S3 does. An object's age on the clock is its real `last_modified` plus how far ahead the clock
was at that moment (the clock's moves are remembered as they come; an object from before this
process counts at the present offset, so it expires no earlier than it should).

Nothing is replaced in moto; the guard checks what the sweep relies on: a table's TTL
specification as moto keeps it, `Table.delete_item` writing the REMOVE record as the stream's
last one, and a stream record's dict.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from typing import Any

from moto.dynamodb.models import DynamoDBBackend, dynamodb_backends
from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import StreamRecord, Table
from moto.s3.models import FakeKey, LifecycleRule, S3Backend

from devtools.moto_patches import stream_trims
from devtools.moto_patches.guarded import GuardedPatch

SERVICE_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
FIVE_YEARS_SECONDS = 5 * 365 * 86400  # DynamoDB does not delete items whose TTL is older than this
SWEEP_ENV = "POSTLINE_TTL_SWEEP_SECONDS"
sweep_seconds = float(os.environ.get(SWEEP_ENV, "60"))
LIMIT = 2_000  # items deleted a call: the DynamoDB lock is held for that many at most
clock_moved = threading.Event()  # set after the runtime's clock moves: the sweeper runs at once


def ttl_attribute(table: Table) -> str | None:
    ttl: dict[str, Any] = table.ttl
    if ttl.get("TimeToLiveStatus") != "ENABLED":
        return None
    name = ttl.get("AttributeName")
    return str(name) if name else None


def _stored(table: Table) -> Iterator[Item]:
    partitions: dict[Any, Any] = table.items  # hash -> Item, or hash -> range -> Item
    for partition in partitions.values():
        if table.range_key_attr is None:
            yield partition
        else:
            yield from partition.values()


def _expires_at(item: Item, attribute: str) -> float | None:
    value = item.attrs.get(attribute)
    if value is None or value.type != "N":
        return None
    try:
        return float(value.value)
    except (TypeError, ValueError):
        return None


def expired(table: Table, now: float) -> Iterator[Item]:
    """The table's items whose TTL is past at `now` (epoch seconds), in no particular order."""
    attribute = ttl_attribute(table)
    if attribute is None:
        return
    oldest = now - FIVE_YEARS_SECONDS
    for item in _stored(table):
        at = _expires_at(item, attribute)
        if at is not None and oldest <= at < now:
            yield item


_moves: list[tuple[float, float]] = []  # (real time, offset the clock was ahead from then on), in order
_moves_lock = threading.Lock()


def clock_moved_to(movable_now: float) -> None:
    """Remembers the clock's offset from now on (after stream_trims.set_clock has taken it)."""
    with _moves_lock:
        _moves.append((time.time(), stream_trims.now() - time.time()))
    clock_moved.set()


def clock_at(real: float) -> float:
    """The runtime's clock at the real instant `real` (epoch seconds), as far as it is known."""
    with _moves_lock:
        index = bisect.bisect_right(_moves, real, key=_first) - 1
        offset = _moves[index][1] if index >= 0 else (_moves[0][1] if _moves else stream_trims.now() - time.time())
    return real + offset


def _first(move: tuple[float, float]) -> float:
    return move[0]


def _expiring_rules(bucket: Any) -> list[tuple[str, float]]:
    """(prefix, days) of the bucket's rules that expire current objects by age."""
    rules = []
    for rule in bucket.rules:
        if rule.status != "Enabled" or not rule.expiration_days:
            continue
        if rule.filter is not None and (rule.filter.tag_key or rule.filter.and_filter):
            continue  # tag filters: none in the template
        prefix = rule.prefix if rule.prefix is not None else (rule.filter.prefix if rule.filter else None)
        rules.append((prefix or "", float(rule.expiration_days)))
    return rules


def _expires(created: float, days: float) -> float:
    """S3: an object expires at the midnight UTC after its creation plus the rule's days."""
    due = created + days * 86400
    return math.ceil(due / 86400) * 86400


def expired_objects(now: float) -> Iterator[tuple[Any, Any, str]]:
    """(backend, bucket, key name) of objects past their lifecycle expiration at `now`."""
    from moto.s3.models import s3_backends

    for regions in s3_backends.values():
        for backend in regions.values():
            for bucket in list(backend.buckets.values()):
                rules = _expiring_rules(bucket) if not bucket.is_versioned else []
                if not rules:
                    continue
                for name, key in list(bucket.keys.items()):
                    created = clock_at(key.last_modified.replace(tzinfo=UTC).timestamp())
                    if any(name.startswith(prefix) and _expires(created, days) <= now for prefix, days in rules):
                        yield backend, bucket, name


def _tables() -> Iterator[Table]:
    for regions in dynamodb_backends.values():
        backend: DynamoDBBackend
        for backend in regions.values():
            yield from backend.tables.values()


def sweep(now: float | None = None, limit: int = LIMIT) -> tuple[int, bool]:
    """Deletes up to `limit` items past their TTL at `now` (the runtime's clock by default) as
    DynamoDB's TTL does, then S3 objects past their lifecycle expiration; answers (how many,
    whether more are due). Call it under the emulator's
    DynamoDB lock (never inside a transaction)."""
    at = stream_trims.now() if now is None else now
    deleted = 0
    for table in list(_tables()):
        due = list(expired(table, at))  # collected first: deleting changes the dicts walked
        for item in due:
            if deleted == limit:
                return deleted, True
            shard = table.stream_shard
            written = len(shard.items) if shard is not None else 0
            if table.delete_item(item.hash_key, item.range_key) is None:
                continue
            deleted += 1
            if shard is not None and len(shard.items) == written + 1:
                shard.items[-1].record["userIdentity"] = dict(SERVICE_IDENTITY)
    for backend, bucket, name in list(expired_objects(at)):
        if deleted == limit:
            return deleted, True
        backend.delete_object(bucket.name, name)
        deleted += 1
    return deleted, False


def due(now: float | None = None) -> bool:
    """Whether anything is past its TTL or lifecycle expiration at `now` (it only reads)."""
    at = stream_trims.now() if now is None else now
    return any(next(expired(table, at), None) is not None for table in list(_tables())) or (
        next(expired_objects(at), None) is not None
    )


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus `POST <path>`: one sweep (at most LIMIT deletions), answering {"deleted", "more"};
    `GET <path>`: whether one is due, {"due": bool} (it changes nothing: the emulator asks it around
    its snapshot gate, so an idle runtime's state is not counted as changed each minute)."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            return app(environ, start_response)  # type: ignore[no-any-return]
        if environ.get("REQUEST_METHOD") == "GET":
            data = json.dumps({"due": due()}).encode()
        else:
            deleted, more = sweep()
            data = json.dumps({"deleted": deleted, "more": more}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]

    return serve


def clock_wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`; after a request to the clock's `path`, the sweeper runs at once (`clock_moved`)."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        answer: Iterable[bytes] = app(environ, start_response)
        if environ.get("PATH_INFO") == path:
            clock_moved_to(stream_trims.now())
        return answer

    return serve


def sweeper(run: Callable[[], bool], stop: threading.Event) -> threading.Thread:
    """A daemon thread calling `run` (one sweep through the emulator's WSGI stack; True when more
    are due) every `sweep_seconds`, at once after the clock moves, and again while more are due."""

    def loop() -> None:
        while not stop.is_set():
            clock_moved.wait(sweep_seconds)
            clock_moved.clear()
            while not stop.is_set() and run():
                pass

    thread = threading.Thread(target=loop, name="ttl-sweep", daemon=True)
    thread.start()
    return thread


_PATCH = GuardedPatch(
    "devtools/moto_patches/ttl_sweep.py",
    [],
    {  # what it relies on, as moto 5.2.5 writes it
        "Table.__init__": (lambda: Table.__init__, ('"TimeToLiveStatus": "DISABLED"',)),
        "DynamoDBBackend.update_time_to_live": (
            lambda: DynamoDBBackend.update_time_to_live,
            ('table.ttl["TimeToLiveStatus"] = "ENABLED"', 'table.ttl["AttributeName"] = ttl_spec["AttributeName"]'),
        ),
        # moto's own, which moto_query.py may have wrapped (its wrapper calls it): read in its module.
        "Table.delete_item": (
            lambda: sys.modules[Table.__module__],
            ("item = self.items[hash_key].pop(range_key)", "self.stream_shard.add(item, None)"),
        ),
        # moto's own, which stream_trims.py wraps: read in its module.
        "LifecycleRule.__init__": (
            lambda: LifecycleRule.__init__,
            ("self.prefix = prefix", "self.filter = lc_filter", "self.expiration_days = expiration_days"),
        ),
        "FakeKey.__init__": (lambda: FakeKey.__init__, ("self.last_modified = utcnow()",)),
        "S3Backend.delete_object": (lambda: S3Backend.delete_object, ("bucket = self.get_bucket(bucket_name)",)),
        "StreamRecord.__init__": (lambda: sys.modules[StreamRecord.__module__], ("self.record: dict[str, Any] = {",)),
    },
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
