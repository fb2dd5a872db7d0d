"""The daily retention pass: deletes, permanently, each account's history from before its window
(retention/domain.py): webhook delivery history, then events with their tag items, the messages
they belong to and those messages' bodies in S3.

Bounded: a run stops when its budget (the Lambda's remaining time, or a number of deletes) runs
out, between two pages. Resumable: the day's accounts scan position and each account's
`cleared_before` day are saved as they advance, and every delete is idempotent, so the next run
(a retry, or the next day's schedule) goes on where this one stopped and deletes nothing twice.
Within an account, what is deleted last is what the pass finds its way by (the event item), so a
run that dies between two deletes leaves nothing unreachable.

Not touched: suppressions and unsubscribe records (they never expire); export files (the
bucket's lifecycle rule deletes them after 7 days, inside every plan's window); metric roll-ups
(aggregates, no message or recipient in them): the cut is recorded for the events query's
counters instead, which then no longer answer for what it deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime

from postline.accounts.domain import Account, retention_days
from postline.retention.domain import cutoff, days_before
from postline.retention.ports import RetentionStore
from postline.shared import pass_positions
from postline.shared.ports import Clock

MARGIN_SECONDS = 10.0  # stop this long before the Lambda's end: one page's deletes fit in it


@dataclass
class RetentionRun:
    """What one run deleted, and whether the day's pass is complete."""

    accounts: int = 0
    events: int = 0
    messages: int = 0
    bodies: int = 0
    deliveries: int = 0
    complete: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return dict(self.__dict__)


@dataclass
class _Budget:
    time_left: Callable[[], float]
    max_deletes: int | None
    spent: int = field(default=0)

    def exhausted(self) -> bool:
        over = self.max_deletes is not None and self.spent >= self.max_deletes
        return over or self.time_left() < MARGIN_SECONDS

    def spend(self, deletes: int) -> None:
        self.spent += deletes


class RetentionService:
    def __init__(self, store: RetentionStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def run(self, time_left: Callable[[], float], *, max_deletes: int | None = None) -> RetentionRun:
        """One run of the day's pass: accounts in scan order until done or out of budget."""
        now = self._clock.now()
        today = now.date()
        result = RetentionRun()
        position, done = self._store.run_position(today)
        if done:
            result.complete = True
            return result
        budget = _Budget(time_left, max_deletes)
        result.accounts, result.complete = pass_positions.walk(
            position,
            self._store.accounts,
            lambda account: self._account(account, now, budget, result),  # cleared accounts are cheap again
            lambda following, end: self._store.save_run_position(today, following, done=end, now=now),
        )
        return result

    def _account(self, account: Account, now: datetime, budget: _Budget, result: RetentionRun) -> bool:
        """Deletes what the account keeps no more; False when the budget ran out first."""
        cut = cutoff(now, retention_days(account, now))
        if account.created_at >= cut:
            return True  # nothing it has can be that old
        first = self._store.cleared_before(account.id) or account.created_at.date()
        self._store.save_cut(account.id, cut)
        if not self._deliveries(account.id, first, cut, budget, result):
            return False
        for day in [*days_before(first, cut), cut.date()]:
            for events in self._store.expired_events(account.id, day, cut):
                if budget.exhausted():
                    return False
                messages, bodies = self._store.delete_messages([e.message_id for e in events], cut)
                result.events += self._store.delete_events(events)
                result.messages += messages
                result.bodies += bodies
                budget.spend(len(events) + messages)
            if day < cut.date():
                self._store.save_cleared_before(account.id, _next(day))
        return True

    def _deliveries(self, account_id: str, first: date, cut: datetime, budget: _Budget, result: RetentionRun) -> bool:
        months = _months(first, cut.date())
        for endpoint_id in self._store.endpoint_ids(account_id):
            for month in months:
                while True:
                    if budget.exhausted():
                        return False
                    deleted = self._store.delete_deliveries(account_id, endpoint_id, month, cut)
                    if not deleted:
                        break
                    result.deliveries += deleted
                    budget.spend(deleted)
        return True


def _next(day: date) -> date:
    return date.fromordinal(day.toordinal() + 1)


def _months(first: date, last: date) -> list[str]:
    """yyyy-mm of every month from `first`'s to `last`'s."""
    months, year, month = [], first.year, first.month
    while (year, month) <= (last.year, last.month):
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months
