"""In-memory fakes of the suppressions area's port (`postline/suppressions/ports.py`): the lists as
sending sees them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from postline.suppressions.domain import SuppressionSource, SuppressionType

if TYPE_CHECKING:
    from postline.suppressions.ports import Suppressions


class InMemorySuppressions:
    def __init__(self, *addresses: str) -> None:
        self.listed = {address.lower() for address in addresses}

    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        return {address.lower() for address in addresses} & self.listed

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
        self.listed.add(address.lower())
        return True


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _suppressions: Suppressions = InMemorySuppressions()
