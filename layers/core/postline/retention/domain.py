"""History retention's enforcement: where a daily retention pass cuts. The rules (how long each plan
keeps history, the organisation's window, a downgrade's grace) are the plan's: accounts/domain.py.

Enforcement has two parts. Each item is written with a TTL from the window in force when it is
written (`retention_days` of the account): enough while the plan stays as it is. A plan change does
not reach stored TTLs, so the daily pass (retention/service.py) deletes what lies before the current
window's cut, permanently; a query never shows events before the cut either (events/query.py).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta


def cutoff(now: datetime, days: int) -> datetime:
    """The earliest instant still kept: everything strictly before it goes."""
    return now - timedelta(days=days)


def days_before(first: date, cut: datetime) -> list[date]:
    """The whole UTC days from `first` that end at or before `cut` (the cut's own day is partial)."""
    last = cut.date()
    return [first + timedelta(days=n) for n in range((last - first).days)] if first < last else []
