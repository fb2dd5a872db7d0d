"""Where a daily pass over the accounts with history stands (retention, metrics packing): one item
per pass and day, `<pass>` / `RUN#<yyyy-mm-dd>`, holding the walk's position (the JSON of the
index Query's LastEvaluatedKey) and whether the day's pass is done, kept a few days."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any

from postline.shared.dynamo import from_attrs, key

_KEPT = timedelta(days=3)


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
