"""In-memory fakes of the smtp area's port (`postline/smtp/ports.py`): the submission counters."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from postline.smtp.ports import SubmissionCounters


class InMemorySubmissionCounters:
    """SubmissionCounters (postline/smtp/ports.py): windows per account and source, seats with leases."""

    def __init__(self) -> None:
        self.submissions: dict[tuple[str, int], int] = {}
        self.failures: dict[tuple[str, int], int] = {}
        self.seats: dict[str, dict[str, int]] = {}

    def count_submission(self, account_id: str, second: int) -> int:
        self.submissions[account_id, second] = self.submissions.get((account_id, second), 0) + 1
        return self.submissions[account_id, second]

    def count_auth_failure(self, source: str, window_start: int) -> int:
        self.failures[source, window_start] = self.failures.get((source, window_start), 0) + 1
        return self.failures[source, window_start]

    def auth_failures(self, source: str, window_start: int) -> int:
        return self.failures.get((source, window_start), 0)

    def take_seat(self, account_id: str, connection_id: str, *, limit: int, now: int, until: int) -> bool:
        seats = self.seats.setdefault(account_id, {})
        for stale in [held for held, lease in seats.items() if lease <= now]:
            del seats[stale]
        if len(seats) >= limit:
            return False
        seats[connection_id] = until
        return True

    def renew_seat(self, account_id: str, connection_id: str, *, until: int) -> None:
        if connection_id in self.seats.get(account_id, {}):
            self.seats[account_id][connection_id] = until

    def leave_seat(self, account_id: str, connection_id: str) -> None:
        self.seats.get(account_id, {}).pop(connection_id, None)


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _counters: SubmissionCounters = InMemorySubmissionCounters()
