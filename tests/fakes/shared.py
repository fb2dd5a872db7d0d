"""In-memory fakes of the ports every area uses (`postline/shared/ports.py`): the clock, ids and the meter;
and `Faulty`, which breaks one method of any fake."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from postline.shared.ports import Clock, IdFactory, Meter


DEFAULT_START = datetime(2025, 3, 14, 12, 0, 0, tzinfo=UTC)  # a window start: 12:00:00 exactly


class FixedClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime = DEFAULT_START) -> None:
        if start.tzinfo is None:
            raise ValueError("FixedClock wants an aware datetime")
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._now += timedelta(seconds=seconds)
        return self._now

    def set(self, when: datetime) -> datetime:
        if when < self._now:
            raise ValueError("the clock only moves forward")
        self._now = when
        return self._now


class SequentialIds:
    """Ids and secrets that count up: `key_000000000001`, bare ids as ordered UUIDs.

    Secrets lead with their counter, so consecutive secrets differ in their first characters
    (as random ones do) and a display prefix changes on rotation.
    """

    def __init__(self) -> None:
        self._ids = 0
        self._secrets = 0

    def new_id(self, prefix: str = "") -> str:
        self._ids += 1
        return f"{prefix}{self._ids:012d}" if prefix else str(uuid.UUID(int=self._ids))

    def secret(self, nbytes: int) -> str:
        self._secrets += 1
        head = f"{self._secrets:04d}"
        return (head + "S" * nbytes)[:nbytes]


class RecordingMeter:
    """The Meter port in memory: every count, summed per metric and dimension set. Thread-safe, as
    the webhook fan-out counts from its pool."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, frozenset[tuple[str, str]]], int] = {}
        self._lock = threading.Lock()

    def count(self, name: str, value: int = 1, **dimensions: str) -> None:
        slot = (name, frozenset(dimensions.items()))
        with self._lock:
            self.counts[slot] = self.counts.get(slot, 0) + value

    def of(self, name: str) -> dict[frozenset[tuple[str, str]], int]:
        """`name`'s counts by dimension set: compare with `dims(...)`."""
        return {dimensions: value for (metric, dimensions), value in self.counts.items() if metric == name}


def dims(**dimensions: str) -> frozenset[tuple[str, str]]:
    """One dimension set, as RecordingMeter.of keys them."""
    return frozenset(dimensions.items())


class Faulty:
    """Any port with one method that raises: `times` times (then it works again), or always (None)."""

    def __init__(self, target: Any, method: str, *, times: int | None = 1, error: Exception | None = None) -> None:
        self._target, self._method, self._left = target, method, times
        self._error = error or ConnectionError(f"{method} is down")

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if name != self._method:
            return attribute

        def failing(*args: Any, **kwargs: Any) -> Any:
            if self._left is None or self._left > 0:
                self._left = None if self._left is None else self._left - 1
                raise self._error
            return attribute(*args, **kwargs)

        return failing


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _clock: Clock = FixedClock()
    _ids: IdFactory = SequentialIds()
    _meter: Meter = RecordingMeter()
