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
from datetime import datetime
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
