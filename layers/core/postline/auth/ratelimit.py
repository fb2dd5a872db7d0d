"""Fixed one-minute windows per account (the interface's 'per-account, per-minute window')."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

WINDOW_SECONDS = 60


def window_start(now: datetime) -> int:
    """Epoch second at which the window containing `now` began."""
    epoch = int(now.timestamp())
    return epoch - epoch % WINDOW_SECONDS


@dataclass(frozen=True)
class RateDecision:
    limit: int
    used: int  # requests counted in this window, this one included
    reset_seconds: int

    @property
    def allowed(self) -> bool:
        return self.used <= self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.reset_seconds)
        return headers


def decide(*, limit: int, used: int, now: datetime) -> RateDecision:
    window_end = window_start(now) + WINDOW_SECONDS
    reset = max(1, math.ceil(window_end - now.timestamp()))
    return RateDecision(limit=limit, used=used, reset_seconds=reset)
