"""shared/stream_marks.py: an item's additions written once per stream record, without a transaction.

A small in-memory DynamoDB for one item's UpdateItem (ADD and SET of plain names, conditions of the
form the module writes) is enough to show what a redelivery finds and skips.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from botocore.exceptions import ClientError

from postline.shared import stream_marks
from postline.shared.stream_marks import Entry, add_once, is_mark, mark_name


class OneItem:
    """An UpdateItem client for one item, enforcing the marks' conditions (a refusal returns the
    item, as ReturnValuesOnConditionCheckFailure asks)."""

    def __init__(self) -> None:
        self.item: dict[str, Any] = {}
        self.writes = 0
        self.refused = 0

    def update_item(self, **params: Any) -> None:
        names, values = params["ExpressionAttributeNames"], params["ExpressionAttributeValues"]
        for placeholder, first in re.findall(r"OR (#m\d+) < (:f\d+)", params["ConditionExpression"]):
            held = self.item.get(names[placeholder], {}).get("S")
            if held is not None and not held < values[first]["S"]:
                self.refused += 1
                error = {"Error": {"Code": "ConditionalCheckFailedException"}, "Item": dict(self.item)}
                raise ClientError(error, "UpdateItem")  # type: ignore[arg-type]
        adds, _, sets = params["UpdateExpression"].removeprefix("ADD ").partition(" SET ")
        for clause in adds.split(", "):
            name, value = clause.split(" ")
            current = int(self.item.get(names[name], {"N": "0"})["N"])
            self.item[names[name]] = {"N": str(current + int(values[value]["N"]))}
        for clause in sets.split(", "):
            name, value = clause.split(" = ")
            self.item[names[name]] = values[value]
        self.writes += 1

    def counters(self) -> dict[str, int]:
        return {name: int(value["N"]) for name, value in self.item.items() if not is_mark(name) and "N" in value}


def _entries(partition: str, first: int, count: int) -> list[Entry]:
    return [(partition, f"{n:040d}", {"sent": 1}) for n in range(first, first + count)]


def test_a_replay_adds_nothing_and_a_longer_redelivery_adds_only_the_rest() -> None:
    db = OneItem()
    key = {"pk": {"S": "MET#a"}, "sk": {"S": "all#05"}}
    first = _entries("EVT#a#d", 1, 3)
    assert add_once(db, "T", key, first) == [(p, s) for p, s, _ in first]
    assert add_once(db, "T", key, first) == []  # the same batch again
    assert (db.writes, db.refused) == (1, 1)  # refused once, then nothing left to write
    longer = _entries("EVT#a#d", 1, 5)  # redelivered with two more records
    assert add_once(db, "T", key, longer) == [(p, s) for p, s, _ in longer[3:]]
    assert (db.writes, db.refused) == (2, 2)  # refused, rebuilt from the item it returned, written
    assert db.counters() == {"sent": 5}
    assert db.item[mark_name("EVT#a#d")] == {"S": "015"}  # the digits after their count


def test_each_partition_has_its_own_mark() -> None:
    db = OneItem()
    key = {"pk": {"S": "EVC#a#*"}, "sk": {"S": "H#2026-11-28"}}
    add_once(db, "T", key, _entries("EVT#a#d#0", 1, 2))
    both = _entries("EVT#a#d#0", 1, 2) + _entries("EVT#a#d#1", 1, 2)  # shard 1's records: new to the item
    assert add_once(db, "T", key, both) == [(p, s) for p, s, _ in both[2:]]
    assert db.counters() == {"sent": 4}
    assert mark_name("EVT#a#d#0") != mark_name("EVT#a#d#1")
    assert all(is_mark(mark_name(p)) for p in ("EVT#a#d#0", "EVT#a#d#1"))


def test_a_mark_compares_as_its_number_does() -> None:
    numbers = [0, 7, 9, 10, 99, 100, 10**20, 10**20 + 1, 49_602_813_512_389_671_280_115_498_342]
    marks = [stream_marks.mark_value(f"{n:040d}") for n in numbers]
    assert sorted(marks) == marks and len(set(marks)) == len(marks)
    assert stream_marks.mark_value(f"{10**20:040d}") == "21" + str(10**20)


@pytest.mark.parametrize("extra", [{}, {"v": 1}])
def test_the_update_sets_and_adds_what_it_is_given(extra: dict[str, int]) -> None:
    update = stream_marks.marked_update(
        "T", {"pk": {"S": "x"}}, _entries("P", 7, 2), sets={"expires_at": {"N": "9"}}, extra_adds=extra
    )
    assert update["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    assert update["ConditionExpression"] == "(attribute_not_exists(#m0) OR #m0 < :f0)"
    assert update["ExpressionAttributeValues"][":f0"] == {"S": "017"}
    assert update["ExpressionAttributeValues"][":l0"] == {"S": "018"}
    added = {
        update["ExpressionAttributeNames"][name]: update["ExpressionAttributeValues"][value]["N"]
        for name, value in re.findall(r"(#a\d+) (:a\d+)", update["UpdateExpression"])
    }
    assert added == {"sent": "2", **{name: str(value) for name, value in extra.items()}}
