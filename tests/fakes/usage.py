"""In-memory fakes of the usage area's ports (`postline/usage/ports.py`): counters and email quotas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.usage.quota import EmailLimits

if TYPE_CHECKING:
    from postline.usage.ports import CounterStore, QuotaStore


class InMemoryCounters:
    """CounterStore: rate windows per account and per source (atomic add, first write sets the expiry)
    and usage counters."""

    def __init__(self) -> None:
        self.windows: dict[tuple[str, int], int] = {}
        self.expiries: dict[tuple[str, int], int] = {}
        self.source_windows: dict[tuple[str, int], int] = {}
        self.source_expiries: dict[tuple[str, int], int] = {}
        self._monthly: dict[tuple[str, str], dict[str, int]] = {}
        self._daily: dict[tuple[str, str], dict[str, int]] = {}

    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        slot = (account_id, window_start)
        self.windows[slot] = self.windows.get(slot, 0) + 1
        self.expiries.setdefault(slot, expires_at)
        return self.windows[slot]

    def uncount_request(self, account_id: str, window_start: int) -> None:
        self.windows[(account_id, window_start)] -= 1

    def count_source_request(self, source: str, window_start: int, *, expires_at: int) -> int:
        slot = (source, window_start)
        self.source_windows[slot] = self.source_windows.get(slot, 0) + 1
        self.source_expiries.setdefault(slot, expires_at)
        return self.source_windows[slot]

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        monthly = self._monthly.get((account_id, month), {})
        daily = self._daily.get((account_id, day), {})
        return {
            "emails": monthly.get("emails", 0),
            "verify": monthly.get("verify", 0),
            "test_emails": monthly.get("test_emails", 0),
            "test_verify": monthly.get("test_verify", 0),
            "emails_daily": daily.get("emails", 0),
        }

    def add_usage(
        self,
        account_id: str,
        *,
        month: str,
        day: str,
        emails: int = 0,
        verify: int = 0,
        test_emails: int = 0,
        test_verify: int = 0,
    ) -> None:
        """Count sends (month and day) and verifications (month), as the send path would; test keys'
        sends and verifications (month) on their own counters."""
        monthly = self._monthly.setdefault((account_id, month), {})
        monthly["emails"] = monthly.get("emails", 0) + emails
        monthly["verify"] = monthly.get("verify", 0) + verify
        monthly["test_emails"] = monthly.get("test_emails", 0) + test_emails
        monthly["test_verify"] = monthly.get("test_verify", 0) + test_verify
        daily = self._daily.setdefault((account_id, day), {})
        daily["emails"] = daily.get("emails", 0) + emails


class UnlimitedQuotas:
    """Every send fits; the emails given back are remembered (account, count, month, day, test)."""

    def __init__(self) -> None:
        self.released: list[tuple[str, int, str, str, bool]] = []

    def consume_emails(
        self, account_id: str, count: int, *, month: str, day: str, limits: EmailLimits, charge: str | None = None
    ) -> str | None:
        return None

    def release_emails(
        self, account_id: str, count: int, *, month: str, day: str, test: bool, charge: str | None = None
    ) -> None:
        self.released.append((account_id, count, month, day, test))


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _counters: CounterStore = InMemoryCounters()
    _quotas: QuotaStore = UnlimitedQuotas()
