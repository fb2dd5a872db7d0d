"""Account rules: which statuses lock the API out, when live sending is held, what each plan allows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from postline.accounts.domain import PLAN_LIMITS, Account, AccountStatus, Plan, live_sending_paused

AT = datetime(2025, 3, 14, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (AccountStatus.ACTIVE, None),
        (AccountStatus.TRIALING, None),
        (AccountStatus.PAST_DUE, None),
        (AccountStatus.SUSPENDED, "account_suspended"),
        (AccountStatus.TRASHED, "account_deleted"),
    ],
)
def test_only_suspended_and_trashed_accounts_are_locked_out(status: AccountStatus, code: str | None) -> None:
    assert Account(id="acct_1", status=status, created_at=AT).blocked_code() == code


@pytest.mark.parametrize(
    ("account_paused", "platform_paused", "paused"),
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
def test_live_sending_is_held_by_the_account_or_the_platform(
    account_paused: bool, platform_paused: bool, paused: bool
) -> None:
    account = Account(id="acct_1", sending_paused=account_paused, created_at=AT)
    assert live_sending_paused(account, platform_paused) is paused


def test_new_accounts_default_to_an_active_free_plan_on_their_own_quota() -> None:
    account = Account(id="acct_1", created_at=AT)
    assert (account.plan, account.status, account.quota_source.value) == (Plan.FREE, AccountStatus.ACTIVE, "own_plan")
    assert (account.sending_paused, account.overage_enabled, account.rate_limit_per_minute) == (False, False, None)
    assert account.limits is PLAN_LIMITS[Plan.FREE]


@pytest.mark.parametrize(("plan", "retention_days"), [(Plan.FREE, 30), (Plan.PROFESSIONAL, 365)])
def test_retention_follows_the_published_plans(plan: Plan, retention_days: int) -> None:
    assert PLAN_LIMITS[plan].retention_days == retention_days


def test_every_plan_has_limits_and_a_paid_plan_never_allows_less_than_free() -> None:
    assert set(PLAN_LIMITS) == set(Plan)
    free, pro = PLAN_LIMITS[Plan.FREE], PLAN_LIMITS[Plan.PROFESSIONAL]
    for field in ("rate_limit_per_minute", "api_keys", "webhook_endpoints", "domains", "dedicated_ip_pools"):
        assert getattr(pro, field) >= getattr(free, field), field
    assert free.dedicated_ip_pools == 0
