"""IP pools: the source addresses mail leaves from.

A pool is a named set of IP addresses. Platform pools (`account_id` None) are the operator's: the
shared pool every account sends through by default, read-only through the API. An account's own
pools are dedicated (its addresses alone) or warming (dedicated, following the warm-up ramp); how
many it may hold is its plan's `dedicated_ip_pools` (Free: none). Addresses are allocated to an
account by the operator (`postline ip allocate`), always into one of its pools, and the account
moves them between its pools. An address belongs to one account (or the platform) at a time.
`reputation` and `ip_details` are staff-managed: the API shows them and never changes them.

An account's default pool (`Account.default_ip_pool_id`) is the pool its sends use when they name
none; without one they use the shared platform pool.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from postline.shared.base import Model

# 403: a write to a platform pool (account_id null), which only the operator changes.
PLATFORM_POOL_READ_ONLY = "platform_pool_read_only"
PLAN_LIMIT_REACHED = "plan_limit_reached"


class PoolType(StrEnum):
    DEDICATED = "dedicated"
    SHARED = "shared"  # platform pools only
    WARMING = "warming"


# What an account may create or switch its own pools to.
ACCOUNT_POOL_TYPES = (PoolType.DEDICATED, PoolType.WARMING)


class Scaling(StrEnum):
    """How SES fills a pool's addresses (the SES transport only): standard, the ones the operator
    allocates; managed, addresses SES leases, warms and scales to the pool's volume by itself."""

    STANDARD = "standard"
    MANAGED = "managed"


class Provider(StrEnum):
    CLOUD_RELAY = "cloud-relay"  # Postline's relay task (SMTP from the pool's addresses) or SES
    ALT_POSTAL = "alt-postal"  # a second backend, listed for the interface's enum


class Pool(Model):
    """A stored pool. `version` grows with every write: each write is conditional on the one read."""

    id: str
    account_id: str | None = None  # None: a platform pool
    name: str
    provider: Provider = Provider.CLOUD_RELAY
    region: str | None = None
    type: PoolType
    ips: list[str] = Field(default_factory=list)
    reputation: int | None = Field(default=None, ge=0, le=100)
    ip_details: dict[str, dict[str, Any]] | None = None
    created_at: datetime
    warming_since: date | None = None  # the warm-up ramp's day 1 (UTC): set when the pool becomes warming
    # With the SES transport: the configuration set sends through this pool use (its SES dedicated IP
    # pool), made when the pool was; None where mail leaves from the relay's addresses instead.
    ses_configuration_set: str | None = None
    scaling: Scaling = Field(default_factory=lambda: Scaling.STANDARD)
    version: int = 0

    @property
    def platform(self) -> bool:
        return self.account_id is None


def normalize_ip(value: str) -> str:
    """The canonical text of an IPv4 or IPv6 address; ValueError for anything else."""
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 or IPv6 address") from None


def without(ips: list[str], ip: str) -> list[str]:
    return [held for held in ips if held != ip]


def with_ip(ips: list[str], ip: str) -> list[str]:
    return sorted({*ips, ip}, key=lambda text: ipaddress.ip_address(text).packed)


# An Elastic IP's allocation id (the relay's addresses in the cloud: docs/operating/deploying.md).
ALLOCATION_ID = re.compile(r"eipalloc-[0-9a-f]{8,32}")


def with_details(
    details: dict[str, dict[str, Any]] | None, ip: str, entry: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Staff's per-address details with `entry` merged into the address's."""
    return {**(details or {}), ip: {**(details or {}).get(ip, {}), **entry}}


def details_without(details: dict[str, dict[str, Any]] | None, ip: str) -> dict[str, dict[str, Any]] | None:
    if not details or ip not in details:
        return details
    rest = {held: entry for held, entry in details.items() if held != ip}
    return rest or None


# The warm-up ramp: how many copies each address of a warming pool sends on its day 1, 2, ... (UTC days
# from warming_since), in the spirit of SendGrid's published schedule (20-fold growth over the first
# week, doubling after) and SES's automatic warm-up; past the last day the pool sends without a cap.
# Copies past the day's cap leave from the shared platform pool (overflow): they never fail.
WARMUP_RAMP = (50, 100, 500, 1_000, 5_000, 10_000, 20_000, 40_000, 70_000, 100_000, 150_000, 250_000, 400_000,
               600_000, 1_000_000)  # fmt: skip


def warmup_cap(pool: Pool, today: date) -> int | None:
    """Copies the pool may send today (all its addresses together); None: no cap (not warming, or warm)."""
    if pool.type is not PoolType.WARMING or pool.warming_since is None or not pool.ips:
        return None
    day = max((today - pool.warming_since).days, 0)
    return WARMUP_RAMP[day] * len(pool.ips) if day < len(WARMUP_RAMP) else None


@dataclass(frozen=True)
class Source:
    """Where a copy leaves from: the pool (its id) and address, and the warming pool it overflowed from;
    with SES, the pool's configuration set (SES picks the address)."""

    pool_id: str | None
    ip: str | None
    overflowed_from: str | None = None
    ses_configuration_set: str | None = None
