"""Daily passes over the accounts with history (retention, metrics packing): the walk, and where it
stands: one item per pass and day, `<pass>` / `RUN#<yyyy-mm-dd>`, holding the walk's position (the
JSON of the index Query's LastEvaluatedKey) and whether the day's pass is done, kept a few days."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from postline.shared.dynamo import from_attrs, key

_KEPT = timedelta(days=3)
Account = TypeVar("Account")
Position = dict[str, Any] | None


def walk(
    position: Position,
    page: Callable[[Position], tuple[list[Account], Position]],
    each: Callable[[Account], bool],
    save: Callable[[Position, bool], None],
) -> tuple[int, bool]:
    """Walks the accounts page by page from `position`, saving (position, done) after each page;
    stops when `each` answers False (out of budget: that page is walked again next run, so `each`
    must be cheap to repeat for an account it finished). (accounts finished, whether the walk
    reached the end.)"""
    finished = 0
    while True:
        accounts, following = page(position)
        for account in accounts:
            if not each(account):
                return finished, False
            finished += 1
        position = following
        save(position, position is None)
        if position is None:
            return finished, True


def read(client: Any, table: str, name: str, day: date) -> tuple[dict[str, Any] | None, bool]:
    """(where the day's walk of the accounts stands, whether the pass is done)."""
    item = client.get_item(TableName=table, Key=key(name, f"RUN#{day}"), ConsistentRead=True)
    found = from_attrs(item.get("Item", {}))
    position = found.get("position")
    return (json.loads(position) if position else None), bool(found.get("done", False))


def save(
    client: Any, table: str, name: str, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime
) -> None:
    item = {**key(name, f"RUN#{day}"), "done": {"BOOL": done}, "expires_at": {"N": str(int((now + _KEPT).timestamp()))}}
    if position is not None:
        item["position"] = {"S": json.dumps(position)}
    client.put_item(TableName=table, Item=item)
