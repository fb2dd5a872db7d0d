"""Stopping the pumps ends their long polls, even one that began just after the first wake
(devtools/local/pumps.py Pump.stop_all): the race that once held a runtime's stop for the poll's 20 s."""

from __future__ import annotations

import threading

from devtools.local.activity import Activity
from devtools.local.pumps import Pump


class LatePoller(Pump):
    """A pump that checked its stop signal just before it was set: its long poll starts after the
    first wake, and only a wake made after it started ends it (as the emulator's epochs do)."""

    def __init__(self) -> None:
        super().__init__("late", Activity())
        self.wakes = 0
        self.polling = threading.Event()
        self._woken = threading.Condition()

    def wake(self) -> None:
        with self._woken:
            self.wakes += 1
            self._woken.notify_all()

    def idle(self) -> bool:
        return True

    def _poll(self) -> None:
        with self._woken:
            self._woken.wait_for(lambda: self.wakes > 0)  # the poll begins after stop's first wake
            started = self.wakes
            self.polling.set()
            self._woken.wait_for(lambda: self.wakes > started, timeout=60)


def test_a_poll_that_starts_after_the_wake_is_woken_again() -> None:
    pump = LatePoller()
    pump.start()
    stopping = threading.Thread(target=Pump.stop_all, args=([pump], pump.wake), daemon=True)
    stopping.start()
    stopping.join(10)
    assert not stopping.is_alive(), "stop_all waited for a poll that began after its wake"
    assert pump.polling.is_set() and pump.wakes >= 2
