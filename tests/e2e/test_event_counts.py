"""GET /v3/events total_count from the roll-ups' counters on the embedded runtime: three days of
traffic through the simulator (the runtime's clock moved a day between them), counted by the
metrics roll-up worker from the events stream; every filter's total_count equals a full walk of
its pages; a replayed stream changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from postline import wiring
from postline.config import Counters, Events
from postline.events.count_store import DynamoEventCounts
from postline.wiring import metrics
from tests.e2e.sending_support import accepted, drain, message, now, recipient, settle, simulator, unverified_sender
from tests.e2e.stream_support import KeptStream, kept_stream
from tests.e2e.support import Api, make_account, run_cli
from tests.support import eventually

pytestmark = pytest.mark.e2e

FILTERS: list[dict[str, str]] = [
    {},
    {"event": "sent"},
    {"event": "bounced"},
    {"tag": "receipts"},
    {"tag": "news", "event": "delivered"},
]


def _walk(api: Api, params: dict[str, str]) -> list[dict[str, Any]]:
    """Every event of the filter, page by page: the full count."""
    found: list[dict[str, Any]] = []
    query: dict[str, Any] = {**params, "limit": 300}
    while True:
        page = api.get("/v3/events", params=query).json()
        found += page["items"]
        if not page["has_more"]:
            return found
        query["cursor"] = page["next_cursor"]


def _totals(api: Api) -> list[int]:
    out = []
    for params in FILTERS:
        response = api.get("/v3/events", params={**params, "limit": 2})
        assert response.status_code == 200, response.text
        out.append(response.json()["total_count"])
    return out


def _stream_records(stream: KeptStream, account_id: str) -> list[dict[str, Any]]:
    """The events stream's records of one account's events (the worker's other tests may still be
    producing events of their own, which the consumer has yet to count)."""
    return [r for r in stream.records() if r["dynamodb"]["Keys"]["pk"]["S"].startswith(f"EVT#{account_id}#")]


@pytest.fixture
def events_stream(runtime: Any) -> Iterator[KeptStream]:
    """The events stream, kept for the replay below from before its traffic."""
    with kept_stream(runtime, wiring.settings(Events).table) as stream:
        yield stream


def test_total_count_from_the_counters_equals_a_full_count(runtime: Any, events_stream: KeptStream) -> None:
    sender = unverified_sender(runtime)
    api = sender.test
    days = []
    for _ in range(3):
        days.append(now(runtime).date())
        sends = [
            message(sender.address, recipient("ann"), tags=["receipts"]),
            message(sender.address, recipient("bob"), tags=["news", "receipts"]),
            message(sender.address, simulator("bounce"), tags=["news"]),
            message(sender.address, recipient("cy")),
        ]
        ids = [accepted(api.post("/v3/messages", json=body))["id"] for body in sends]
        settle(runtime, *ids)
        runtime.advance(86_400)
    runtime.advance(3_600)
    drain(runtime)

    def agreed() -> list[int]:
        totals = _totals(api)
        assert totals == [len(_walk(api, params)) for params in FILTERS], totals
        return totals

    totals = eventually(agreed, 60, interval=1, waiting_for="the roll-up worker to count every event")
    assert all(totals) and totals[0] >= 3 * 4 * 3  # queued, sent and an outcome per message at least
    counts = DynamoEventCounts(wiring.client("dynamodb"), wiring.settings(Counters).table)
    coverage = counts.coverage(sender.id)
    assert coverage.first_counted is not None and coverage.first_counted.date() == days[0]  # its first event
    # the middle day is answered by its day item: it holds exactly that day's events
    middle = [e for e in _walk(api, {}) if e["timestamp"].startswith(f"{days[1]}")]
    _, items = counts.read(sender.id, "*", days[1], days[1], [], budget_seconds=10)
    assert sum(v for k, v in items.days[days[1]].items() if k.startswith("t_")) == len(middle) > 0

    assert (
        metrics.rollup_service().consume(_stream_records(events_stream, sender.id)) == 0
    )  # a replay: everything was counted
    assert _totals(api) == totals


def test_register_accounts_lists_existing_accounts_for_the_retention_pass(runtime: Any) -> None:
    """An account whose history predates the registry (nothing counted by the consumer) is walked by
    the retention pass once `postline retention register-accounts` has run."""
    account = make_account()
    counts = DynamoEventCounts(wiring.client("dynamodb"), wiring.settings(Counters).table)

    def registered() -> set[str]:
        found: list[str] = []
        position = None
        while True:
            ids, position = counts.accounts_with_history(position, 500)
            found += ids
            if position is None:
                return set(found)

    assert account.id not in registered()
    done = run_cli(runtime, "retention", "register-accounts")
    assert done["registered"] >= 1 and account.id in registered()
    assert run_cli(runtime, "retention", "register-accounts")["registered"] >= done["registered"]  # safe to rerun
