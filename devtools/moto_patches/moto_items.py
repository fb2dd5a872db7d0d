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

Guard: `install()` checks that moto still builds items and checks their size as 5.2.5 does, and
raises otherwise.
"""

from __future__ import annotations

from typing import Any

from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_ITEM_SIZE_LIMIT = 405000  # moto's, between DynamoDB's documented 400 KB and its measured 409-410 KB


def _item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = LimitedSizeDict()
    total = 0
    for key, value in attrs.items():
        attribute = DynamoType(value)
        added = bytesize(key) + attribute.size()
        if total + added > _ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(self.attrs, key, attribute)
        total += added


_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_items.py",
    [Replacement(Item, "__init__", _item_init)],
    {  # what it relies on, as moto 5.2.5 writes it
        "Item.__init__": (
            lambda: Item.__init__,
            ("self.attrs = LimitedSizeDict()", "self.attrs[key] = DynamoType(value)"),
        ),
        "LimitedSizeDict.__setitem__": (
            lambda: LimitedSizeDict.__setitem__,
            (
                "item.size() if type(item) is DynamoType else bytesize(str(item))",
                f"if (current_item_size + new_item_size) > {_ITEM_SIZE_LIMIT}:",
            ),
        ),
    },
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
