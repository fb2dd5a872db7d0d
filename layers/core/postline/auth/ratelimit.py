"""Fixed one-minute windows per account (the interface's per-account, per-minute window), and per
source address for the requests no account's window counts: those refused before it (401, and
the account-status and IP-allowlist 403s) and the public routes (tracking links, signing keys).
The interface puts the rate headers on every response; those report the address's window."""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from datetime import datetime

WINDOW_SECONDS = 60
# Requests a minute from one source address (IPv4) or /64 (IPv6) without an account: the smallest
# published API window (the Free plan's). Deployments set it with IpRateLimitPerMinute.
DEFAULT_IP_RATE_LIMIT = 600
_IPV6_PREFIX = 64  # what one IPv6 client (a home, a host) is typically given


def window_start(now: datetime) -> int:
    """Epoch second at which the window containing `now` began."""
    epoch = int(now.timestamp())
    return epoch - epoch % WINDOW_SECONDS


def source_key(source_ip: str | None) -> str:
    """Whose source window a request counts in: its IPv4 address, or its IPv6 /64 (an address alone
    would give each IPv6 client billions of windows). Without a readable address, one shared window."""
    try:
        address = ipaddress.ip_address(source_ip or "")
    except ValueError:
        return "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, _IPV6_PREFIX), strict=False))
    return str(address)


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
