"""moto's Query, reading only the partition (or index key) it names.

Why: moto 5.2's `Table.query` sorts every item of the table (`all_items()`, all partitions) on every
Query, then keeps the ones of the key asked for; an index Query compares every item's index key.
A Query therefore costs time in proportion to the whole table (an events table of 1,000,000 items:
seconds per page), where DynamoDB reads only the partition, from the start of the key range.

How: beside moto's items, each table keeps "views": its partitions (hash -> items sorted by range
key) and, per index queried, index hash -> items sorted the way moto sorts an index Query (the
index's range key, then the table's keys). A Query bisects its key condition and its
ExclusiveStartKey in the one sorted list and walks only the page, with moto's own rules: Limit
counts key matches, a page stops before 1 MB (item sizes are cached), LastEvaluatedKey as moto
writes it, then the index projection, the FilterExpression and the ProjectionExpression. Results
are not deep-copied (moto copies every result, then only serializes them: see the guard). Views
are built on a table's first Query and then kept current by hooks on every way moto changes an
item: Table.put_item, Table.delete_item and DynamoDBBackend.update_item (which edits an item in
place). Whatever changes `Table.items` another way must call `forget(table)` (moto_transactions'
rollback does). Query shapes the project never uses (multi-attribute keys, the legacy
KeyConditions/QueryFilter, an unknown index, ...) go to moto's own query, unchanged.

Guard: `install()` checks the moto internals this relies on and raises if they changed, so a
moto upgrade stops the emulator (and its tests) loudly instead of answering differently.
"""

from __future__ import annotations

import threading
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import moto.dynamodb.responses as dynamodb_responses
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, GlobalSecondaryIndex, Table

from devtools.moto_patches.guarded import GuardedPatch, Replacement

# moto refuses items above 405,000 bytes (LimitedSizeDict): no larger item can end a page.
_MAX_ITEM_SIZE = 405_000
_RANGE_OPERATORS = frozenset({"=", "<", "<=", ">", ">=", "BETWEEN", "BEGINS_WITH"})
_first = itemgetter(0)
_lock = threading.RLock()  # views change with the items; moto in-process may be called from threads
_updating = threading.local()


class _Bypass:
    active = False


_bypass = _Bypass()


@dataclass
class _Sorted:
    """One key's items, sorted by `keys` (tuples of cast values, unique within the key)."""

    keys: list[tuple[Any, ...]] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)

    def add(self, key: tuple[Any, ...], item: Item) -> None:
        at = bisect_left(self.keys, key)
        if at < len(self.keys) and self.keys[at] == key:
            self.items[at] = item
        else:
            self.keys.insert(at, key)
            self.items.insert(at, item)

    def remove(self, key: tuple[Any, ...]) -> None:
        at = bisect_left(self.keys, key)
        if at < len(self.keys) and self.keys[at] == key:
            del self.keys[at]
            del self.items[at]


@dataclass
class _View:
    """The table's partitions or one index's keys: key value -> its items, sorted as moto sorts them."""

    hash_attr: str
    sort_attrs: tuple[str, ...]  # after the hash, as moto's _generate_attr_to_sort_by orders them
    required: tuple[str, ...]  # attributes an item needs to be in the view
    buckets: dict[DynamoType, _Sorted] = field(default_factory=dict)

    def place(self, item: Item) -> tuple[DynamoType, tuple[Any, ...]] | None:
        attrs = item.attrs
        if any(name not in attrs for name in self.required):
            return None
        return attrs[self.hash_attr], tuple(attrs[name].cast_value for name in self.sort_attrs)

    def add(self, item: Item) -> None:
        placed = self.place(item)
        if placed is not None:
            self.buckets.setdefault(placed[0], _Sorted()).add(placed[1], item)

    def remove(self, placed: tuple[DynamoType, tuple[Any, ...]] | None) -> None:
        if placed is None:
            return
        bucket = self.buckets.get(placed[0])
        if bucket is not None:
            bucket.remove(placed[1])
            if not bucket.keys:
                del self.buckets[placed[0]]


@dataclass
class _Views:
    signature: tuple[Any, ...]
    views: dict[str | None, _View] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)  # id(item) -> item.size(), items in the table only

    def size(self, item: Item) -> int:
        found = self.sizes.get(id(item))
        if found is None:
            found = self.sizes[id(item)] = item.size()
        return found


_tables: weakref.WeakKeyDictionary[Table, _Views] = weakref.WeakKeyDictionary()


def _signature(table: Table) -> tuple[Any, ...]:
    """What the views depend on besides the items: keys and indexes (UpdateTable may add an index)."""
    return (
        table.hash_key_attr,
        table.range_key_attr,
        tuple((index.name, repr(index.schema)) for index in table.all_indexes()),
    )


def _stored(table: Table) -> Iterator[Item]:
    partitions: dict[DynamoType, Any] = table.items  # hash -> Item, or hash -> range -> Item
    for partition in partitions.values():
        if table.range_key_attr is None:
            yield partition
        else:
            yield from partition.values()


def _make_view(table: Table, index_name: str | None) -> _View | None:
    """The view of a table or one of its indexes; None for key schemas this module leaves to moto."""
    if index_name is None:
        hash_attrs: list[str] = [table.hash_key_attr]
        range_attrs: list[str | None] = [table.range_key_attr]
        required = tuple(name for name in (table.hash_key_attr, table.range_key_attr) if name)
        hash_attr = table.hash_key_attr
    else:
        index = {i.name: i for i in table.all_indexes()}.get(index_name)
        if index is None:
            return None
        hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        ranges = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
        if len(hashes) != 1 or len(ranges) > 1:
            return None
        hash_attr = hashes[0]
        # As moto's query builds them (see Table.query).
        hash_attrs = [hash_attr, table.hash_key_attr]
        if ranges:
            range_attrs = [ranges[0], table.range_key_attr]
        elif isinstance(index, GlobalSecondaryIndex) and table.range_key_attr:
            range_attrs = [table.range_key_attr, table.range_key_attr]
        else:
            range_attrs = [table.hash_key_attr, table.range_key_attr]
        required = (hash_attr, *ranges)
    order = table._generate_attr_to_sort_by(hash_attrs, range_attrs)
    if not order or order[0] != hash_attr:
        return None
    return _View(hash_attr, tuple(order[1:]), required)


def _views(table: Table) -> _Views:
    views = _tables.get(table)
    if views is None or views.signature != _signature(table):
        views = _tables[table] = _Views(_signature(table))
    return views


def _view(table: Table, index_name: str | None) -> _View | None:
    views = _views(table)
    if index_name not in views.views:
        view = _make_view(table, index_name)
        if view is None:
            return None
        placed: dict[DynamoType, list[tuple[tuple[Any, ...], Item]]] = {}
        for item in _stored(table):
            place = view.place(item)
            if place is not None:
                placed.setdefault(place[0], []).append((place[1], item))
        for hash_value, entries in placed.items():
            entries.sort(key=_first)
            view.buckets[hash_value] = _Sorted([key for key, _ in entries], [item for _, item in entries])
        views.views[index_name] = view
    return views.views[index_name]


def forget(table: Table) -> None:
    """Drops a table's views after its items changed behind moto's methods; rebuilt on the next Query."""
    with _lock:
        _tables.pop(table, None)


def warm(table: Table) -> None:
    """Builds the views of a table and of each of its indexes now: after a bulk load, the next
    Query would otherwise sort every item it holds (seconds for a million) inside a caller's request."""
    with _lock:
        for index_name in (None, *(index.name for index in table.all_indexes())):
            _view(table, index_name)


# -- keeping the views current ------------------------------------------------------------------


def _replaced(table: Table, old: Item | None, new: Item | None, old_places: dict[str | None, Any]) -> None:
    views = _tables.get(table)
    if views is None:
        return
    if old is not None:
        views.sizes.pop(id(old), None)
    for name, view in views.views.items():
        if old is not None:
            view.remove(old_places.get(name))
        if new is not None:
            view.add(new)


def _places(table: Table, item: Item | None) -> dict[str | None, Any]:
    views = _tables.get(table)
    if views is None or item is None:
        return {}
    return {name: view.place(item) for name, view in views.views.items()}


def _current(table: Table, hash_value: DynamoType, range_value: DynamoType | None) -> Item | None:
    """The stored item at a key, without moto's defaultdict adding an empty partition."""
    partitions: dict[DynamoType, Any] = table.items
    partition = partitions.get(hash_value)
    if partition is None or table.range_key_attr is None:
        return partition
    found: Item | None = partition.get(range_value)
    return found


def _put_item(self: Table, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Item:
    with _lock:
        old = None
        if self in _tables and not getattr(_updating, "active", False):
            old = _key_of(self, item_attrs)
        old_item = _current(self, *old) if old is not None else None
        places = _places(self, old_item)
        item: Item = _PATCH.original(_PUT)(self, item_attrs, *args, **kwargs)
        if not getattr(_updating, "active", False):
            _replaced(self, old_item, item, places)
        return item


def _key_of(table: Table, attrs: dict[str, Any]) -> tuple[DynamoType, DynamoType | None] | None:
    try:
        hash_value = DynamoType(attrs[table.hash_key_attr])
        range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
    except (KeyError, IndexError, TypeError):
        return None  # moto refuses it
    return hash_value, range_value


def _delete_item(self: Table, hash_key: DynamoType, range_key: DynamoType | None) -> Item | None:
    with _lock:
        places = _places(self, _current(self, hash_key, range_key))
        item: Item | None = _PATCH.original(_DELETE)(self, hash_key, range_key)
        if item is not None:
            _replaced(self, item, None, places)
        return item


def _update_item(self: DynamoDBBackend, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> Item:
    """moto edits the item in place: its places in the views are taken before, and set after."""
    with _lock:
        table = self.tables.get(table_name)
        if table is None or table not in _tables:
            return _PATCH.original(_UPDATE)(self, table_name, key, *args, **kwargs)  # type: ignore[no-any-return]
        found = _key_of(table, key) if table.hash_key_attr in key else None
        before = _current(table, *found) if found is not None else None
        places = _places(table, before)
        _updating.active = True
        try:
            return _PATCH.original(_UPDATE)(self, table_name, key, *args, **kwargs)  # type: ignore[no-any-return]
        finally:
            _updating.active = False
            after = _current(table, *found) if found is not None else None
            if before is not None or after is not None:
                _replaced(table, before, after, places)


# -- the Query --------------------------------------------------------------------------------


def _query(
    self: Table,
    hash_key: DynamoType | None,
    range_comparison: str | None,
    range_objs: list[DynamoType],
    limit: int,
    exclusive_start_key: dict[str, Any] | None,
    scan_index_forward: bool,
    projection_expressions: list[list[str]] | None,
    index_name: str | None = None,
    consistent_read: bool = False,
    filter_expression: Any = None,
    hash_key_conditions: list[tuple[str, DynamoType]] | None = None,
    range_key_conditions: list[tuple[str, str, list[DynamoType]]] | None = None,
    **filter_kwargs: Any,
) -> tuple[list[Item], int, dict[str, Any] | None]:
    with _lock:
        found = None
        if not filter_kwargs and not _bypass.active:
            found = _fast_query(
                self,
                index_name,
                consistent_read,
                hash_key_conditions or [],
                range_key_conditions or [],
                limit,
                exclusive_start_key,
                scan_index_forward,
            )
        if found is None:
            return _PATCH.original(_QUERY)(  # type: ignore[no-any-return]
                self,
                hash_key,
                range_comparison,
                range_objs,
                limit,
                exclusive_start_key,
                scan_index_forward,
                projection_expressions,
                index_name,
                consistent_read,
                filter_expression,
                hash_key_conditions=hash_key_conditions,
                range_key_conditions=range_key_conditions,
                **filter_kwargs,
            )
        results, last_evaluated_key = found
        scanned_count = len(results)
        if index_name:
            index = self.get_index(index_name)
            results = [index.project(r) for r in results]
        if filter_expression is not None:
            results = [item for item in results if filter_expression.expr(item)]
        if projection_expressions:
            results = [r.project(projection_expressions) for r in results]
        return results, scanned_count, last_evaluated_key


def _fast_query(
    table: Table,
    index_name: str | None,
    consistent_read: bool,
    hash_conditions: list[tuple[str, DynamoType]],
    range_conditions: list[tuple[str, str, list[DynamoType]]],
    limit: int | None,
    exclusive_start_key: dict[str, Any] | None,
    scan_index_forward: bool,
) -> tuple[list[Item], dict[str, Any] | None] | None:
    """The page moto's query would return before projecting and filtering, and its LastEvaluatedKey;
    None when moto must answer (a shape this module does not handle, or one moto refuses)."""
    if index_name:
        index = {i.name: i for i in table.all_indexes()}.get(index_name)
        if index is None or (consistent_read and isinstance(index, GlobalSecondaryIndex)):
            return None
    if len(hash_conditions) != 1 or len(range_conditions) > 1:
        return None
    view = _view(table, index_name or None)
    if view is None or hash_conditions[0][0] != view.hash_attr:
        return None
    hash_value = hash_conditions[0][1]
    bucket = view.buckets.get(hash_value, _Sorted())
    low, high = 0, len(bucket.keys)
    if range_conditions:
        name, operator, values = range_conditions[0]
        if not view.sort_attrs or name != view.sort_attrs[0] or operator not in _RANGE_OPERATORS:
            return None
        low, high = _range(bucket, operator, [value.cast_value for value in values])
    forward = scan_index_forward is not False
    if exclusive_start_key is not None:
        after = _after(view, hash_value, exclusive_start_key, len(bucket.keys), forward, bucket)
        if after is None:
            return None
        low, high = (max(low, after), high) if forward else (low, min(high, after))
    views = _tables[table]
    positions = range(low, high) if forward else range(high - 1, low - 1, -1)
    results: list[Item] = []
    size = 0
    for at in positions:
        item = bucket.items[at]
        item_size = views.size(item)
        if len(results) == limit or size + item_size > RESULT_SIZE_LIMIT:
            return results, table._get_last_evaluated_key(results[-1], index_name)
        results.append(item)
        size += item_size
    # moto goes on through the key's other items (outside the range): one of them ends the page
    # if the page is full, or too large to fit.
    rest = range(high, len(bucket.keys)) if forward else range(low - 1, -1, -1)
    full = len(results) == limit
    if (
        results
        and rest
        and (
            full
            or (
                size + _MAX_ITEM_SIZE > RESULT_SIZE_LIMIT
                and any(size + views.size(bucket.items[at]) > RESULT_SIZE_LIMIT for at in rest)
            )
        )
    ):
        return results, table._get_last_evaluated_key(results[-1], index_name)
    return results, None


def _range(bucket: _Sorted, operator: str, values: list[Any]) -> tuple[int, int]:
    """Positions [low, high) of the items whose first sort attribute meets the key condition."""
    keys, count = bucket.keys, len(bucket.keys)
    value = values[0]
    if operator == "=":
        return bisect_left(keys, value, key=_first), bisect_right(keys, value, key=_first)
    if operator == "<":
        return 0, bisect_left(keys, value, key=_first)
    if operator == "<=":
        return 0, bisect_right(keys, value, key=_first)
    if operator == ">":
        return bisect_right(keys, value, key=_first), count
    if operator == ">=":
        return bisect_left(keys, value, key=_first), count
    if operator == "BETWEEN":
        return bisect_left(keys, value, key=_first), bisect_right(keys, values[1], key=_first)
    low = high = bisect_left(keys, value, key=_first)  # BEGINS_WITH: the prefixed keys follow each other
    while high < count and keys[high][0].startswith(value):
        high += 1
    return low, high


def _after(
    view: _View,
    hash_value: DynamoType,
    start_key: dict[str, Any],
    count: int,
    forward: bool,
    bucket: _Sorted,
) -> int | None:
    """Where the page resumes after ExclusiveStartKey: moto skips the items sorted at or before it."""
    names = (view.hash_attr, *view.sort_attrs)
    if any(name not in start_key for name in names):
        return None
    try:
        start_hash = DynamoType(start_key[view.hash_attr])
        start = tuple(DynamoType(start_key[name]).cast_value for name in view.sort_attrs)
    except (IndexError, TypeError, AttributeError):
        return None
    if start_hash != hash_value:  # moto compares the key first: every item is before it, or none
        skipped_all = (hash_value < start_hash) == forward
        return (count if forward else 0) if skipped_all else (0 if forward else count)
    return bisect_right(bucket.keys, start) if forward else bisect_left(bucket.keys, start)


# -- installing ---------------------------------------------------------------------------------


def _table_has(name: str) -> Callable[[], bool]:
    return lambda: callable(getattr(Table, name, None))


_QUERY = Replacement(Table, "query", _query)
_PUT = Replacement(Table, "put_item", _put_item)
_DELETE = Replacement(Table, "delete_item", _delete_item)
_UPDATE = Replacement(DynamoDBBackend, "update_item", _update_item)
_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_query.py",
    [_QUERY, _PUT, _DELETE, _UPDATE],
    {  # what it relies on, as moto 5.2.5 writes it
        # The slow path replaced, and the rules copied: Limit and size checked before each candidate,
        # results copied then projected, filtered, projected again.
        "Table.query": (
            lambda: Table.query,
            (
                "for item in self.all_items():",
                "reached_length_limit = len(results) == limit",
                "reached_size_limit = (result_size + result.size()) > RESULT_SIZE_LIMIT",
                "results = copy.deepcopy(results)",
                "results = [index.project(r) for r in results]",
                "results = [item for item in results if filter_expression.expr(item)]",
                "results = [r.project(projection_expressions) for r in results]",
            ),
        ),
        "Table._item_comes_before_dct": (lambda: Table._item_comes_before_dct, ("== scan_index_forward",)),
        "Table.put_item": (lambda: Table.put_item, ("self.items[hash_value][range_value] = item",)),
        "Table.delete_item": (lambda: Table.delete_item, ("item = self.items[hash_key].pop(range_key)",)),
        # Only these change items in place; results are only serialized (so need no copy).
        "DynamoDBBackend.update_item": (
            lambda: DynamoDBBackend.update_item,
            ("item = table.get_item(hash_value, range_value)", "table.put_item(data)"),
        ),
        "DynamoHandler.query": (
            lambda: dynamodb_responses.DynamoHandler.query,
            ('result["Items"] = [item.attrs for item in items]',),
        ),
    },
    holds={
        f"Table.{name}": _table_has(name)
        for name in ("_generate_attr_to_sort_by", "_get_last_evaluated_key", "all_indexes", "get_index")
    },
    on_uninstall=_tables.clear,
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)


@contextmanager
def bypassed() -> Iterator[None]:
    """moto's own Query for a block (the views are still kept current): for comparisons."""
    with _lock:
        _bypass.active = True
    try:
        yield
    finally:
        _bypass.active = False
