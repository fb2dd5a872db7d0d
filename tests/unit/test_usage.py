"""Usage and quota (GET /v3/usage): calendar-month periods, remaining, ceiling, daily cap."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from postline.accounts.domain import Account, Plan, QuotaSource
from postline.usage.domain import billing_period, day_key, month_key
from postline.usage.models import usage_report

from .world import World

MARCH_14 = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "start", "end"),
    [
        (utc(2025, 3, 14, 12), utc(2025, 3, 1), utc(2025, 4, 1)),
        (utc(2025, 3, 1), utc(2025, 3, 1), utc(2025, 4, 1)),  # the first instant belongs to the month
        (utc(2025, 3, 31, 23, 59, 59, 999999), utc(2025, 3, 1), utc(2025, 4, 1)),
        (utc(2025, 1, 1), utc(2025, 1, 1), utc(2025, 2, 1)),
        (utc(2024, 2, 29, 8), utc(2024, 2, 1), utc(2024, 3, 1)),
        (utc(2025, 11, 30, 23), utc(2025, 11, 1), utc(2025, 12, 1)),
        # December rolls over into January of the next year.
        (utc(2025, 12, 1), utc(2025, 12, 1), utc(2026, 1, 1)),
        (utc(2025, 12, 31, 23, 59), utc(2025, 12, 1), utc(2026, 1, 1)),
    ],
)
def test_billing_period_is_the_calendar_month_in_utc(now: datetime, start: datetime, end: datetime) -> None:
    period = billing_period(now)
    assert (period.start, period.end) == (start, end)
    assert period.start <= now < period.end


def test_counter_keys_name_the_month_and_the_day() -> None:
    assert month_key(utc(2025, 3, 4)) == "2025-03"
    assert day_key(utc(2025, 3, 4, 23, 59)) == "2025-03-04"
    assert month_key(utc(2025, 12, 31)) == "2025-12"


def _account(plan: Plan = Plan.FREE, **fields: object) -> Account:
    return Account.model_validate({"id": "acct_1", "plan": plan, "created_at": MARCH_14, **fields})


def test_free_plan_usage_reports_monthly_and_daily_allowances() -> None:
    usage = usage_report(_account(Plan.FREE), now=MARCH_14, emails_used=1_200, daily_used=40, verify_used=30)
    assert usage.model_dump(mode="json") == {
        "plan": "free",
        "quota_source": "own_plan",
        "period": {"start": "2025-03-01T00:00:00Z", "end": "2025-04-01T00:00:00Z"},
        "emails": {"limit": 3_000, "used": 1_200, "remaining": 1_800, "ceiling": 3_000, "overage_enabled": False},
        "daily": {"limit": 100, "used": 40, "remaining": 60},
        "verify_credits": {"limit": 100, "used": 30, "remaining": 70},
        "test_allowance": {
            "emails": {"limit": 1_000, "used": 0, "remaining": 1_000},
            "verifications": {"limit": 1_000, "used": 0, "remaining": 1_000},
        },
        "rate_limit_per_minute": None,  # null = platform default
        "payg_credits": None,  # null unless the quota is paid with credits
    }


def test_remaining_is_never_negative_when_usage_passes_the_limits() -> None:
    usage = usage_report(_account(Plan.FREE), now=MARCH_14, emails_used=3_500, daily_used=130, verify_used=101)
    assert usage.emails.remaining == 0
    assert usage.daily is not None
    assert usage.daily.remaining == 0
    assert usage.verify_credits.remaining == 0
    assert (usage.emails.used, usage.daily.used, usage.verify_credits.used) == (3_500, 130, 101)


def test_the_test_allowance_reports_sends_and_verifications_on_their_own_counters() -> None:
    usage = usage_report(
        _account(Plan.PROFESSIONAL), now=MARCH_14, emails_used=0, daily_used=0, verify_used=3,
        test_emails_used=120, test_verify_used=10_400,
    )  # fmt: skip
    assert usage.test_allowance.emails.model_dump() == {"limit": 10_000, "used": 120, "remaining": 9_880}
    assert usage.test_allowance.verifications.model_dump() == {"limit": 10_000, "used": 10_400, "remaining": 0}
    assert usage.verify_credits.used == 3  # live credits are a count of their own


def test_daily_is_null_when_the_plan_has_no_daily_cap() -> None:
    usage = usage_report(_account(Plan.PROFESSIONAL), now=MARCH_14, emails_used=10, daily_used=10, verify_used=0)
    assert usage.daily is None
    assert usage.model_dump()["daily"] is None


@pytest.mark.parametrize(("overage", "ceiling"), [(False, 50_000), (True, 150_000)])
def test_ceiling_includes_overage_headroom_only_when_overage_is_enabled(overage: bool, ceiling: int) -> None:
    account = _account(Plan.PROFESSIONAL, overage_enabled=overage)
    usage = usage_report(account, now=MARCH_14, emails_used=60_000, daily_used=0, verify_used=0)
    assert usage.emails.model_dump() == {
        "limit": 50_000,
        "used": 60_000,
        "remaining": 0,
        "ceiling": ceiling,
        "overage_enabled": overage,
    }


def test_overage_on_a_plan_without_overage_headroom_keeps_the_monthly_limit_as_ceiling() -> None:
    # Regression: the free plan has no overage ceiling, and the ceiling used to come out null (no stop).
    usage = usage_report(
        _account(Plan.FREE, overage_enabled=True), now=MARCH_14, emails_used=0, daily_used=0, verify_used=0
    )
    assert usage.emails.ceiling == 3_000


def test_rate_limit_and_quota_source_come_from_the_account() -> None:
    account = _account(Plan.PROFESSIONAL, rate_limit_per_minute=9_000, quota_source=QuotaSource.SHARED_POOL)
    usage = usage_report(account, now=MARCH_14, emails_used=0, daily_used=0, verify_used=0)
    assert (usage.rate_limit_per_minute, usage.quota_source) == (9_000, QuotaSource.SHARED_POOL)


def test_usage_service_reads_this_month_and_today_only(world: World) -> None:
    account = world.account()
    other = world.account()  # the clock reads 2025-03-14
    world.counters.add_usage(account.id, month="2025-03", day="2025-03-13", emails=500, verify=7)
    world.counters.add_usage(account.id, month="2025-03", day="2025-03-13", test_emails=4, test_verify=9)
    world.counters.add_usage(account.id, month="2025-02", day="2025-02-13", test_emails=40, test_verify=90)
    world.counters.add_usage(account.id, month="2025-03", day="2025-03-14", emails=25)
    world.counters.add_usage(account.id, month="2025-02", day="2025-02-28", emails=2_000, verify=50)
    world.counters.add_usage(other.id, month="2025-03", day="2025-03-14", emails=99)

    usage = world.usage.get(world.console_principal(account))

    assert (usage.period.start, usage.period.end) == (utc(2025, 3, 1), utc(2025, 4, 1))
    assert (usage.emails.used, usage.emails.remaining) == (525, 2_475)
    assert usage.daily is not None
    assert (usage.daily.used, usage.daily.remaining) == (25, 75)
    assert usage.verify_credits.used == 7
    assert (usage.test_allowance.emails.used, usage.test_allowance.verifications.used) == (4, 9)


def test_usage_service_starts_a_fresh_period_in_the_next_month(world: World) -> None:
    account = world.account()
    world.counters.add_usage(account.id, month="2025-03", day="2025-03-31", emails=3_000)
    world.clock.set(utc(2025, 4, 1, 0, 0, 1))

    usage = world.usage.get(world.console_principal(account))

    assert usage.period.start == utc(2025, 4, 1)
    assert (usage.emails.used, usage.emails.remaining) == (0, 3_000)
