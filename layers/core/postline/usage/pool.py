"""Whose quota a send draws from (Usage's quota_source): its own plan's, or, for a subaccount
configured `shared_pool`, its organisation's pool: the parent's monthly and daily counters under the
parent's plan limits, taken by the same conditional transaction (usage/store.py), so sends of the
parent and of every pooled subaccount together never pass the pool's limit by one email.

Pay-as-you-go (`payg_credits`, set by the operator's `postline account grant-credits`): once the
plan's allowance stops a live send, it spends prepaid credits instead (a conditional decrement, never
below zero); at zero the send answers 429 rate_limit_exceeded without Retry-After (a top-up lifts it).

PooledQuotas wraps the QuotaStore sending and delivery use; UsageService reads the same owner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.accounts.domain import QuotaSource
from postline.usage.quota import EmailLimits, PoolStop, email_limits

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.usage.ports import AccountLookup, Credits, QuotaStore

CREDITS_SPENT = "credits"  # what stopped a pay-as-you-go send: the plan's allowance and the credits


def pool_owner(account: Account, accounts: AccountLookup) -> Account:
    """The account whose counters and plan limits `account`'s live sends draw from."""
    if account.quota_source is QuotaSource.SHARED_POOL and account.parent_account_id is not None:
        parent = accounts.get_account(account.parent_account_id)
        if parent is not None:
            return parent
    return account


class PooledQuotas:
    def __init__(self, own: QuotaStore, accounts: AccountLookup, credits: Credits | None = None) -> None:
        self._own = own
        self._accounts = accounts
        self._credits = credits

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        owner = self._owner(account_id, limits)
        if owner is not None:
            limits = email_limits(owner, test=False)
            account_id = owner.id
        stopped = self._own.consume_emails(account_id, count, month=month, day=day, limits=limits, charge=charge)
        if stopped is None:
            return None
        if limits.test or self._credits is None:
            return _named(stopped, owner, limits)
        payer = owner or self._accounts.get_account(account_id)
        if payer is None or payer.quota_source is not QuotaSource.PAYG_CREDITS:
            return _named(stopped, owner, limits)
        if not self._credits.take_credits(payer.id, count, charge=charge, day=day):
            return _named(CREDITS_SPENT, owner, limits)
        # Counted past the plan's limit too, so a release of this send (a failure before it is accepted)
        # gives back plan emails it never took without reopening the plan: credits then count too much,
        # never too little.
        # The charge goes with this count: a retry after it finds the charge and takes no credits again.
        unlimited = EmailLimits(None, None, test=False)
        self._own.consume_emails(payer.id, count, month=month, day=day, limits=unlimited, charge=charge)
        return None

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        owner = None if test else self._owner(account_id, None)
        payer = owner.id if owner else account_id
        self._own.release_emails(payer, count, month=month, day=day, test=test, charge=charge)

    def _owner(self, account_id: str, limits: EmailLimits | None) -> Account | None:
        """The pool's owner when a live send of `account_id` draws from another account's pool."""
        if limits is not None and (limits.test or not limits.pooled):
            return None  # the test allowance is each workspace's own; an unpooled account pays itself
        account = self._accounts.get_account(account_id)
        if account is None:
            return None
        owner = pool_owner(account, self._accounts)
        return owner if owner.id != account.id else None


def _named(stopped: str, owner: Account | None, limits: EmailLimits) -> str:
    """What stopped the send; for a pooled one, with the pool's owner and limits (the 429 names them)."""
    return stopped if owner is None else PoolStop(stopped, pool=owner, limits=limits)
