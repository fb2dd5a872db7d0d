"""moto's DynamoDB items, built in time linear in their attributes.

Why: moto 5.2's `Item.__init__` puts each attribute into a `LimitedSizeDict`, whose `__setitem__`
sums the size of every attribute already there to enforce the 400 KB item limit: building an
item of n attributes measures n^2/2 of them. For the send path's 25-attribute items that was 82%
of a BatchWriteItem's time in moto (1.65 million `DynamoType.size` calls for 5,000 items; about
40 ms of each 25-item call), and the emulator serves DynamoDB one request at a time, so a
5,000-recipient batch's acceptance spent most of its time there.

How: `Item.__init__` keeps a running total while it builds the attributes and applies the same
check (`total + key + value > 405000` raises `ItemSizeTooLarge`), then stores each attribute in
the same `LimitedSizeDict`. Later changes to an item's attributes (update expressions) still go
through moto's own `__setitem__`.

Lean: moto holds an item in Python objects, a `DynamoType` (88 bytes) per attribute and per
element of its maps and lists, around strings decoded anew for every request. A `make run` under
load grew by what it stored, ~15 bytes of memory per byte of snapshot (docs/benchmarks.md,
"Soak"). The builder here makes the same `DynamoType`s (same `type`, same `value`, same classes:
moto's code and pickles see moto's objects) with three savings: attribute names, map keys and
string values (S, SS, N) are interned, so the names every item repeats and the values many items
share (account ids, statuses, addresses, tags) are held once (CPython 3.11's interned strings are
freed with their last user; from 3.12, where they are immortal, only top-level attribute names,
a table's few, are interned); `BOOL` and `NULL` values are one shared `DynamoType` each (moto never
changes a `DynamoType` in place: an update replaces it); and the attribute that carries the item's
hash or range key reuses the key's `DynamoType` when it is the same value. The builder sets
`type` and `value` itself instead of moto's `__init__` (which makes two lists per value to read a
one-key dict), so it also costs less CPU: measured in tests/local/test_moto_items.py's companion
figures in docs/benchmarks.md ("Soak").

Guard: `install()` checks that moto still builds items and checks their size as 5.2.5 does, that
`DynamoType.__init__` still reads a one-key dict and recurses into L and M as 5.2.5 does, and that
nothing in moto.dynamodb assigns a `DynamoType`'s `type` or `value` outside its own methods (the
shared BOOL and NULL values rely on it); and raises otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import moto.dynamodb
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_ITEM_SIZE_LIMIT = 405000  # moto's, between DynamoDB's documented 400 KB and its measured 409-410 KB


_intern = sys.intern
_MORTAL_INTERNS = sys.version_info < (3, 12)  # from 3.12 an interned string lives as long as the process
_value_intern = _intern if _MORTAL_INTERNS else str
_new = object.__new__


def _shared(type_: str, value: Any) -> DynamoType:
    shared: DynamoType = _new(DynamoType)
    shared.type, shared.value = type_, value
    return shared


_SHARED = {("BOOL", True): _shared("BOOL", True), ("BOOL", False): _shared("BOOL", False)}
_SHARED[("NULL", True)] = _shared("NULL", True)


def lean(value: Any) -> DynamoType:
    """`DynamoType(value)` for a value of the wire form ({"S": "x"}, {"M": {...}}, ...): equal to
    moto's, with its strings interned and BOOL and NULL shared."""
    if type(value) is not dict or not value:
        return DynamoType(value)  # a DynamoType (moto copies it), or moto's own error
    type_ = next(iter(value))  # moto reads the first key
    inner = value[type_]
    if type_ == "S" or type_ == "N":
        inner = _value_intern(inner) if type(inner) is str else inner
    elif type_ == "M":
        inner = {_value_intern(k): lean(v) for k, v in inner.items()}
    elif type_ == "L":
        inner = [lean(v) for v in inner]
    elif type_ == "SS":
        inner = [_value_intern(v) if type(v) is str else v for v in inner]
    elif type_ == "BOOL" or type_ == "NULL":
        shared = _SHARED.get((type_, inner)) if type(inner) is bool else None
        if shared is not None:
            return shared
    attribute: DynamoType = _new(DynamoType)
    attribute.type, attribute.value = type_, inner
    return attribute


def _item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = LimitedSizeDict()
    total = 0
    keys = [known for known in (hash_key, range_key) if known is not None]
    for key, value in attrs.items():
        attribute = lean(value)
        if keys:  # the key attributes (usually the first two): the key's own DynamoType
            for known in keys:
                if attribute.type == known.type and attribute.value == known.value:
                    attribute = known
                    keys.remove(known)
                    break
        added = bytesize(key) + attribute.size()
        if total + added > _ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(self.attrs, _intern(key) if type(key) is str else key, attribute)
        total += added


def _assigned_in_place() -> bool:
    """No module of moto.dynamodb sets a DynamoType's `type` or `value` but dynamo_type.py's own
    methods (its __init__ and __deepcopy__, on objects they make)."""
    root = Path(moto.dynamodb.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        lines = [line.strip() for line in text.splitlines()]
        for line in lines:
            if (".value = " in line or ".type = " in line) and not line.startswith(("self.", "result.", "#")):
                if "token_list" in line:  # the parser's tokens, not DynamoTypes
                    continue
                return False
    return True


_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_items.py",
    [Replacement(Item, "__init__", _item_init)],
    {  # what it relies on, as moto 5.2.5 writes it
        "Item.__init__": (
            lambda: Item.__init__,
            ("self.attrs = LimitedSizeDict()", "self.attrs[key] = DynamoType(value)"),
        ),
        "DynamoType.__init__": (
            lambda: DynamoType.__init__,
            (
                "self.type = list(type_as_dict)[0]",
                "self.value = list(type_as_dict.values())[0]",
                "self.value = [DynamoType(val) for val in self.value]",
                "self.value = {k: DynamoType(v) for k, v in self.value.items()}",
            ),
        ),
        "LimitedSizeDict.__setitem__": (
            lambda: LimitedSizeDict.__setitem__,
            (
                "item.size() if type(item) is DynamoType else bytesize(str(item))",
                f"if (current_item_size + new_item_size) > {_ITEM_SIZE_LIMIT}:",
            ),
        ),
    },
    holds={"no DynamoType changed in place": _assigned_in_place},
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
