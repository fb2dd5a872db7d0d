"""Usage and quota for the calling account."""

from __future__ import annotations

from postline.accounts.domain import Account
from postline.keys.identity import Principal
from postline.shared.ports import Clock
from postline.usage.domain import day_key, month_key
from postline.usage.models import Usage, usage_report
from postline.usage.pool import pool_owner
from postline.usage.ports import AccountLookup, CounterStore


class UsageService:
    def __init__(self, *, counters: CounterStore, clock: Clock, accounts: AccountLookup | None = None) -> None:
        """accounts: to read a pooled subaccount's organisation pool (None: every account's own)."""
        self._counters = counters
        self._clock = clock
        self._accounts = accounts

    def get(self, principal: Principal) -> Usage:
        """The account's counters; a subaccount drawing from its organisation's pool (shared_pool)
        shows the pool's emails and daily counters and limits (the parent's), its own for the rest."""
        account = principal.account
        report = self._report(account)
        owner = pool_owner(account, self._accounts) if self._accounts is not None else account
        if owner.id == account.id:
            return report
        pool = self._report(owner)
        return report.model_copy(update={"emails": pool.emails, "daily": pool.daily})

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
