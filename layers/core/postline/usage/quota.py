"""Sending quotas: the monthly allowance (with optional overage up to a ceiling), the daily cap,
and the free monthly allowance of test-mode sends; reaching any of them answers 429."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from postline.accounts.domain import Account, QuotaSource
from postline.shared.errors import RateLimited


@dataclass(frozen=True)
class EmailLimits:
    monthly: int | None  # None: no monthly stop
    daily: int | None  # None: no daily cap
    test: bool  # counted against the test allowance (monthly only) instead of the plan's quota
    # The account's live sends draw from its organisation's pool (usage/pool.py reads the pool's owner
    # only then: an account of its own costs no extra read per send).
    pooled: bool = False


def email_limits(account: Account, *, test: bool) -> EmailLimits:
    limits = account.limits
    if test:
        return EmailLimits(monthly=limits.test_allowance, daily=None, test=True)
    monthly = limits.monthly_emails
    if account.overage_enabled and limits.overage_ceiling is not None:
        monthly = limits.overage_ceiling  # overage: sending goes on, up to the absolute ceiling
    pooled = account.quota_source is QuotaSource.SHARED_POOL and account.parent_account_id is not None
    return EmailLimits(monthly=monthly, daily=limits.daily_emails, test=False, pooled=pooled)


def quota_refusal(stopped_by: str, limits: EmailLimits, now: datetime) -> RateLimited:
    """429 rate_limit_exceeded with Retry-After until the window that stopped the send resets."""
    now = now.astimezone(UTC)
    if stopped_by == "credits":  # pay-as-you-go (usage/pool.py): no reset to wait for, a top-up lifts it
        return RateLimited(
            f"This send would exceed the plan's allowance of {limits.monthly} emails and the account's "
            "pay-as-you-go credits; credits granted lift it at once.",
            code="rate_limit_exceeded",
        )
    if stopped_by == "daily":
        reset = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
        what = f"the daily cap of {limits.daily} emails"
    else:
        reset = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=UTC)
        allowance = "test-mode allowance" if limits.test else "monthly quota"
        what = f"the {allowance} of {limits.monthly} emails"
    retry_after = max(1, math.ceil((reset - now).total_seconds()))
    return RateLimited(
        f"This send would exceed {what}; it resets at {reset.isoformat()}.",
        code="rate_limit_exceeded",
        retry_after=retry_after,
    )
