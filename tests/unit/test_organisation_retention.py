"""Retention follows the organisation: a free workspace of a paid organisation keeps 12 months of
history (the limits table's retention row), set as the subaccount is made and as the parent's plan
changes; a workspace outside any organisation keeps its plan's."""

from __future__ import annotations

from datetime import timedelta

from postline.accounts.domain import PLAN_LIMITS, Plan, QuotaSource, retention_days
from postline.subaccounts.models import SubaccountCreate

from .world import World


def _subaccount_id(world: World, plan: Plan) -> tuple[str, str]:
    parent = world.account(plan=plan)
    if plan is Plan.FREE:  # a Free organisation has no subaccounts: make it while it is paid
        parent = world.operator.set_plan(parent.id, Plan.PROFESSIONAL)
    made = world.subaccounts.create(world.console_principal(parent), SubaccountCreate(name="W", slug="w"))
    return parent.id, made.id


def test_a_free_workspace_of_a_paid_organisation_keeps_twelve_months(world: World) -> None:
    _, sub_id = _subaccount_id(world, Plan.PROFESSIONAL)
    sub = world.operator.get_account(sub_id)
    assert (sub.plan, sub.organisation_plan, sub.quota_source) == (
        Plan.FREE,
        Plan.PROFESSIONAL,
        QuotaSource.SHARED_POOL,
    )
    assert retention_days(sub, world.clock.now()) == PLAN_LIMITS[Plan.PROFESSIONAL].retention_days == 365
    alone = world.account(plan=Plan.FREE)
    assert retention_days(alone, world.clock.now()) == 30


def test_the_organisations_plan_change_reaches_its_workspaces(world: World) -> None:
    parent_id, sub_id = _subaccount_id(world, Plan.PROFESSIONAL)
    world.operator.set_plan(parent_id, Plan.FREE)
    sub = world.operator.get_account(sub_id)
    assert sub.organisation_plan is Plan.FREE
    assert retention_days(sub, world.clock.now()) == 30
    world.operator.set_plan(parent_id, Plan.PROFESSIONAL)
    later = world.clock.now() + timedelta(days=400)
    assert retention_days(world.operator.get_account(sub_id), later) == 365
