"""The ports every area uses: the clock and id generation.

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
