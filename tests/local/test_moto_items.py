"""The emulator's moto patch (devtools/moto_patches/moto_items.py): items are built as moto builds
them, with moto's size limit at the same byte, in time linear in their attributes, and held leaner
(interned strings, shared BOOL and NULL, the key's own DynamoType) while every item operation
answers as with moto's own items."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

from devtools.moto_patches import moto_items
from tests.aws_stack import InProcessStack
from tests.local.test_moto_dynamodb_responses import _answer, _operation, tables
from tests.local.test_moto_stream_reads import _value

__all__ = ["tables"]  # the fixture, for the test below


def _attributes(rng: random.Random, count: int) -> dict[str, Any]:
    kinds: list[Callable[[], dict[str, Any]]] = [
        lambda: {"S": "x" * rng.randint(0, 50)},
        lambda: {"N": str(rng.randint(-(10**9), 10**9))},
        lambda: {"B": rng.randbytes(rng.randint(1, 20))},
        lambda: {"BOOL": rng.random() < 0.5},
        lambda: {"NULL": True},
        lambda: {"SS": ["a", "b"]},
        lambda: {"NS": ["1", "2.5"]},
        lambda: {"BS": [b"a", b"bc"]},
        lambda: {"L": [{"S": "v"}, {"N": "1"}]},
        lambda: {"M": {"k": {"S": "v"}, "n": {"M": {"deep": {"N": "2"}}}}},
    ]
    return {f"attr{n}": rng.choice(kinds)() for n in range(count)}


def _build(attrs: dict[str, Any]) -> Item | type[Exception]:
    try:
        return Item(DynamoType({"S": "pk"}), DynamoType({"S": "sk"}), attrs)
    except ItemSizeTooLarge:
        return ItemSizeTooLarge


def _both(attrs: dict[str, Any]) -> tuple[Any, Any]:
    moto_items.uninstall()
    theirs = _build(attrs)
    with moto_items.installed():
        ours = _build(attrs)
    return theirs, ours


@pytest.mark.parametrize("seed", range(5))
def test_items_are_built_as_moto_builds_them(seed: int) -> None:
    rng = random.Random(seed)
    for count in (0, 1, 7, 40):
        theirs, ours = _both(_attributes(rng, count))
        assert isinstance(ours, Item) and isinstance(theirs, Item)
        assert type(ours.attrs) is LimitedSizeDict and ours == theirs
        assert list(ours.attrs) == list(theirs.attrs)
        assert ours.to_json() == theirs.to_json()


@pytest.mark.parametrize("last", [404_900, 404_910, 404_920, 405_000, 405_100])
def test_the_size_limit_falls_at_the_same_byte(last: int) -> None:
    attrs = {"a": {"S": "x" * 200_000}, "b": {"S": "y" * 200_000}, "c": {"S": "z" * (last - 400_003)}}
    theirs, ours = _both(attrs)
    assert (ours is ItemSizeTooLarge) == (theirs is ItemSizeTooLarge)
    if ours is not ItemSizeTooLarge:
        assert ours == theirs


def test_an_item_measures_each_attribute_once(monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[int] = []
    size = DynamoType.size

    def counting(self: DynamoType) -> int:
        measured.append(1)
        return size(self)

    monkeypatch.setattr(DynamoType, "size", counting)
    with moto_items.installed():
        _build({f"a{n}": {"S": "v"} for n in range(100)})
    assert len(measured) == 100  # moto's own measures 100 * 101 / 2


def test_the_patch_matches_the_pinned_moto() -> None:
    moto_items.check_internals()  # raises when moto builds items another way


@pytest.mark.parametrize("seed", range(3))
def test_every_attribute_type_round_trips_equal_to_moto_s(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(30):
        attrs = {f"a{n}": _value(rng) for n in range(rng.randint(1, 12))}  # S N B SS NS BS M L BOOL NULL, nested
        theirs, ours = _both(attrs)
        assert isinstance(ours, Item) and isinstance(theirs, Item)
        assert ours.to_json() == theirs.to_json() and ours == theirs
        for name, attribute in ours.attrs.items():
            assert type(attribute) is DynamoType and attribute.type == theirs.attrs[name].type


def test_names_and_string_values_are_held_once_and_bool_and_null_shared() -> None:
    def decoded() -> dict[str, Any]:  # each request's JSON decodes its own strings
        attrs: dict[str, Any] = json.loads(
            '{"pk": {"S": "acct#1"}, "status": {"S": "delivered"}, "count": {"N": "12"}, "ok": {"BOOL": true},'
            ' "gone": {"NULL": true}, "tags": {"SS": ["a", "b"]}, "to": {"M": {"x@example.com": {"S": "sent"}}}}'
        )
        return attrs

    with moto_items.installed():
        first = Item(DynamoType({"S": "acct#1"}), None, decoded())
        second = Item(DynamoType({"S": "acct#1"}), None, decoded())
    for (name, one), (other_name, other) in zip(first.attrs.items(), second.attrs.items(), strict=True):
        assert name is other_name
        if one.type in ("S", "N"):
            assert one.value is other.value
    assert first.attrs["ok"] is second.attrs["ok"] and first.attrs["gone"] is second.attrs["gone"]
    assert first.attrs["tags"].value[0] is second.attrs["tags"].value[0]
    assert next(iter(first.attrs["to"].value)) is next(iter(second.attrs["to"].value))
    assert first.attrs["pk"] is first.hash_key  # the key attribute is the key's own DynamoType


def test_items_are_leaner_than_moto_s() -> None:
    rng = random.Random(7)
    texts = [
        json.dumps(
            {
                "account_id": {"S": "acct_01"},
                "status": {"S": "delivered"},
                "test": {"BOOL": False},
                **{f"field_{n}": {"S": f"value {rng.randint(0, 9)}"} for n in range(15)},
            }
        )
        for _ in range(300)
    ]

    def traced() -> int:
        gc.collect()
        tracemalloc.start()
        try:
            held = [Item(DynamoType({"S": "p"}), None, json.loads(text)) for text in texts]
            gc.collect()
            size: int = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        del held
        return size

    moto_items.uninstall()
    theirs = traced()
    with moto_items.installed():
        ours = traced()
    assert ours < theirs * 0.7  # names, repeated values and BOOLs held once


@pytest.mark.parametrize("seed", range(3))
def test_every_item_operation_answers_as_with_moto_s_items(
    stack: InProcessStack, tables: tuple[str, str], seed: int
) -> None:
    """Puts, gets, updates, conditions, queries and scans (by index too), batches and transactions:
    the same random sequence against a table of moto's items and one of the patch's."""
    rng = random.Random(seed)
    db = stack.client("dynamodb")
    theirs_table, ours_table = tables
    for step in range(150):
        name, request = _operation(rng)
        moto_items.uninstall()
        theirs = _answer(getattr(db, name), request(theirs_table))
        with moto_items.installed():
            ours = _answer(getattr(db, name), request(ours_table))
        assert repr(ours).replace(ours_table, theirs_table) == repr(theirs), (step, name)
