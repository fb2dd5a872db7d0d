"""Usage and quota for the calling account."""

from __future__ import annotations

from postline.accounts.domain import Account, QuotaSource
from postline.keys.identity import Principal
from postline.shared.ports import Clock
from postline.usage.domain import day_key, month_key
from postline.usage.models import PaygCredits, Usage, usage_report
from postline.usage.pool import pool_owner
from postline.usage.ports import AccountLookup, CounterStore, CreditBalance


class UsageService:
    def __init__(
        self,
        *,
        counters: CounterStore,
        clock: Clock,
        accounts: AccountLookup | None = None,
        credits: CreditBalance | None = None,
    ) -> None:
        """accounts: to read a pooled subaccount's organisation pool (None: every account's own);
        credits: the pay-as-you-go balances (None: not shown)."""
        self._counters = counters
        self._clock = clock
        self._accounts = accounts
        self._credits = credits

    def get(self, principal: Principal) -> Usage:
        """The account's counters; a subaccount drawing from its organisation's pool (shared_pool)
        shows the pool's emails and daily counters and limits (the parent's), its own for the rest."""
        account = principal.account
        report = self._report(account)
        owner = pool_owner(account, self._accounts) if self._accounts is not None else account
        if owner.id != account.id:
            pool = self._report(owner)
            report = report.model_copy(update={"emails": pool.emails, "daily": pool.daily})
        if owner.quota_source is QuotaSource.PAYG_CREDITS and self._credits is not None:
            balance = PaygCredits(remaining=self._credits.credits(owner.id), account_id=owner.id)
            report = report.model_copy(update={"payg_credits": balance})
        return report

    def _report(self, account: Account) -> Usage:
        now = self._clock.now()
        used = self._counters.usage(account.id, month=month_key(now), day=day_key(now))
        return usage_report(
            account,
            now=now,
            emails_used=used["emails"],
            daily_used=used["emails_daily"],
            verify_used=used["verify"],
            test_emails_used=used["test_emails"],
            test_verify_used=used["test_verify"],
        )
