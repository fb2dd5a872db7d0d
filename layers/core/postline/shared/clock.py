"""Clocks. Services never read the time themselves; they are handed one of these."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class MovableClock:
    """Real time plus an offset that only moves forward: the embedded runtime's clock.

    `/_local/clock/advance` moves it, so a 44-hour retry schedule runs in seconds.
    """

    def __init__(self) -> None:
        self._offset = timedelta()
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return datetime.now(UTC) + self._offset

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        with self._lock:
            self._offset += timedelta(seconds=seconds)
        return self.now()
