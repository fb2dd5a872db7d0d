"""What the submission service needs from outside: counters shared by every submission task."""

from __future__ import annotations

from typing import Protocol


class SubmissionCounters(Protocol):
    def count_submission(self, account_id: str, second: int) -> int:
        """Atomically counts one message in the account's one-second window; returns the new count."""
        ...

    def count_auth_failure(self, source: str, window_start: int) -> int:
        """Atomically counts a failed AUTH in the source's one-minute window; returns the new count."""
        ...

    def auth_failures(self, source: str, window_start: int) -> int:
        """Failed AUTH attempts counted in the source's window so far."""
        ...

    def take_seat(self, account_id: str, connection_id: str, *, limit: int, now: int, until: int) -> bool:
        """Holds one of the account's `limit` connection seats for `connection_id` until `until` (epoch
        seconds); False when all are held. Seats whose holder died (lease past) are freed on the way."""
        ...

    def renew_seat(self, account_id: str, connection_id: str, *, until: int) -> None:
        """Extends a held seat's lease."""
        ...

    def leave_seat(self, account_id: str, connection_id: str) -> None:
        """Frees the seat (a no-op when it is not held)."""
        ...
