"""bench/soak.py's measures: the slope of a memory series over its second half in MB per hour, the
aim's verdict, and the RSS and child processes it reads from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from bench import soak


def test_the_slope_is_the_least_squares_fit_in_mb_per_hour() -> None:
    assert soak.slope_per_hour([(0.0, 100.0), (1800.0, 110.0), (3600.0, 120.0)]) == pytest.approx(20.0)
    assert soak.slope_per_hour([(0.0, 100.0), (60.0, 100.0)]) == 0.0
    assert soak.slope_per_hour([(5.0, 100.0)]) == 0.0  # one point: no slope


def test_the_slope_is_taken_over_the_second_half_only() -> None:
    warming = [(float(t), 100.0 + t) for t in range(0, 1800, 60)]  # the first half grows 60 MB a minute
    flat = [(float(t), 1900.0) for t in range(1800, 3660, 60)]
    measured = soak.series("emulator", warming + flat, aim=50.0)
    assert measured.slope_mb_per_hour == pytest.approx(0.0)
    assert (measured.start_mb, measured.end_mb, measured.peak_mb) == (100.0, 1900.0, 1900.0)
    assert measured.met


def test_a_series_growing_faster_than_the_aim_misses_it() -> None:
    growing = [(float(t), 100.0 + t / 36) for t in range(0, 3600, 5)]  # 100 MB an hour
    measured = soak.series("runtime", growing, aim=50.0)
    assert measured.slope_mb_per_hour == pytest.approx(100.0)
    assert not measured.met
    report = soak.SoakReport({}, 60, 5, {}, {}, 0, 0, [measured], measured)
    assert soak.missed(report)


def test_rss_and_children_come_from_proc() -> None:
    rss = soak.rss_mb(os.getpid())
    assert rss is not None and rss > 1
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert child.pid in soak.child_pids(os.getpid())
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    assert soak.rss_mb(child.pid) is None  # gone


class _Answer:
    def __init__(self, status: int, body: dict[str, object]) -> None:
        self.status_code, self._body, self.content = status, body, b"{}"

    def json(self) -> dict[str, object]:
        return self._body


def test_the_clock_moves_the_days_asked_and_exports_ask_on_the_runtime_s_clock() -> None:
    load = soak.Load("http://runtime", "key", 0.5, 20, clock_days_per_minute=60)
    asked: list[tuple[str, str, object]] = []
    ahead = datetime.now(UTC) + timedelta(days=60)

    def request(method: str, url: str, timeout: float, **kwargs: object) -> _Answer:
        asked.append((method, url, kwargs.get("json")))
        if url.endswith("/_local/clock/advance"):
            return _Answer(200, {"now": ahead.isoformat()})
        return _Answer(202, {"export_id": "exp_1"})

    load.session.request = request  # type: ignore[assignment,method-assign]
    load.advance_clock()
    assert asked[0] == ("POST", "http://runtime/_local/clock/advance", {"seconds": 60 * 86400})
    load.export()
    until = datetime.fromisoformat(asked[1][2]["until"])  # type: ignore[index]
    assert abs((until - ahead).total_seconds()) < 60  # the window ends at the runtime's now, not this one's
    load.poll_export()  # polled every few seconds while the clock moves
    assert asked[2][:2] == ("GET", "http://runtime/v3/events/export/exp_1")


def test_without_a_moving_clock_the_clock_is_left_alone() -> None:
    load = soak.Load("http://runtime", "key", 0.5, 20)
    load.session.request = lambda *args, **kwargs: pytest.fail("no call expected")  # type: ignore[method-assign]
    load.advance_clock()
    load.poll_export()
