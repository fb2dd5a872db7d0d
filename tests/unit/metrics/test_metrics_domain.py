"""Metrics rules: quarter buckets across zones and DST, delta and rate rules, what events count."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from postline.events.domain import Event, EventType
from postline.metrics.domain import (
    Counter,
    Latency,
    Quarter,
    Resolution,
    bucket_start,
    bucket_starts,
    ceil_quarter,
    contribution,
    floor_quarter,
    mailbox_provider,
    parse_attribute,
    pct_change,
    rate,
    rate_pp,
    sketch_attribute,
    utc_days,
)
from postline.metrics.origins import client_of, country_of
from postline.metrics.service import window_of
from postline.metrics.sketches import bin_of, percentiles
from postline.shared.errors import ValidationFailed

KOLKATA, NEW_YORK, NEPAL = ZoneInfo("Asia/Kolkata"), ZoneInfo("America/New_York"), ZoneInfo("Asia/Kathmandu")
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_a_moment_falls_in_its_utc_quarter() -> None:
    quarter = Quarter.of(utc("2026-03-08T06:44:59.999+00:00"))
    assert (quarter.day, quarter.hour, quarter.quarter) == ("2026-03-08", 6, 2)
    assert quarter.start == utc("2026-03-08T06:30:00+00:00")
    assert Quarter.of(utc("2026-03-08T00:10:00+05:30")).day == "2026-03-07"


def test_windows_widen_to_whole_quarters() -> None:
    assert floor_quarter(utc("2026-03-08T06:44:59+00:00")) == utc("2026-03-08T06:30:00+00:00")
    assert ceil_quarter(utc("2026-03-08T06:30:00.000001+00:00")) == utc("2026-03-08T06:45:00+00:00")
    assert ceil_quarter(utc("2026-03-08T06:30:00+00:00")) == utc("2026-03-08T06:30:00+00:00")


def test_every_local_bucket_of_every_zone_starts_on_a_utc_quarter() -> None:
    """Why 15-minute roll-ups answer every zone exactly: checked over all of 2026 for a spread of
    zones, including +05:30, +05:45, +08:45, +12:45 (DST) and -03:30 (DST)."""
    zones = ["Asia/Kolkata", "Asia/Kathmandu", "Australia/Eucla", "Pacific/Chatham", "America/St_Johns",
             "Australia/Lord_Howe", "America/New_York", "Europe/London", "Pacific/Kiritimati"]  # fmt: skip
    for name in zones:
        zone = ZoneInfo(name)
        for day in range(0, 365, 3):
            moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=day, minutes=7 * day)
            for resolution in Resolution:
                start = bucket_start(moment, zone, resolution).astimezone(UTC)
                assert start.minute % 15 == 0 and start.second == 0, (name, moment, resolution)


def test_kolkata_days_start_at_1830_utc() -> None:
    since, until = utc("2026-03-07T18:30:00+00:00"), utc("2026-03-09T18:30:00+00:00")
    starts = bucket_starts(since, until, KOLKATA, Resolution.DAY)
    assert [s.astimezone(KOLKATA).isoformat() for s in starts] == [
        "2026-03-08T00:00:00+05:30",
        "2026-03-09T00:00:00+05:30",
    ]
    assert utc_days(since, until) == ["2026-03-07", "2026-03-08", "2026-03-09"]


def test_nepal_hours_start_at_a_quarter_past() -> None:
    starts = bucket_starts(utc("2026-03-08T00:15:00+00:00"), utc("2026-03-08T02:15:00+00:00"), NEPAL, Resolution.HOUR)
    assert [s.astimezone(UTC).strftime("%H:%M") for s in starts] == ["00:15", "01:15"]


def test_new_york_spring_forward_day_has_23_hours() -> None:
    since = datetime(2026, 3, 7, tzinfo=NEW_YORK).astimezone(UTC)
    until = datetime(2026, 3, 10, tzinfo=NEW_YORK).astimezone(UTC)
    starts = bucket_starts(since, until, NEW_YORK, Resolution.DAY)
    assert [s.astimezone(NEW_YORK).isoformat() for s in starts] == [
        "2026-03-07T00:00:00-05:00",
        "2026-03-08T00:00:00-05:00",
        "2026-03-09T00:00:00-04:00",
    ]
    assert starts[2] - starts[1] == timedelta(hours=23)
    hours = bucket_starts(utc("2026-03-08T06:00:00+00:00"), utc("2026-03-08T08:00:00+00:00"), NEW_YORK, Resolution.HOUR)
    local = [h.astimezone(NEW_YORK).isoformat() for h in hours]
    assert local == ["2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00"]  # no 02:00


def test_new_york_fall_back_repeats_an_hour_as_two_buckets() -> None:
    since, until = utc("2026-11-01T05:00:00+00:00"), utc("2026-11-01T07:00:00+00:00")
    hours = bucket_starts(since, until, NEW_YORK, Resolution.HOUR)
    local = [h.astimezone(NEW_YORK).isoformat() for h in hours]
    assert local == ["2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00"]
    day = bucket_starts(since, until, NEW_YORK, Resolution.DAY)
    assert [d.astimezone(NEW_YORK).isoformat() for d in day] == ["2026-11-01T00:00:00-04:00"]


def test_weeks_start_on_monday_and_months_on_the_first() -> None:
    moment = utc("2026-03-08T12:00:00+00:00")  # a Sunday
    assert (
        bucket_start(moment, NEW_YORK, Resolution.WEEK).astimezone(NEW_YORK).isoformat() == "2026-03-02T00:00:00-05:00"
    )
    assert (
        bucket_start(moment, NEW_YORK, Resolution.MONTH).astimezone(NEW_YORK).isoformat() == "2026-03-01T00:00:00-05:00"
    )
    months = bucket_starts(
        utc("2026-01-15T00:00:00+00:00"), utc("2026-04-02T00:00:00+00:00"), ZoneInfo("UTC"), Resolution.MONTH
    )
    assert [m.strftime("%Y-%m") for m in months] == ["2026-01", "2026-02", "2026-03", "2026-04"]


def test_delta_rules() -> None:
    assert pct_change(15, 10) == 0.5
    assert pct_change(5, 10) == -0.5
    assert pct_change(5, 0) is None
    assert pct_change(0, 0) is None
    assert rate_pp(0.25, 0.20) == 5.0
    assert rate_pp(None, 0.2) is None and rate_pp(0.2, None) is None


def test_rates_are_null_on_a_zero_denominator_and_within_0_1() -> None:
    assert rate(0, 0) is None
    assert rate(3, 4) == 0.75
    assert rate(5, 4) == 1.0  # delivered after the window's sends


def test_a_window_is_at_most_366_days_and_ordered() -> None:
    window = window_of(utc("2025-03-10T12:00:00+00:00"), utc("2026-03-10T12:00:00+00:00"), "Asia/Kolkata", NOW)
    assert window.until - window.since == timedelta(days=365)
    with pytest.raises(ValidationFailed):
        window_of(utc("2025-03-08T12:00:00+00:00"), utc("2026-03-10T12:00:00+00:00"), "UTC", NOW)
    with pytest.raises(ValidationFailed):
        window_of(NOW, NOW - timedelta(hours=1), "UTC", NOW)
    with pytest.raises(ValidationFailed):
        window_of(None, None, "Mars/Olympus_Mons", NOW)
    default = window_of(None, None, "UTC", NOW)
    assert (default.since, default.until) == (NOW - timedelta(days=30), NOW)


@pytest.mark.parametrize(
    ("since", "until", "zone"),
    [
        (None, datetime(1, 1, 1, tzinfo=UTC), "UTC"),  # the default 30 days before it would overflow (the fuzzer's)
        (datetime(1, 1, 1), None, "Asia/Kolkata"),  # no offset: read in a zone east of UTC, before year 1
        (None, datetime(9999, 12, 31, 23, 59, tzinfo=UTC), "UTC"),  # a quarter hour later would overflow
    ],
)
def test_a_window_past_the_supported_range_is_a_validation_error(
    since: datetime | None, until: datetime | None, zone: str
) -> None:
    with pytest.raises(ValidationFailed, match="must fall between"):
        window_of(since, until, zone, NOW)


def _event(kind: EventType, **data: Any) -> Event:
    return Event(
        id="evt_1",
        account_id="acct_1",
        type=kind,
        message_id="msg_1",
        recipient="Ann@GMail.com",
        timestamp=NOW,
        tags=["invoice", "invoice", "eu"],
        data=data,
        sending_domain="Example.com",
        template_id="tpl_1",
        created_at=NOW,
        expires_at=0,
    )


def test_what_each_event_counts() -> None:
    assert contribution(_event(EventType.QUEUED)) is None
    sent = contribution(_event(EventType.SENT, processing_ms=120))
    assert sent is not None and sent.counters == {Counter.SENT: 1} and sent.latencies
    assert sent.series == (
        "all",
        "sending_domain#example.com",
        "recipient_domain#gmail.com",  # its mailbox provider's figures are read from it
        "tag#invoice",
        "tag#eu",
        "template#tpl_1",
    )
    bounce = contribution(_event(EventType.BOUNCED, bounce_class="suppressed", bounce_code="5.1.1"))
    assert bounce is not None and bounce.counters == {Counter.BOUNCED: 1, Counter.BOUNCE_SUPPRESSED: 1}
    assert "bounce_code#5.1.1" in bounce.series
    unclassified = contribution(_event(EventType.BOUNCED))
    assert unclassified is not None and Counter.BOUNCE_UNDETERMINED in unclassified.counters
    assert "bounce_code#none" in unclassified.series


def test_bot_and_prefetch_opens_are_not_counted_with_the_tracking_routes_rule() -> None:
    human = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15"
    assert contribution(_event(EventType.OPENED, user_agent="Mozilla/5.0 (compatible; bingbot/2.0)")) is None
    assert contribution(_event(EventType.CLICKED, user_agent="python-requests/2.32")) is None
    assert contribution(_event(EventType.OPENED)) is None  # no user agent at all
    opened = contribution(_event(EventType.OPENED, user_agent=human))
    assert opened is not None and opened.counters == {Counter.OPENED: 1, Counter.OPENED_DIRECT: 1}
    assert opened.unique == "open"
    proxied = contribution(
        _event(EventType.OPENED, user_agent="Mozilla/5.0 (via ggpht.com GoogleImageProxy)", via_proxy=True)
    )
    assert proxied is not None and proxied.counters == {Counter.OPENED: 1}


def test_providers_and_attribute_names() -> None:
    assert mailbox_provider("googlemail.com") == "google" and mailbox_provider("example.org") == "other"
    assert parse_attribute("q2_sent") == (2, "sent", None)
    assert parse_attribute("q2_bounce_hard") == (2, "bounce_hard", None)
    assert parse_attribute(sketch_attribute(3, Latency.DELIVERY, -4)) == (3, "d", "m4")
    assert parse_attribute("expires_at") is None


def test_sketch_bins_merge_into_percentiles_within_one_percent() -> None:
    draw = random.Random(7)
    values = sorted(draw.lognormvariate(6, 1.2) for _ in range(20_000))
    halves: list[dict[str, int]] = [{}, {}]
    for n, value in enumerate(values):
        bins = halves[n % 2]
        name = bin_of(value)
        bins[name] = bins.get(name, 0) + 1
    merged = {name: halves[0].get(name, 0) + halves[1].get(name, 0) for name in halves[0].keys() | halves[1].keys()}
    for quantile, found in zip((0.5, 0.95, 0.99), percentiles(merged), strict=True):
        exact = values[int(quantile * (len(values) - 1))]
        assert found is not None and abs(found - exact) <= 0.011 * exact + 1
    assert percentiles({}) == [None, None, None]
    assert percentiles({"z": 3}) == [0, 0, 0]


def test_opens_and_clicks_count_by_country_and_client_from_offline_data() -> None:
    assert country_of("8.8.8.8") == "US" and country_of("2001:4860:4860::8888") == "US"
    assert country_of("127.0.0.1") is None and country_of("not an address") is None and country_of(None) is None
    safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) " + (
        "Version/17.5 Safari/605.1.15"
    )
    assert client_of(safari) == "Safari" and client_of("") is None
    opened = contribution(_event(EventType.OPENED, user_agent=safari), country="US", client="Safari")
    assert opened is not None and {"country#US", "client#Safari"} <= set(opened.series)
