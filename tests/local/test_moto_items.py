"""The emulator's moto patch (devtools/moto_patches/moto_items.py): items are built as moto builds
them, with moto's size limit at the same byte, in time linear in their attributes."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

from devtools.moto_patches import moto_items


def _attributes(rng: random.Random, count: int) -> dict[str, Any]:
    kinds: list[Callable[[], dict[str, Any]]] = [
        lambda: {"S": "x" * rng.randint(0, 50)},
        lambda: {"N": str(rng.randint(-(10**9), 10**9))},
        lambda: {"B": rng.randbytes(rng.randint(1, 20))},
        lambda: {"BOOL": rng.random() < 0.5},
        lambda: {"NULL": True},
        lambda: {"SS": ["a", "b"]},
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
