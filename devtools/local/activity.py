"""Counts deliveries in progress and done, so `drain` can tell a quiet runtime from a busy one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple


class Snapshot(NamedTuple):
    running: int
    finished: int


class Activity:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._finished = 0

    @contextmanager
    def working(self) -> Iterator[None]:
        """Wraps one delivery: a function invocation, a message released or sent by the clock."""
        with self._lock:
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._finished += 1

    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(self._running, self._finished)
