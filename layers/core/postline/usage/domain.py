"""Usage and quota (GET /v3/usage): billing periods and remaining allowances."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pydantic import BaseModel

from postline.accounts.domain import Account, Plan, QuotaSource


class BillingPeriod(BaseModel):
    start: datetime
    end: datetime


class EmailQuota(BaseModel):
    limit: int | None
    used: int
    remaining: int | None
    ceiling: int | None
    overage_enabled: bool


class DailyQuota(BaseModel):
    limit: int
    used: int
    remaining: int


class VerifyCredits(BaseModel):
    """Not shown by the spec: the month's verification credits, like emails (null limit = unlimited)."""

    limit: int | None
    used: int
    remaining: int | None


class Usage(BaseModel):
    plan: Plan
    quota_source: QuotaSource
    period: BillingPeriod
    emails: EmailQuota
    daily: DailyQuota | None
    verify_credits: VerifyCredits
    rate_limit_per_minute: int | None


def billing_period(now: datetime) -> BillingPeriod:
    """Calendar month in UTC; counters are keyed by period so they 'reset' at its end."""
    start = datetime(now.year, now.month, 1, tzinfo=UTC)
    end = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=UTC)
    return BillingPeriod(start=start, end=end)


def month_key(now: datetime) -> str:
    return f"{now.year:04d}-{now.month:02d}"


def day_key(now: datetime) -> str:
    return date(now.year, now.month, now.day).isoformat()


def _remaining(limit: int | None, used: int) -> int | None:
    return None if limit is None else max(0, limit - used)


def usage_report(account: Account, *, now: datetime, emails_used: int, daily_used: int, verify_used: int) -> Usage:
    limits = account.limits
    return Usage(
        plan=account.plan,
        quota_source=account.quota_source,
        period=billing_period(now),
        emails=EmailQuota(
            limit=limits.monthly_emails,
            used=emails_used,
            remaining=_remaining(limits.monthly_emails, emails_used),
            ceiling=limits.overage_ceiling
            if account.overage_enabled and limits.overage_ceiling is not None
            else limits.monthly_emails,
            overage_enabled=account.overage_enabled,
        ),
        daily=None
        if limits.daily_emails is None
        else DailyQuota(
            limit=limits.daily_emails,
            used=daily_used,
            remaining=max(0, limits.daily_emails - daily_used),
        ),
        verify_credits=VerifyCredits(
            limit=limits.verify_credits,
            used=verify_used,
            remaining=_remaining(limits.verify_credits, verify_used),
        ),
        rate_limit_per_minute=account.rate_limit_per_minute,
    )
