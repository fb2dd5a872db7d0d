"""The ports every area uses: the clock, id generation and the meter (service metrics).

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdFactory(Protocol):
    def new_id(self, prefix: str = "") -> str: ...

    def secret(self, nbytes: int) -> str: ...


class Meter(Protocol):
    def count(self, name: str, value: int = 1, **dimensions: str) -> None:
        """Adds `value` to the metric `name` under these dimensions. Dimensions take a few values each
        (an outcome, a mode), never ids: every combination is a metric of its own, and each one costs.
        Call it once the counted thing happened (its write succeeded), so a repeated job counts once."""
        ...
