"""GET /v3/metrics/* on the embedded runtime: a scripted stretch of traffic through the simulator
(deliveries, hard, soft and suppression-list bounces, a complaint, human and bot opens, clicks),
counted by the metrics roll-up worker from the events stream, then every route's figures against
a recount of the raw events from GET /v3/events; a replayed stream changes nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import requests

from postline import wiring
from postline.config import Counters, Events
from postline.metrics.packing import PackingRun, PackingService
from postline.metrics.store import rollup_pk
from postline.tracking.domain import LinkMaker
from postline.wiring import metrics, tracking
from tests.e2e.sending_support import (
    accepted,
    drain,
    iso,
    message,
    now,
    recipient,
    settle,
    simulator,
    unverified_sender,
)
from tests.e2e.stream_support import KeptStream, kept_stream
from tests.e2e.support import Api, assert_error, make_account, run_cli
from tests.fakes.shared import FixedClock
from tests.support import eventually

pytestmark = pytest.mark.e2e

HUMAN = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
LINK = "https://shop.example.com/orders/42"


def _all_events(api: Api, since: str, until: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    params: dict[str, Any] = {"since": since, "until": until, "limit": 300}
    while True:
        page = api.get("/v3/events", params=params).json()
        events += page["items"]
        if not page["has_more"]:
            return events
        params["cursor"] = page["next_cursor"]


def _eve_of_last_us_clock_change(today: date) -> date:
    """The day before the latest US clock change (second Sunday of March, first Sunday of November)
    that has a whole day after it on or before ``today``: always within the 366-day window."""
    changes = []
    for year in (today.year, today.year - 1):
        march, november = date(year, 3, 8), date(year, 11, 1)
        changes += [day + timedelta(days=(6 - day.weekday()) % 7) for day in (march, november)]
    return max(day for day in changes if day + timedelta(days=1) <= today) - timedelta(days=1)


def _recount(events: list[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter(event["type"] for event in events)
    for event in events:
        if event["type"] == "bounced":
            counts[f"bounce_{event['metadata']['bounce_class']}"] += 1
    for kind in ("opened", "clicked"):
        counts[f"unique_{kind}"] = len({(e["message_id"], e["recipient"]) for e in events if e["type"] == kind})
    return counts


@pytest.fixture(scope="module")
def events_stream(runtime: Any) -> Iterator[KeptStream]:
    """The events stream, kept for the replay below from before the traffic."""
    with kept_stream(runtime, wiring.settings(Events).table) as stream:
        yield stream


@pytest.fixture(scope="module")
def traffic(runtime: Any, events_stream: KeptStream) -> tuple[Api, str, str]:
    sender = unverified_sender(runtime)
    api = sender.test
    start = now(runtime)
    readers = [recipient("ann", "gmail.com"), recipient("bob", "example.com"), recipient("cy", "yahoo.com")]
    outcomes = ["bounce", "soft_bounce", "suppressionlist", "complaint"]
    ids = [
        accepted(api.post("/v3/messages", json=message(sender.address, to, tags=["receipts"])))["id"]
        for to in [*readers, *(simulator(o) for o in outcomes)]
    ]
    settle(runtime, *ids)
    links = LinkMaker(runtime.base_url, tracking.tracking_secret()())
    for message_id, to in zip(ids[:2], readers[:2], strict=True):  # ann and bob read; bob clicks
        for agent in (HUMAN, HUMAN, BOT):
            assert requests.get(links.open_url(sender.id, message_id, to), headers={"User-Agent": agent}, timeout=30)
        runtime.advance(60)
    click = links.click_url(sender.id, ids[1], readers[1], LINK)
    assert requests.get(click, headers={"User-Agent": HUMAN}, allow_redirects=False, timeout=30).status_code == 302
    drain(runtime)
    until = now(runtime) + timedelta(minutes=1)
    since_text, until_text = iso(start - timedelta(minutes=1)), iso(until)

    def counted() -> bool:  # the roll-up worker has seen the last event
        summary = api.get("/v3/metrics/summary", params={"since": since_text, "until": until_text}).json()
        assert summary["engagement"]["clicks"] == 1, summary
        return True

    eventually(counted, 20, waiting_for="the click to be counted")
    return api, since_text, until_text


def test_the_summary_matches_a_recount_of_the_raw_events(traffic: tuple[Api, str, str]) -> None:
    api, since, until = traffic
    expected = _recount(_all_events(api, since, until))
    response = api.get("/v3/metrics/summary", params={"since": since, "until": until, "compare": "previous_period"})
    assert response.status_code == 200, response.text
    summary = response.json()
    delivery, engagement = summary["delivery"], summary["engagement"]
    assert expected["sent"] == 7 and expected["bounced"] == 3  # every bounce was sent first
    for name in ("sent", "delivered", "bounced", "complained", "delayed", "rejected", "failed"):
        assert delivery[name] == expected[name], name
    assert delivery["bounces"]["hard"] == expected["bounce_hard"] == 1
    assert delivery["bounces"]["soft"] == expected["bounce_soft"] == 1
    assert delivery["bounces"]["suppressed"] == expected["bounce_suppressed"] == 1
    assert delivery["bounce_rate"] == 3 / 7 and delivery["bounces"]["hard_rate"] == 1 / 7
    assert (
        (engagement["opens"], engagement["unique_opens"]) == (expected["opened"], expected["unique_opened"]) == (4, 2)
    )
    assert (engagement["clicks"], engagement["unique_clicks"]) == (expected["clicked"], 1)
    assert engagement["open_rate"] == 2 / expected["delivered"]
    assert summary["latency"]["processing"]["p50_ms"] is not None
    comparison = summary["comparison"]
    assert comparison["delivery"]["sent"] == 0 and comparison["delta"]["sent_pct_change"] is None
    assert comparison["delta"]["delivery_rate_pp"] is None
    assert set(summary) >= {"data_as_of", "period", "timezone"} and summary["timezone"] == "UTC"


def test_timeseries_and_breakdown_add_up_in_other_zones(traffic: tuple[Api, str, str], runtime: Any) -> None:
    api, since, until = traffic
    expected = _recount(_all_events(api, since, until))
    for zone in ("Asia/Kolkata", "America/New_York"):
        params = {"since": since, "until": until, "timezone": zone, "resolution": "hour", "group_by": "status"}
        series = api.get("/v3/metrics/timeseries", params=params).json()
        assert series["timezone"] == zone and series["resolution"] == "hour"
        assert sum(point["sent"] for point in series["data"]) == expected["sent"]
        assert all(point["timestamp"].endswith(("+05:30", "-05:00", "-04:00")) for point in series["data"])
        groups = {group["key"]: group["data"] for group in series["groups"]}
        assert sum(point["bounced"] for point in groups["bounced"]) == expected["bounced"]
        assert all(point["bounced"] for point in groups["bounced"])  # idle buckets omitted
    # New York's latest clock change inside a day-resolution window: a 23- or 25-hour day, gap-filled.
    new_york = ZoneInfo("America/New_York")
    last = datetime.fromisoformat(until).astimezone(new_york).date()
    eve = _eve_of_last_us_clock_change(last)
    first, third = (datetime.combine(eve + timedelta(days=n), time(), new_york).isoformat() for n in (0, 2))
    assert first[-6:] != third[-6:]  # the window crosses the change
    params = {"since": first, "until": until, "timezone": "America/New_York", "resolution": "day"}
    days = api.get("/v3/metrics/timeseries", params=params).json()["data"]
    assert days[0]["timestamp"] == first and days[2]["timestamp"] == third
    assert [day["timestamp"][:10] for day in days] == [f"{eve + timedelta(days=n)}" for n in range(len(days))]
    assert days[-1]["timestamp"][:10] == f"{last}"  # every day listed, idle or not
    assert sum(day["sent"] for day in days) == expected["sent"]

    rows = api.get(
        "/v3/metrics/breakdown",
        params={"since": since, "until": until, "dimension": "bounce_code", "include_trend": "true", "sort": "bounced"},
    ).json()
    assert rows["total"] == len(rows["data"]) and sum(row["bounced"] for row in rows["data"]) == expected["bounced"]
    assert {row["key"] for row in rows["data"]} == {"5.1.1", "5.2.2"}
    assert all(sum(point["value"] for point in row["trend"]) == row["bounced"] for row in rows["data"])
    providers = api.get(
        "/v3/metrics/breakdown", params={"since": since, "until": until, "dimension": "mailbox_provider", "limit": 1}
    ).json()
    assert providers["total"] >= 3 and len(providers["data"]) == 1 and providers["data"][0]["trend"] is None
    clients = api.get(
        "/v3/metrics/breakdown", params={"since": since, "until": until, "dimension": "client", "sort": "opened"}
    ).json()
    assert [(row["key"], row["opened"], row["unique_opens"]) for row in clients["data"]] == [("Safari", 4, 2)]


def test_a_replayed_stream_changes_nothing(traffic: tuple[Api, str, str], events_stream: KeptStream) -> None:
    api, since, until = traffic
    before = api.get("/v3/metrics/summary", params={"since": since, "until": until}).json()
    # This account's records only: the worker's other tests may still be producing events of their own.
    ours = f"EVT#{api.get('/v3/whoami').json()['account']['id']}#"
    records = [r for r in events_stream.records() if r["dynamodb"]["Keys"]["pk"]["S"].startswith(ours)]
    assert records
    assert metrics.rollup_service().consume(records) == 0  # every record was counted already
    after = api.get("/v3/metrics/summary", params={"since": since, "until": until}).json()
    assert {k: v for k, v in after.items() if k != "data_as_of"} == {
        k: v for k, v in before.items() if k != "data_as_of"
    }


def _answers(api: Api, since: str, until: str) -> list[dict[str, Any]]:
    """Every route in +05:30, +05:45 and New York, over the traffic and over New York's latest clock
    change up to now (by day), without data_as_of."""
    end = datetime.fromisoformat(until)
    eve = _eve_of_last_us_clock_change(end.astimezone(ZoneInfo("America/New_York")).date())
    out = []
    for zone in ("Asia/Kolkata", "Asia/Kathmandu", "America/New_York"):
        around = datetime.combine(eve, time(), ZoneInfo(zone)).isoformat()
        window = {"since": since, "until": until, "timezone": zone}
        for path, params in (
            ("summary", {**window, "compare": "previous_period"}),
            ("timeseries", {**window, "resolution": "hour", "group_by": "status"}),
            ("timeseries", {**window, "since": around, "resolution": "day", "group_by": "domain"}),
            ("breakdown", {**window, "since": around, "dimension": "bounce_code", "include_trend": "true"}),
            ("breakdown", {**window, "dimension": "client", "sort": "opened"}),
        ):
            response = api.get(f"/v3/metrics/{path}", params=params)
            assert response.status_code == 200, response.text
            out.append({k: v for k, v in response.json().items() if k != "data_as_of"})
    return out


def test_packing_closed_days_changes_no_answer_in_any_zone(traffic: tuple[Api, str, str], runtime: Any) -> None:
    """The daily pass's packing, run for this account as if two days later (the runtime's clock is
    shared with other tests); the traffic's days become one item per series, the answers stay."""
    api, since, until = traffic
    account_id = api.get("/v3/whoami").json()["account"]["id"]
    before = _answers(api, since, until)
    assert before[0]["delivery"]["sent"] == 7
    packing = PackingService(store=metrics.rollups(), clock=FixedClock(now(runtime) + timedelta(days=3)))
    run = PackingRun()
    assert packing.pack_account(account_id, run) and run.series > 0 and run.changed == 0
    assert run.hour_items >= run.series
    client, table = wiring.client("dynamodb"), wiring.settings(Counters).table
    for day in {datetime.fromisoformat(moment).astimezone(UTC).date() for moment in (since, until)}:
        items = client.query(
            TableName=table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": rollup_pk(account_id, "test", f"{day}")}},
        )["Items"]
        assert all(item["sk"]["S"].endswith("#d") for item in items)
    assert _answers(api, since, until) == before
    again = PackingRun()
    assert packing.pack_account(account_id, again) and again.series == 0  # nothing left: a rerun is a no-op
    assert _answers(api, since, until) == before


def test_the_window_rules_and_the_time_budget(traffic: tuple[Api, str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    api, _, until = traffic
    end = datetime.fromisoformat(until)
    too_long = {"since": iso(end - timedelta(days=367)), "until": until}
    assert_error(api.get("/v3/metrics/summary", params=too_long), 400, "validation_error")
    assert_error(api.get("/v3/metrics/timeseries", params={"timezone": "Nowhere/Else"}), 400, "validation_error")
    assert_error(api.get("/v3/metrics/breakdown", params={"dimension": "tag", "limit": 0}), 400, "validation_error")
    monkeypatch.setenv("METRICS_QUERY_BUDGET_MS", "1")
    wiring.reset()
    try:
        response = api.get("/v3/metrics/summary", params={"since": iso(end - timedelta(days=360)), "until": until})
    finally:
        monkeypatch.undo()
        wiring.reset()
    assert_error(response, 503, "query_timeout")
    assert int(response.headers["Retry-After"]) > 0


def test_the_backfill_command_rebuilds_closed_days_only(runtime: Any) -> None:
    account = make_account()
    old = f"{datetime.now(UTC).date() - timedelta(days=3)}"
    done = run_cli(runtime, "metrics", "backfill", account.id, "--since", old, "--until", old)
    assert done == {"account_id": account.id, "events_counted": {old: 0}, "counts_complete_from": None}
    today = f"{datetime.now(UTC).date()}"
    refused = run_cli(
        runtime, "metrics", "backfill", account.id, "--since", today, "--until", today, expect_success=False
    )
    assert refused.returncode == 1 and "validation_error" in refused.stderr
