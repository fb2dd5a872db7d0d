"""Runs everything that waits on the movable clock: in the background as real time passes,
and at once when `/_local/clock/advance` or `/_local/drain` asks."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from devtools.local.background import TICKER_ROOT
from postline.shared.ports import Clock

logger = logging.getLogger(__name__)
_INTERVAL_SECONDS = 1.0


class DueWork(Protocol):
    name: str

    def fire_due(self, now: datetime) -> None:
        """Fires whatever is due at `now`."""


class Ticker:
    def __init__(self, clock: Clock, work: Sequence[DueWork]) -> None:
        self._clock = clock
        self._work = work
        self._lock = threading.Lock()  # one tick at a time, so nothing fires twice
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=TICKER_ROOT, daemon=True)

    def tick(self) -> None:
        with self._lock:
            now = self._clock.now()
            for work in self._work:
                try:
                    work.fire_due(now)
                except Exception:
                    logger.exception("%s: firing due work failed", work.name)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopping.wait(_INTERVAL_SECONDS):
            self.tick()
