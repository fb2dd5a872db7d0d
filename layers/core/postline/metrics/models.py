"""GET /v3/metrics/summary, /timeseries and /breakdown: the interface's Metrics schemas."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from postline.shared.base import Model

Rate = float | None
RATE = "0-1; null when the denominator is 0."


class Period(Model):
    since: datetime = Field(description="Start of the window (inclusive), aligned down to a quarter hour.")
    until: datetime = Field(description="End of the window (exclusive), aligned up to a quarter hour.")


class BounceBreakdown(Model):
    hard: int
    soft: int
    suppressed: int
    undetermined: int
    hard_rate: Rate = Field(description=f"hard/sent; {RATE}")
    soft_rate: Rate = Field(description=f"soft/sent; {RATE}")
    suppressed_rate: Rate = Field(description=f"suppressed/sent; {RATE}")
    undetermined_rate: Rate = Field(description=f"undetermined/sent; {RATE}")


class DeliveryMetrics(Model):
    sent: int = Field(description="Messages handed to a recipient's MX (delivered or bounced afterwards).")
    delivered: int
    bounced: int
    bounces: BounceBreakdown
    complained: int
    delayed: int
    rejected: int
    failed: int
    delivery_rate: Rate = Field(description=f"delivered/sent; {RATE}")
    bounce_rate: Rate = Field(description=f"bounced/sent; {RATE}")
    complaint_rate: Rate = Field(description=f"complained/sent; {RATE}")


class EngagementMetrics(Model):
    opens: int = Field(description="Opens; bot and prefetch traffic filtered at ingest.")
    opens_direct: int = Field(description="Opens not fetched through a mail provider's image proxy.")
    unique_opens: int = Field(description="Distinct message+recipient pairs first opened in the window.")
    clicks: int
    unique_clicks: int = Field(description="Distinct message+recipient pairs first clicking in the window.")
    unsubscribes: int
    open_rate: Rate = Field(description=f"unique_opens/delivered; {RATE}")
    click_rate: Rate = Field(description=f"unique_clicks/delivered; {RATE}")
    unsubscribe_rate: Rate = Field(description=f"unsubscribes/delivered; {RATE}")


class Percentiles(Model):
    p50_ms: int | None
    p95_ms: int | None
    p99_ms: int | None


class LatencyBreakdown(Model):
    processing: Percentiles = Field(description="Accepted to handed to the outbound MTA.")
    delivery: Percentiles = Field(description="Handed to the MTA to accepted by the recipient's MX.")
    total: Percentiles = Field(description="Accepted to accepted by the recipient's MX.")


class Delta(Model):
    sent_pct_change: float | None = Field(description="Relative (0.5 = +50%); null when the previous value is 0.")
    delivered_pct_change: float | None
    bounced_pct_change: float | None
    complained_pct_change: float | None
    opens_pct_change: float | None
    clicks_pct_change: float | None
    delivery_rate_pp: float | None = Field(description="Percentage points; null when either rate is null.")
    bounce_rate_pp: float | None
    complaint_rate_pp: float | None
    open_rate_pp: float | None
    click_rate_pp: float | None
    unsubscribe_rate_pp: float | None


class Comparison(Model):
    period: Period
    delivery: DeliveryMetrics
    engagement: EngagementMetrics
    latency: LatencyBreakdown
    delta: Delta


class MetricsSummary(Model):
    data_as_of: datetime = Field(description="When the roll-ups were read; events reach them within seconds.")
    period: Period
    timezone: str
    delivery: DeliveryMetrics
    engagement: EngagementMetrics
    latency: LatencyBreakdown
    comparison: Comparison | None = Field(
        default=None, description="The previous window of equal length; present with compare=previous_period."
    )


class MetricsDataPoint(Model):
    timestamp: datetime = Field(description="Bucket start, in the requested timezone.")
    sent: int
    delivered: int
    bounced: int
    complained: int
    opened: int
    clicked: int
    unsubscribed: int
    delayed: int
    rejected: int
    failed: int


class MetricsGroup(Model):
    key: str
    data: list[MetricsDataPoint] = Field(description="The group's non-idle buckets.")


class MetricsTimeseries(Model):
    data: list[MetricsDataPoint] = Field(description="Every bucket of the window, idle ones included.")
    resolution: Literal["hour", "day", "week", "month"]
    data_as_of: datetime
    timezone: str
    period: Period
    group_by: Literal["domain", "status", "subaccount"] | None
    groups: list[MetricsGroup] | None = Field(default=None, description="Present when group_by is set.")


class TrendPoint(Model):
    timestamp: datetime
    value: int


class BreakdownRow(Model):
    key: str
    label: str | None
    sent: int
    delivered: int
    bounced: int
    complained: int
    opened: int
    clicked: int
    unique_opens: int
    unique_clicks: int
    failed: int
    delivery_rate: Rate
    bounce_rate: Rate
    complaint_rate: Rate
    open_rate: Rate
    click_rate: Rate
    trend: list[TrendPoint] | None = Field(
        default=None, description="The sort metric per day of the window; present with include_trend=true."
    )


class MetricsBreakdown(Model):
    data_as_of: datetime
    dimension: str
    period: Period
    timezone: str
    sort: str
    total: int = Field(description="Distinct values of the dimension in the window, before the limit.")
    data: list[BreakdownRow]
