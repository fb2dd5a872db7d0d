"""The ports every area uses: the clock, id generation and the meter (service metrics); and what
the jobs table (shared/jobs.py) needs of a job's model.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, Self


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


class StoredJob(Protocol):
    """What a kind's model has: pydantic's dump and validation, an id, its account and a status."""

    @property
    def id(self) -> str: ...

    @property
    def account_id(self) -> str: ...

    @property
    def status(self) -> str: ...

    def model_dump(self, *, mode: str = ...) -> dict[str, Any]: ...

    @classmethod
    def model_validate(cls, obj: Any) -> Self: ...
