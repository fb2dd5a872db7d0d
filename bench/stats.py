"""Summaries of measured durations."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Latencies:
    """Durations of n operations (seconds), made one after another."""

    count: int
    total: float
    mean: float
    p50: float
    p99: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latencies:
        if not seconds:
            raise ValueError("nothing was measured")
        ordered = sorted(seconds)
        return cls(
            count=len(ordered),
            total=sum(ordered),
            mean=statistics.fmean(ordered),
            p50=percentile(ordered, 50),
            p99=percentile(ordered, 99),
        )

    @property
    def per_second(self) -> float:
        return self.count / self.total


def percentile(ordered: Sequence[float], pct: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), on sorted data."""
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else float("inf")


GROWTH_LIMIT = 1.2  # a workload's time may grow at most this much faster than its size


@dataclass(frozen=True)
class Growth:
    """One workload at two sizes: linear when its time grows no faster than GROWTH_LIMIT x its size."""

    workload: str
    unit: str  # what the size counts
    small: int
    large: int
    small_seconds: float
    large_seconds: float

    @property
    def size_factor(self) -> float:
        return self.large / self.small

    @property
    def growth(self) -> float:
        return ratio(self.large_seconds, self.small_seconds)

    @property
    def linear(self) -> bool:
        return self.growth <= GROWTH_LIMIT * self.size_factor
