"""Usage and quota (GET /v3/usage): billing periods and remaining allowances."""

from __future__ import annotations

from datetime import UTC, date, datetime

from postline.shared.base import Model


class BillingPeriod(Model):
    start: datetime
    end: datetime


def billing_period(now: datetime) -> BillingPeriod:
    """Calendar month in UTC; counters are keyed by period so they 'reset' at its end."""
    start = datetime(now.year, now.month, 1, tzinfo=UTC)
    end = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=UTC)
    return BillingPeriod(start=start, end=end)


def month_key(now: datetime) -> str:
    return f"{now.year:04d}-{now.month:02d}"


def day_key(now: datetime) -> str:
    return date(now.year, now.month, now.day).isoformat()
