"""bench/soak.py's measures: the slope of a memory series over its second half in MB per hour, the
aim's verdict, and the RSS and child processes it reads from /proc."""

from __future__ import annotations

import os
import subprocess
import sys

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
