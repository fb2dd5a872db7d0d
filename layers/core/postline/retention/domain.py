"""History retention: how long an account's events, messages (with their stored bodies) and
webhook delivery history are kept, and where a daily retention pass cuts.

The rules (interface, limits table and "Other limits"):
- 30 days on Free, 12 months on a paid plan;
- a free workspace inside a paid organisation inherits 12 months. Organisations do not exist yet:
  `Account.organisation_plan` is the hook (nothing sets it today); once an organisation's plan is
  known there, its workspaces get its window with no other change;
- a downgrade keeps the former (longer) window for a 30-day grace, counted from the downgrade;
- suppressions and unsubscribe records never expire (nothing here touches them).

Enforcement has two parts. Each item is written with a TTL from the window in force when it is
written (wiring.retention_days): enough while the plan stays as it is. A plan change does not
reach stored TTLs, so the daily pass (retention/service.py) deletes what lies before the current
window's cut, permanently; a query never shows events before the cut either (events/query.py).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from postline.accounts.domain import PLAN_LIMITS, Account, Plan

DOWNGRADE_GRACE = timedelta(days=30)


def retention_days(account: Account, now: datetime) -> int:
    """The history window in force at `now`: the plan's, an organisation's if longer, a downgraded
    plan's while its grace lasts."""
    days = account.limits.retention_days
    if account.organisation_plan is not None:
        days = max(days, PLAN_LIMITS[account.organisation_plan].retention_days)
    if (
        account.downgraded_from is not None
        and account.downgraded_at is not None
        and now < account.downgraded_at + DOWNGRADE_GRACE
    ):
        days = max(days, PLAN_LIMITS[account.downgraded_from].retention_days)
    return days


def downgrade_changes(account: Account, new_plan: Plan, now: datetime) -> dict[str, Any]:
    """The account fields a plan change sets: a move to a plan with a shorter window records the
    downgrade (its grace starts now); any other change leaves them as they are."""
    if PLAN_LIMITS[new_plan].retention_days >= account.limits.retention_days:
        return {}
    return {"downgraded_at": now, "downgraded_from": account.plan}


def cutoff(now: datetime, days: int) -> datetime:
    """The earliest instant still kept: everything strictly before it goes."""
    return now - timedelta(days=days)


def days_before(first: date, cut: datetime) -> list[date]:
    """The whole UTC days from `first` that end at or before `cut` (the cut's own day is partial)."""
    last = cut.date()
    return [first + timedelta(days=n) for n in range((last - first).days)] if first < last else []
