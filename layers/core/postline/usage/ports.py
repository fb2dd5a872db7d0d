"""Counters: request windows, usage and email quotas.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.usage.quota import EmailLimits


class CounterStore(Protocol):
    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        """Atomically add one request to the account's window; returns the new count."""
        ...

    def uncount_request(self, account_id: str, window_start: int) -> None:
        """Takes one request back out of the account's window: one counted beside its authentication
        (auth/service.py), which then refused it (it counts in its source address's window instead)."""
        ...

    def count_source_request(self, source: str, window_start: int, *, expires_at: int) -> int:
        """Atomically add one request to a source address's window (ratelimit.source_key); the new count."""
        ...

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        """Counters of the month and day: emails, emails_daily, verify, test_emails, test_verify."""
        ...


class QuotaStore(Protocol):
    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        """Atomically count `count` emails against the month and the day, unless that would pass a
        limit; returns None when counted, else which limit stopped it ("monthly" or "daily"). With a
        `charge` (a step's own name, the same on its retries), once: a charge counted already is
        not counted again (None)."""
        ...

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        """Gives back emails counted for a send that then failed before it was accepted (and forgets
        the `charge` that counted them, at once)."""
        ...


class CreditBalance(Protocol):
    """What /v3/usage shows of pay-as-you-go credits."""

    def credits(self, account_id: str) -> int:
        """The account's prepaid emails left (0 when none were ever granted)."""
        ...


class Credits(CreditBalance, Protocol):
    """Pay-as-you-go credits: prepaid emails an account spends once its plan's allowance is spent."""

    def take_credits(self, account_id: str, count: int, *, charge: str | None = None, day: str = "") -> bool:
        """Atomically spends `count` credits if the balance holds them; False (nothing spent) otherwise.
        With a `charge` (as consume_emails', counted on `day`), once: a charge taken already is True."""
        ...


class AccountLookup(Protocol):
    """Whose pool a send draws from: the sending account and its parent."""

    def get_account(self, account_id: str) -> Account | None: ...
