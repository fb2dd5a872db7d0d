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


class PoolStop(str):
    """What stopped a send that drew from its organisation's shared pool ("monthly", "daily" or
    "credits", compared as that string), with the pool's owner and limits, so the 429 names the pool
    and its numbers rather than the subaccount's own plan's."""

    pool_id: str
    pool_name: str
    limits: EmailLimits

    def __new__(cls, stopped_by: str, *, pool: Account, limits: EmailLimits) -> PoolStop:
        stop = super().__new__(cls, stopped_by)
        stop.pool_id, stop.pool_name, stop.limits = pool.id, pool.name or pool.id, limits
        return stop


def quota_refusal(stopped_by: str, limits: EmailLimits, now: datetime) -> RateLimited:
    """429 rate_limit_exceeded with Retry-After until the window that stopped the send resets; a
    pooled send's (PoolStop) names the organisation's pool and its limits."""
    now = now.astimezone(UTC)
    pool = ""
    if isinstance(stopped_by, PoolStop):
        limits = stopped_by.limits
        pool = f" of the organisation's shared pool ({stopped_by.pool_name}, account {stopped_by.pool_id})"
    if stopped_by == "credits":  # pay-as-you-go (usage/pool.py): no reset to wait for, a top-up lifts it
        whose = pool or " of the account"
        return RateLimited(
            f"This send would exceed the plan's allowance of {limits.monthly} emails and the pay-as-you-go "
            f"credits{whose}; credits granted lift it at once.",
            code="rate_limit_exceeded",
        )
    if stopped_by == "daily":
        reset = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
        what = f"the daily cap of {limits.daily} emails{pool}"
    else:
        reset = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=UTC)
        allowance = "test-mode allowance" if limits.test else "monthly quota"
        what = f"the {allowance} of {limits.monthly} emails{pool}"
    retry_after = max(1, math.ceil((reset - now).total_seconds()))
    return RateLimited(
        f"This send would exceed {what}; it resets at {reset.isoformat()}.",
        code="rate_limit_exceeded",
        retry_after=retry_after,
    )
