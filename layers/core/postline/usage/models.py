"""GET /v3/usage: the plan's quotas and what the billing period used of them."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from postline.accounts.domain import Account, Plan, QuotaSource
from postline.shared.base import Model
from postline.usage.domain import BillingPeriod, billing_period


class EmailQuota(Model):
    limit: int | None
    used: int
    remaining: int | None
    ceiling: int | None
    overage_enabled: bool


class DailyQuota(Model):
    limit: int
    used: int
    remaining: int


class Allowance(Model):
    """A monthly allowance: limit (null = unlimited), used, remaining (null when unlimited)."""

    limit: int | None
    used: int
    remaining: int | None


class VerifyCredits(Allowance):
    """Not shown by the spec: the month's verification credits of live keys, like emails."""


class TestAllowance(Model):
    """Not shown by the spec: the free monthly allowance of test keys (the plan's test_allowance),
    which sends and verifications each draw from on their own counter; 429 when one runs out."""

    __test__ = False  # a model, not a pytest class

    emails: Allowance
    verifications: Allowance


class PaygCredits(Model):
    """Not shown by the spec: the pay-as-you-go balance, present while the quota is paid with credits
    (quota_source payg_credits, or a pooled subaccount whose organisation pays with them): prepaid
    emails left, spent once the plan's allowance is; at 0 a live send is 429 without Retry-After."""

    remaining: int
    account_id: str = Field(
        description="Whose balance: the account itself, or the organisation whose pool it draws on."
    )


class Usage(Model):
    plan: Plan
    quota_source: QuotaSource
    period: BillingPeriod
    emails: EmailQuota
    daily: DailyQuota | None
    verify_credits: VerifyCredits
    test_allowance: TestAllowance
    rate_limit_per_minute: int | None
    payg_credits: PaygCredits | None = None


def _remaining(limit: int | None, used: int) -> int | None:
    return None if limit is None else max(0, limit - used)


def _allowance(limit: int | None, used: int) -> Allowance:
    return Allowance(limit=limit, used=used, remaining=_remaining(limit, used))


def usage_report(
    account: Account,
    *,
    now: datetime,
    emails_used: int,
    daily_used: int,
    verify_used: int,
    test_emails_used: int = 0,
    test_verify_used: int = 0,
) -> Usage:
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
        test_allowance=TestAllowance(
            emails=_allowance(limits.test_allowance, test_emails_used),
            verifications=_allowance(limits.test_allowance, test_verify_used),
        ),
        rate_limit_per_minute=account.rate_limit_per_minute,
    )
