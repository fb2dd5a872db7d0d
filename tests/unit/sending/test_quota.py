"""Sending quotas: which limits apply to a send and the 429 that stops it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from postline.accounts.domain import Account, Plan
from postline.usage.quota import EmailLimits, email_limits, quota_refusal

MARCH_14 = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def account(plan: Plan = Plan.FREE, **fields: Any) -> Account:
    return Account.model_validate({"id": "acct_1", "plan": plan, "created_at": MARCH_14, **fields})


LIVE_FREE = EmailLimits(monthly=3_000, daily=100, test=False)
TEST_FREE = EmailLimits(monthly=1_000, daily=None, test=True)


# --- which limits apply -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "overage", "limits"),
    [
        (Plan.FREE, False, EmailLimits(monthly=3_000, daily=100, test=False)),
        (Plan.FREE, True, EmailLimits(monthly=3_000, daily=100, test=False)),  # free has no overage ceiling
        (Plan.PROFESSIONAL, False, EmailLimits(monthly=50_000, daily=None, test=False)),
        (Plan.PROFESSIONAL, True, EmailLimits(monthly=150_000, daily=None, test=False)),  # up to the ceiling
    ],
)
def test_live_sends_count_against_the_plan(plan: Plan, overage: bool, limits: EmailLimits) -> None:
    assert email_limits(account(plan, overage_enabled=overage), test=False) == limits


@pytest.mark.parametrize(("plan", "allowance"), [(Plan.FREE, 1_000), (Plan.PROFESSIONAL, 10_000)])
@pytest.mark.parametrize("overage", [False, True])
def test_test_sends_count_against_the_test_allowance_only(plan: Plan, allowance: int, overage: bool) -> None:
    assert email_limits(account(plan, overage_enabled=overage), test=True) == EmailLimits(
        monthly=allowance, daily=None, test=True
    )


# --- the refusal --------------------------------------------------------------------------------


@pytest.mark.parametrize("stopped_by", ["daily", "monthly"])
def test_a_refusal_is_429_rate_limit_exceeded(stopped_by: str) -> None:
    refusal = quota_refusal(stopped_by, LIVE_FREE, MARCH_14)
    assert (refusal.status, refusal.code) == (429, "rate_limit_exceeded")
    assert refusal.retry_after is not None
    assert refusal.retry_after >= 1


@pytest.mark.parametrize(
    ("now", "reset"),
    [
        (utc(2025, 3, 14, 12), utc(2025, 3, 15)),
        (utc(2025, 3, 14), utc(2025, 3, 15)),
        (utc(2025, 3, 31, 23, 0), utc(2025, 4, 1)),
        (utc(2024, 2, 28, 6), utc(2024, 2, 29)),
        (utc(2025, 12, 31, 18), utc(2026, 1, 1)),
    ],
)
def test_the_daily_cap_resets_at_the_next_utc_midnight(now: datetime, reset: datetime) -> None:
    refusal = quota_refusal("daily", LIVE_FREE, now)
    assert refusal.retry_after == int((reset - now).total_seconds())
    assert reset.isoformat() in refusal.message
    assert "daily cap of 100 emails" in refusal.message


@pytest.mark.parametrize(
    ("now", "reset"),
    [
        (utc(2025, 3, 14, 12), utc(2025, 4, 1)),
        (utc(2025, 3, 1), utc(2025, 4, 1)),
        (utc(2024, 2, 29, 23, 59), utc(2024, 3, 1)),
        (utc(2025, 11, 30, 12), utc(2025, 12, 1)),
        (utc(2025, 12, 1), utc(2026, 1, 1)),  # December rolls over into January of the next year
        (utc(2025, 12, 31, 23, 59, 59), utc(2026, 1, 1)),
    ],
)
def test_the_monthly_quota_resets_at_the_next_utc_month(now: datetime, reset: datetime) -> None:
    refusal = quota_refusal("monthly", LIVE_FREE, now)
    assert refusal.retry_after == int((reset - now).total_seconds())
    assert reset.isoformat() in refusal.message
    assert "monthly quota of 3000 emails" in refusal.message


def test_the_test_allowance_says_so() -> None:
    refusal = quota_refusal("monthly", TEST_FREE, MARCH_14)
    assert "test-mode allowance of 1000 emails" in refusal.message


def test_retry_after_is_at_least_a_second() -> None:
    assert quota_refusal("daily", LIVE_FREE, utc(2025, 3, 14, 23, 59, 59, 999_999)).retry_after == 1


def test_retry_after_is_rounded_up() -> None:
    assert quota_refusal("daily", LIVE_FREE, utc(2025, 3, 14, 23, 59, 58, 500_000)).retry_after == 2


def test_the_reset_is_computed_in_utc_for_a_non_utc_now() -> None:
    now = datetime(2025, 3, 14, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 2025-03-15T04:30Z
    assert quota_refusal("daily", LIVE_FREE, now).retry_after == int((utc(2025, 3, 16) - now).total_seconds())
