"""Usage and quota for the calling account."""

from __future__ import annotations

from postline.keys.identity import Principal
from postline.shared.ports import Clock
from postline.usage.domain import day_key, month_key
from postline.usage.models import Usage, usage_report
from postline.usage.ports import CounterStore


class UsageService:
    def __init__(self, *, counters: CounterStore, clock: Clock) -> None:
        self._counters = counters
        self._clock = clock

    def get(self, principal: Principal) -> Usage:
        now = self._clock.now()
        used = self._counters.usage(principal.account.id, month=month_key(now), day=day_key(now))
        return usage_report(
            principal.account,
            now=now,
            emails_used=used["emails"],
            daily_used=used["emails_daily"],
            verify_used=used["verify"],
            test_emails_used=used["test_emails"],
            test_verify_used=used["test_verify"],
        )
