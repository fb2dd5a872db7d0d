"""What sending and delivery need from the suppression lists.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from postline.suppressions.domain import SuppressionSource, SuppressionType


class Suppressions(Protocol):
    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        """The addresses (lowercased) on a bounces, unsubscribes or complaints list, minus allowlisted ones."""
        ...

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        """Puts the address on a list; True when it was not on it yet (adding again changes nothing)."""
        ...
