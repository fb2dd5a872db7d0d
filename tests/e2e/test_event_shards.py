"""An account at several event shards (events/sharding.py) on the embedded runtime: its sends go
through the real pipeline (the API's `queued`, the dispatcher's `sent`/`delivered`), each
message's events land in its shard, and GET /v3/events and an export list them exactly."""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
import requests

from postline import wiring
from postline.config import Events
from postline.events.sharding import shard_of, shard_of_key
from postline.wiring import events as events_root
from tests.e2e.sending_support import accepted, iso, message, now, recipient, settle, unverified_sender
from tests.support import eventually

pytestmark = pytest.mark.e2e

SHARDS = 4
SENDS = 12


def _stored(account_id: str) -> Counter[str]:
    db, table = wiring.client("dynamodb"), wiring.settings(Events).table
    found: Counter[str] = Counter()
    for page in db.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="begins_with(pk, :evt)",
        ExpressionAttributeValues={":evt": {"S": f"EVT#{account_id}#"}},
        ProjectionExpression="pk, message_id",
    ):
        found.update(f"{item['pk']['S']} {item['message_id']['S']}" for item in page["Items"])
    return found


def test_a_sharded_accounts_events_are_written_to_their_shards_and_listed_exactly(runtime: Any) -> None:
    sender = unverified_sender(runtime)  # test-key sends: the simulated pipeline, every event written
    events_root.shard_directory().set_count(sender.id, SHARDS, now(runtime) - timedelta(hours=1))
    ids = [
        accepted(sender.test.post("/v3/messages", json=message(sender.address, recipient(), tags=["wk"])))["id"]
        for _ in range(SENDS)
    ]
    settle(runtime, *ids)

    def written() -> Counter[str]:
        found = _stored(sender.id)
        assert sum(found.values()) >= 3 * SENDS, found  # queued, sent, delivered each
        return found

    stored = eventually(written, 20, waiting_for="the sends' events")
    for entry in stored:
        pk, message_id = entry.split(" ")
        assert shard_of_key(pk) == shard_of(message_id, SHARDS)  # a message's events in its shard
    assert len({shard_of_key(entry.split(" ")[0]) for entry in stored}) > 1

    total = sum(stored.values())
    listed, cursor, totals = [], None, set()
    while True:
        page = sender.test.get("/v3/events", params={"limit": 5, **({"cursor": cursor} if cursor else {})}).json()
        listed += [
            (datetime.fromisoformat(item["timestamp"].replace("Z", "+00:00")), item["id"]) for item in page["items"]
        ]
        totals.add(page["total_count"])
        cursor = page.get("next_cursor")
        if not page["has_more"]:
            break
    assert totals == {total} and len(listed) == total == len(set(listed))
    assert listed == sorted(listed, reverse=True)  # newest first across the shards
    delivered = sender.test.get("/v3/events", params={"event": "delivered", "tag": "wk", "limit": 100}).json()
    assert delivered["total_count"] == len(delivered["items"]) == SENDS

    window = {"since": iso(now(runtime) - timedelta(hours=1)), "until": iso(now(runtime))}
    job = accepted(sender.test.post("/v3/events/export", json={**window, "format": "csv"}))

    def finished() -> dict[str, Any]:
        runtime.drain(60)
        found: dict[str, Any] = sender.test.get(f"/v3/events/export/{job['export_id']}").json()
        assert found["status"] == "completed", found
        return found

    done = eventually(finished, 60, waiting_for="the export")
    rows = list(csv.DictReader(io.StringIO(requests.get(done["download_url"], timeout=10).text)))
    assert [row["id"] for row in rows] == [event_id for _, event_id in listed]
