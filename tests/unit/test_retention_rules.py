"""Retention windows: plan, organisation hook, downgrade grace; where a pass cuts."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from postline.accounts.domain import DOWNGRADE_GRACE, Account, Plan, downgrade_changes, retention_days
from postline.retention.domain import cutoff, days_before

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _account(plan: Plan, **fields: object) -> Account:
    return Account.model_validate({"id": "acct_1", "plan": plan, "created_at": NOW - timedelta(days=500), **fields})


def test_free_keeps_30_days_and_paid_12_months() -> None:
    assert retention_days(_account(Plan.FREE), NOW) == 30
    assert retention_days(_account(Plan.PROFESSIONAL), NOW) == 365


def test_a_free_workspace_of_a_paid_organisation_inherits_12_months() -> None:
    assert retention_days(_account(Plan.FREE, organisation_plan=Plan.PROFESSIONAL), NOW) == 365
    assert retention_days(_account(Plan.FREE, organisation_plan=Plan.FREE), NOW) == 30


def test_a_downgrade_keeps_the_paid_window_for_exactly_its_grace() -> None:
    paid = _account(Plan.PROFESSIONAL)
    changes = downgrade_changes(paid, Plan.FREE, NOW)
    assert changes == {"downgraded_at": NOW, "downgraded_from": Plan.PROFESSIONAL}
    free = _account(Plan.FREE, **changes)
    assert retention_days(free, NOW) == 365
    assert retention_days(free, NOW + DOWNGRADE_GRACE - timedelta(seconds=1)) == 365
    assert retention_days(free, NOW + DOWNGRADE_GRACE) == 30
    assert timedelta(days=30) == DOWNGRADE_GRACE


def test_an_upgrade_or_a_same_plan_change_records_no_downgrade() -> None:
    assert downgrade_changes(_account(Plan.FREE), Plan.PROFESSIONAL, NOW) == {}
    assert downgrade_changes(_account(Plan.PROFESSIONAL), Plan.PROFESSIONAL, NOW) == {}


def test_the_cut_and_the_whole_days_before_it() -> None:
    cut = cutoff(NOW, 30)
    assert cut == NOW - timedelta(days=30)
    assert days_before(date(2026, 4, 29), cut) == [date(2026, 4, 29), date(2026, 4, 30), date(2026, 5, 1)]
    assert days_before(cut.date(), cut) == []  # the cut's own day is partial: a pass reads it up to the cut
    assert days_before(date(2026, 5, 10), cut) == []
