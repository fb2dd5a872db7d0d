"""Cached adapters hold the clock as it is at each call: the embedded runtime and tests install
theirs after some adapters were built (the webhook client's OAuth2 token expiry reads it)."""

from __future__ import annotations

from datetime import UTC, datetime

from postline import wiring
from postline.wiring import registry
from tests.fakes.shared import FixedClock


def test_the_current_clock_follows_set_clock() -> None:
    previous = wiring.clock()
    current = registry.CurrentClock()
    try:
        wiring.set_clock(FixedClock(datetime(2026, 1, 1, tzinfo=UTC)))
        assert current.now() == datetime(2026, 1, 1, tzinfo=UTC)
        wiring.set_clock(FixedClock(datetime(2027, 6, 1, tzinfo=UTC)))
        assert current.now() == datetime(2027, 6, 1, tzinfo=UTC)
    finally:
        wiring.set_clock(previous)
