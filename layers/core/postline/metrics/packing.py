"""The daily packing pass: each account's closed UTC days of roll-ups, hour items into one item per
series and day (metrics/store.py `pack_day`; metrics/domain.py says why packing, not coarsening).

Which days: from the day after the account's `packed_through` (or its first day of roll-ups) to the
last day closed for CLOSED_AFTER, when no stream record can still add to it, counted from where the
roll-up consumer stands rather than from now: a consumer that lags (its IteratorAge, which it notes
as it reads each batch, metrics/store.py MLAG) still has records of the days it lags behind to
count, and a day packed before they arrive would keep their hour items unpacked. Bounded: a run stops
when its time runs out, between two days. Resumable and idempotent: each account's
`packed_through` and the day's position in the accounts walk are saved as they advance, and
packing a packed day changes nothing, so a run cut short (or dying mid-day) is continued by the
next one and the figures read the same throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from postline.metrics.domain import last_closed_day
from postline.metrics.ports import PackingStore
from postline.shared import pass_positions
from postline.shared.ports import Clock

MARGIN_SECONDS = 10.0  # stop this long before the Lambda's end: one day's packing fits in it
MODES = ("live", "test")
_ACCOUNTS_PAGE = 100
# The roll-ups' TTL is the retention window (12 months at most, plus a downgrade's grace): older
# days hold nothing to pack, so an account never packed starts at most this far back.
_FURTHEST_BACK = timedelta(days=400)


@dataclass
class PackingRun:
    accounts: int = 0
    days: int = 0
    series: int = 0
    hour_items: int = 0
    changed: int = 0
    too_large: int = 0
    complete: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return dict(self.__dict__)


class PackingService:
    def __init__(self, *, store: PackingStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def run(self, time_left: Callable[[], float]) -> PackingRun:
        """One run of the day's pass: accounts in index order until done or out of time."""
        now = self._clock.now()
        today = now.date()
        result = PackingRun()
        lag = self._store.consumer_lag(now)
        position, done = self._store.pass_position(today)
        if done:
            result.complete = True
            return result
        result.accounts, result.complete = pass_positions.walk(
            position,
            lambda at: self._store.accounts_with_history(at, _ACCOUNTS_PAGE),
            lambda account_id: self.pack_account(account_id, result, time_left, lag),  # packed ones cost a read
            lambda following, end: self._store.save_pass_position(today, following, done=end, now=now),
        )
        return result

    def pack_account(
        self,
        account_id: str,
        result: PackingRun | None = None,
        time_left: Callable[[], float] | None = None,
        lag: float | None = None,
    ) -> bool:
        """Packs the account's closed days not packed yet; False when time ran out first. `lag`:
        the consumer's (read from the store when not given)."""
        result = result if result is not None else PackingRun()
        now = self._clock.now()
        lag = self._store.consumer_lag(now) if lag is None else lag
        last = last_closed_day(now - timedelta(seconds=lag))  # closed for CLOSED_AFTER where the consumer is
        done = self._store.packed_through(account_id)
        if done is not None:
            first = done + timedelta(days=1)
        else:
            start = self._store.history_from(account_id)
            if start is None:
                return True  # nothing counted yet
            first = max(start, last - _FURTHEST_BACK)
        day, held = first, False
        while day <= last:
            if time_left is not None and time_left() < MARGIN_SECONDS:
                return False
            changed = 0
            for mode in MODES:
                packed = self._store.pack_day(account_id, mode, f"{day}")
                result.series += packed.series
                result.hour_items += packed.hour_items
                result.too_large += packed.too_large
                changed += packed.changed
            result.changed += changed
            result.days += 1
            held = held or changed > 0  # a series written to meanwhile: this day again next run
            if not held:
                self._store.save_packed_through(account_id, day)
            day += timedelta(days=1)
        return True
