"""What the retention pass needs from storage (retention/store.py implements it)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.events.domain import Event


class RetentionStore(Protocol):
    def run_position(self, day: date) -> tuple[dict[str, Any] | None, bool]: ...

    def save_run_position(self, day: date, position: dict[str, Any] | None, *, done: bool, now: datetime) -> None: ...

    def accounts(self, position: dict[str, Any] | None) -> tuple[list[Account], dict[str, Any] | None]: ...

    def cleared_before(self, account_id: str) -> date | None: ...

    def save_cut(self, account_id: str, cut: datetime) -> None:
        """Records, before anything goes, that what lies before `cut` is deleted: the events
        query's counters (events/counts.py) stop answering for it."""
        ...

    def save_cleared_before(self, account_id: str, day: date) -> None: ...

    def expired_events(self, account_id: str, day: date, cut: datetime) -> Iterator[list[Event]]: ...

    def delete_messages(self, message_ids: list[str], cut: datetime) -> tuple[int, int]: ...

    def delete_events(self, events: list[Event]) -> int: ...

    def endpoint_ids(self, account_id: str) -> list[str | None]: ...

    def delete_deliveries(self, account_id: str, endpoint_id: str | None, month: str, cut: datetime) -> int: ...
