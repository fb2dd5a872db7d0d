"""The organisation's shared quota pool (usage/pool.py): whose counters and limits a send draws from,
and what /v3/usage shows a pooled subaccount."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.accounts.domain import PLAN_LIMITS, Account, Plan, QuotaSource
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.usage.domain import day_key, month_key
from postline.usage.pool import PooledQuotas
from postline.usage.quota import EmailLimits, email_limits, quota_refusal
from postline.usage.service import UsageService
from tests.fakes.shared import FixedClock
from tests.fakes.usage import InMemoryCounters

NOW = datetime(2025, 3, 14, 12, tzinfo=UTC)
MONTH, DAY = month_key(NOW), day_key(NOW)
PARENT = Account(id="parent", name="Org", plan=Plan.PROFESSIONAL, created_at=NOW)
POOLED = Account(
    id="pooled", plan=Plan.FREE, parent_account_id="parent", quota_source=QuotaSource.SHARED_POOL, created_at=NOW
)
OWN = Account(id="own", plan=Plan.FREE, parent_account_id="parent", created_at=NOW)


class Accounts:
    def get_account(self, account_id: str) -> Account | None:
        return {a.id: a for a in (PARENT, POOLED, OWN)}.get(account_id)


class Recorded:
    """QuotaStore: remembers whose counter each call names, and with which limits."""

    def __init__(self) -> None:
        self.consumed: list[tuple[str, EmailLimits]] = []
        self.released: list[tuple[str, bool]] = []

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        self.consumed.append((account_id, limits))
        return None

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        self.released.append((account_id, test))


def test_a_pooled_subaccounts_live_send_draws_from_its_parents_counters_and_limits() -> None:
    own = Recorded()
    quotas = PooledQuotas(own, Accounts())
    quotas.consume_emails("pooled", 2, month=MONTH, day=DAY, limits=email_limits(POOLED, test=False))
    quotas.release_emails("pooled", 1, month=MONTH, day=DAY, test=False)
    assert own.consumed == [("parent", email_limits(PARENT, test=False))]
    assert own.released == [("parent", False)]


def test_its_test_sends_and_an_own_plan_subaccounts_sends_stay_its_own() -> None:
    own = Recorded()
    quotas = PooledQuotas(own, Accounts())
    test_limits = email_limits(POOLED, test=True)
    quotas.consume_emails("pooled", 1, month=MONTH, day=DAY, limits=test_limits)
    quotas.consume_emails("own", 1, month=MONTH, day=DAY, limits=email_limits(OWN, test=False))
    quotas.release_emails("pooled", 1, month=MONTH, day=DAY, test=True)
    assert own.consumed == [("pooled", test_limits), ("own", email_limits(OWN, test=False))]
    assert own.released == [("pooled", True)]


def _principal(account: Account) -> Principal:
    return Principal(account=account, env=Environment.LIVE, scope=Scope.FULL_ACCESS)


def test_usage_of_a_pooled_subaccount_shows_the_pool() -> None:
    counters = InMemoryCounters()
    counters.add_usage("parent", month=MONTH, day=DAY, emails=700)
    counters.add_usage("pooled", month=MONTH, day=DAY, verify=3)
    service = UsageService(counters=counters, clock=FixedClock(NOW), accounts=Accounts())
    seen = service.get(_principal(POOLED))
    limit = PLAN_LIMITS[Plan.PROFESSIONAL].monthly_emails
    assert (seen.plan, seen.quota_source) == (Plan.FREE, QuotaSource.SHARED_POOL)
    assert (seen.emails.limit, seen.emails.used, seen.emails.remaining) == (limit, 700, limit - 700)
    assert seen.daily is None  # the Professional pool has no daily cap
    assert seen.verify_credits.used == 3  # verifications stay its own
    mine = service.get(_principal(OWN))
    assert (mine.quota_source, mine.emails.used, mine.emails.limit) == (QuotaSource.OWN_PLAN, 0, 3_000)


class Stopping(Recorded):
    """QuotaStore whose plan allowance is spent: every live send stops on the month."""

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        super().consume_emails(account_id, count, month=month, day=day, limits=limits, charge=charge)
        return None if limits.test else "monthly"


class Balance:
    def __init__(self, credits: int) -> None:
        self.balance = credits

    def take_credits(self, account_id: str, count: int, *, charge: str | None = None, day: str = "") -> bool:
        if self.balance < count:
            return False
        self.balance -= count
        return True

    def credits(self, account_id: str) -> int:
        return self.balance


def test_payg_credits_are_spent_once_the_plan_stops_and_never_below_zero() -> None:
    payg = Account(id="payg", plan=Plan.FREE, quota_source=QuotaSource.PAYG_CREDITS, created_at=NOW)

    class WithPayg(Accounts):
        def get_account(self, account_id: str) -> Account | None:
            return payg if account_id == "payg" else super().get_account(account_id)

    balance, plan = Balance(3), Stopping()
    quotas = PooledQuotas(plan, WithPayg(), credits=balance)
    limits = email_limits(payg, test=False)
    assert quotas.consume_emails("payg", 2, month=MONTH, day=DAY, limits=limits) is None
    # Refused by the plan, then counted past its limit (a release gives back nothing the plan lent).
    assert plan.consumed == [("payg", limits), ("payg", EmailLimits(None, None, test=False))]
    assert quotas.consume_emails("payg", 2, month=MONTH, day=DAY, limits=limits) == "credits"  # 1 left: not 2
    assert balance.balance == 1
    # An own-plan account keeps its plan's stop, whatever credits exist.
    assert quotas.consume_emails("own", 1, month=MONTH, day=DAY, limits=email_limits(OWN, test=False)) == "monthly"
    assert balance.balance == 1


def test_the_credits_refusal_has_no_retry_after() -> None:
    refusal = quota_refusal("credits", email_limits(OWN, test=False), NOW)
    assert (refusal.status, refusal.code, refusal.retry_after) == (429, "rate_limit_exceeded", None)
    assert quota_refusal("monthly", email_limits(OWN, test=False), NOW).retry_after is not None


def test_a_pooled_send_refused_names_the_organisations_pool_and_its_limits() -> None:
    class PoolSpent(Recorded):
        def consume_emails(
            self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
        ) -> str | None:
            super().consume_emails(account_id, count, month=month, day=day, limits=limits, charge=charge)
            return "monthly"

    own_limits = email_limits(POOLED, test=False)
    stopped = PooledQuotas(PoolSpent(), Accounts()).consume_emails("pooled", 1, month=MONTH, day=DAY, limits=own_limits)
    assert stopped == "monthly"
    refusal = quota_refusal(stopped, own_limits, NOW)
    pool_limit = PLAN_LIMITS[Plan.PROFESSIONAL].monthly_emails
    assert f"monthly quota of {pool_limit} emails of the organisation's shared pool (Org, account parent)" in (
        refusal.message
    )
    assert refusal.retry_after is not None
    # An account of its own keeps its own words.
    alone = PooledQuotas(PoolSpent(), Accounts()).consume_emails(
        "own", 1, month=MONTH, day=DAY, limits=email_limits(OWN, test=False)
    )
    assert alone is not None and "pool" not in quota_refusal(alone, email_limits(OWN, test=False), NOW).message


def test_a_pool_paid_with_credits_refuses_naming_the_pool_and_usage_shows_its_balance() -> None:
    payg_org = PARENT.model_copy(update={"quota_source": QuotaSource.PAYG_CREDITS})

    class PaygOrg(Accounts):
        def get_account(self, account_id: str) -> Account | None:
            return payg_org if account_id == "parent" else super().get_account(account_id)

    balance = Balance(1)
    quotas = PooledQuotas(Stopping(), PaygOrg(), credits=balance)
    limits = email_limits(POOLED, test=False)
    assert quotas.consume_emails("pooled", 1, month=MONTH, day=DAY, limits=limits) is None
    stopped = quotas.consume_emails("pooled", 1, month=MONTH, day=DAY, limits=limits)
    assert stopped == "credits"
    assert stopped is not None
    refusal = quota_refusal(stopped, limits, NOW)
    assert "pay-as-you-go credits of the organisation's shared pool (Org, account parent)" in refusal.message
    assert refusal.retry_after is None

    balance.balance = 42
    service = UsageService(counters=InMemoryCounters(), clock=FixedClock(NOW), accounts=PaygOrg(), credits=balance)
    seen = service.get(_principal(POOLED))
    assert seen.payg_credits is not None
    assert (seen.payg_credits.remaining, seen.payg_credits.account_id) == (42, "parent")
    assert service.get(_principal(payg_org)).payg_credits is not None
    assert service.get(_principal(OWN)).payg_credits is None  # its own plan: no balance shown
