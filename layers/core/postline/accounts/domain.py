"""Accounts, plans and what each plan allows, including how long an account's history is kept.

History retention (interface, limits table and "Other limits"): 30 days on Free, 12 months on a paid
plan; a free workspace inside a paid organisation inherits 12 months (`Account.organisation_plan`);
a downgrade keeps the former (longer) window for a 30-day grace, counted from the downgrade;
suppressions and unsubscribe records never expire. How the window is enforced is retention/'s."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import Field

from postline.shared.base import Model


class Plan(StrEnum):
    FREE = "free"
    PROFESSIONAL = "professional"


class AccountStatus(StrEnum):
    ACTIVE = "active"
    SUSPENDED = "suspended"
    PAST_DUE = "past_due"
    TRIALING = "trialing"
    TRASHED = "trashed"


class QuotaSource(StrEnum):
    OWN_PLAN = "own_plan"
    SHARED_POOL = "shared_pool"
    PAYG_CREDITS = "payg_credits"


class StorageAddon(StrEnum):
    """Hosted uploads' storage add-on, set by the operator (`postline account set-storage-addon`)."""

    NONE = "none"
    GB_10 = "10gb"
    GB_100 = "100gb"


# Hosted uploads (the interface's limits): paid plans, pay-as-you-go included, hold 100 MB, raised to
# 10 GB or 100 GB by a storage add-on; Free holds none. Decimal units, as storage is sold.
UPLOADS_INCLUDED_BYTES = 100 * 1000**2
STORAGE_ADDON_BYTES = {StorageAddon.NONE: UPLOADS_INCLUDED_BYTES, StorageAddon.GB_10: 10 * 1000**3,
                       StorageAddon.GB_100: 100 * 1000**3}  # fmt: skip


@dataclass(frozen=True)
class PlanLimits:
    """Published limits of a plan (API rate, history retention) plus the counts the interface leaves to us."""

    rate_limit_per_minute: int
    monthly_emails: int | None  # None = unlimited
    daily_emails: int | None  # None = no daily cap
    overage_ceiling: int | None  # absolute stop when overage is enabled
    verify_credits: int
    test_allowance: int  # free monthly test-mode sends and verifications
    api_keys: int
    webhook_endpoints: int
    domains: int
    dedicated_ip_pools: int
    subaccounts: int  # workspaces an organisation may hold (subaccounts/); 0: the plan has none
    retention_days: int
    smtp_submissions_per_second: int  # the interface's SMTP submission rate
    smtp_connections: int  # simultaneous SMTP submission connections


PLAN_LIMITS: dict[Plan, PlanLimits] = {
    Plan.FREE: PlanLimits(
        rate_limit_per_minute=600,
        monthly_emails=3_000,
        daily_emails=100,
        overage_ceiling=None,
        verify_credits=100,
        test_allowance=1_000,
        api_keys=10,
        webhook_endpoints=5,
        domains=1,
        dedicated_ip_pools=0,
        subaccounts=0,
        retention_days=30,
        smtp_submissions_per_second=10,
        smtp_connections=5,
    ),
    Plan.PROFESSIONAL: PlanLimits(
        rate_limit_per_minute=6_000,
        monthly_emails=50_000,
        daily_emails=None,
        overage_ceiling=150_000,
        verify_credits=5_000,
        test_allowance=10_000,
        api_keys=100,
        webhook_endpoints=50,
        domains=100,
        dedicated_ip_pools=5,
        subaccounts=25,
        retention_days=365,
        smtp_submissions_per_second=100,
        smtp_connections=20,
    ),
}

# Statuses under which the API refuses every request with 403: a suspended or deleted (trashed) account.
BLOCKED_STATUSES = {AccountStatus.SUSPENDED: "account_suspended", AccountStatus.TRASHED: "account_deleted"}


class Account(Model):
    id: str
    name: str | None = None
    plan: Plan = Plan.FREE
    status: AccountStatus = AccountStatus.ACTIVE
    quota_source: QuotaSource = QuotaSource.OWN_PLAN
    rate_limit_per_minute: int | None = Field(default=None, ge=1)
    overage_enabled: bool = False
    sending_paused: bool = False
    owner_email: str | None = None
    verify_before_send: bool = False  # keys whose own setting is null inherit this
    # The operator's sandbox and routing (sending/screening.py says what each does).
    sandbox: bool = False
    sandbox_recipients: list[str] = Field(default_factory=list)  # lowercased; owner_email is always allowed
    routed_to_sandbox: bool = False
    # History retention (retention/domain.py): the last downgrade keeps its former plan's window for a grace.
    downgraded_at: datetime | None = None
    downgraded_from: Plan | None = None
    # The plan of the organisation this workspace belongs to (a subaccount's parent's), which a free
    # workspace inherits its retention from: set as the subaccount is created, and again on each of the
    # organisation's subaccounts when the operator changes the parent's plan (operator/service.py).
    organisation_plan: Plan | None = None
    # How many mailing lists it has, kept by list create and delete in their transactions, so a send
    # to one address skips the list lookup when there are none (sending/service.py `_list_at`).
    # None: an account stored before lists were counted, whose every lone `to` is looked up. Only
    # the list store writes it (update_account leaves it alone).
    list_count: int | None = Field(default=None, ge=0)
    # A subaccount (a workspace of an organisation: subaccounts/) is an account like any other, with
    # the organisation's account as its parent, a slug unique among its siblings, and the parent's
    # own suspension switch beside the operator's `status`. Only the subaccount store writes these
    # (update_account leaves them alone).
    parent_account_id: str | None = None
    slug: str | None = None
    suspended_by_parent: bool = False
    storage_addon: StorageAddon = StorageAddon.NONE  # hosted uploads' quota (upload_quota_bytes)
    # The IP pool its sends use when they name none (ip_pools/); None: the shared platform pool. Only
    # the IP pool store writes it (update_account leaves it alone).
    default_ip_pool_id: str | None = None
    created_at: datetime

    @property
    def limits(self) -> PlanLimits:
        return PLAN_LIMITS[self.plan]

    @property
    def effective_rate_limit(self) -> int:
        return self.rate_limit_per_minute or self.limits.rate_limit_per_minute

    @property
    def paid(self) -> bool:
        """A paid plan, or pay-as-you-go (credits bought on the Free plan)."""
        return self.plan is not Plan.FREE or self.quota_source is QuotaSource.PAYG_CREDITS

    @property
    def upload_quota_bytes(self) -> int:
        """The bytes its hosted uploads may hold: 0 on Free, else the included 100 MB or its add-on's."""
        return STORAGE_ADDON_BYTES[self.storage_addon] if self.paid else 0

    def blocked_code(self) -> str | None:
        """The 403 code when the account may not use the API at all, else None: the operator's
        status, or a subaccount its parent suspended."""
        code = BLOCKED_STATUSES.get(self.status)
        if code is None and self.suspended_by_parent:
            return BLOCKED_STATUSES[AccountStatus.SUSPENDED]
        return code


def live_sending_paused(account: Account, platform_paused: bool) -> bool:
    """Live sends answer 503 sending_paused while the operator holds the account or the platform."""
    return platform_paused or account.sending_paused


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
