"""moto's TransactWriteItems, rolled back item by item instead of table by table.

Why: moto 5.2's `DynamoDBBackend.transact_write_items` deep-copies every table a transaction
names, once per item, as its rollback backup. A transaction therefore costs time in proportion to
everything already stored (about 20 ms on fresh tables, 0.8 s after 1,000 messages), and the
embedded runtime writes every delivery step as a transaction. Real DynamoDB costs the same
whatever the table holds.

How: while moto runs a transaction, its `copy.deepcopy(table)` hands back the live table (moto
then "restores" a table by putting the same object back, which changes nothing), and this module
keeps, before moto starts, a copy of just the items the transaction names and the length of
their tables' streams. If moto raises (cancellation, validation, duplicate items: anything), those
items are put back as they were and the stream records the failed writes added are dropped,
which is what moto's whole-table restore did. moto's own checks, writes and cancellation
reasons run unchanged.

Guard: `install()` checks the moto internals it relies on and raises if they changed, so a moto
upgrade stops the emulator (and its tests) loudly instead of quietly running without the fix.
The emulator serves DynamoDB one request at a time (emulator.py), so one transaction runs at once;
the thread-local flag keeps other threads' copies untouched all the same.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

import moto.dynamodb.models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

from devtools.moto_patches import moto_query
from devtools.moto_patches.guarded import GuardedPatch, Replacement

_in_transaction = threading.local()


class _TableCopiesAreFree:
    """Stands in for the `copy` module inside moto.dynamodb.models: during a transaction a table's
    deep copy is the table itself; everything else is the real `copy`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
        if getattr(_in_transaction, "active", False) and isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)


@dataclass
class _Undo:
    """What a transaction's items and streams were before it, enough to put them back."""

    items: dict[tuple[str, DynamoType, DynamoType | None], Any] = field(default_factory=dict)
    streams: dict[str, int] = field(default_factory=dict)

    @classmethod
    def before(cls, backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> _Undo:
        undo = cls()
        for entry in transact_items:
            for op_type, op in entry.items():
                table = backend.tables.get(op.get("TableName", ""))
                place = _place(table, op["Item"] if op_type == "Put" else op.get("Key", {}))
                if table is None or place is None or (table.name, *place) in undo.items:
                    continue  # moto refuses it before writing anything
                undo.items[(table.name, *place)] = copy.deepcopy(table.get_item(*place))
                if table.stream_shard is not None:
                    undo.streams.setdefault(table.name, len(table.stream_shard.items))
        return undo

    def restore(self, backend: DynamoDBBackend) -> None:
        for (name, hash_value, range_value), item in self.items.items():
            table = backend.tables[name]
            moto_query.forget(table)  # items are put back behind moto's methods
            if range_value is None:
                table.items.pop(hash_value, None)
                if item is not None:
                    table.items[hash_value] = item
            else:
                table.items[hash_value].pop(range_value, None)
                if item is not None:
                    table.items[hash_value][range_value] = item
        for name, length in self.streams.items():
            shard = backend.tables[name].stream_shard
            if shard is not None:
                del shard.items[length:]


def _place(table: Table | None, attrs: dict[str, Any]) -> tuple[DynamoType, DynamoType | None] | None:
    """(hash, range) of the item an operation names, as the table keys it; None if it names none."""
    if table is None or table.hash_key_attr not in attrs:
        return None
    if table.range_key_attr is None:
        return DynamoType(attrs[table.hash_key_attr]), None
    if table.range_key_attr not in attrs:
        return None
    return DynamoType(attrs[table.hash_key_attr]), DynamoType(attrs[table.range_key_attr])


def _transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    undo = _Undo.before(self, transact_items)
    _in_transaction.active = True
    try:
        _PATCH.original(_TRANSACT)(self, transact_items)
    except BaseException:
        undo.restore(self)
        raise
    finally:
        _in_transaction.active = False


_TRANSACT = Replacement(DynamoDBBackend, "transact_write_items", _transact_write_items)
_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_transactions.py",
    [_TRANSACT, Replacement(dynamodb_models, "copy", _TableCopiesAreFree())],
    {  # what it relies on, as moto 5.2.5 writes it: the backup and restore of whole tables, and
        # tables keeping items in `items[hash][range]` with a stream shard that appends records
        "DynamoDBBackend.transact_write_items": (
            lambda: DynamoDBBackend.transact_write_items,
            ("copy.deepcopy(", "self.tables[table_name] = original_table_state[table_name]"),
        ),
        "Table.put_item": (
            lambda: Table.put_item,
            ("self.items[hash_value][range_value] = item", "self.stream_shard.add("),
        ),
    },
    holds={"the copy module in moto.dynamodb.models": lambda: "copy" in vars(dynamodb_models)},
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
