"""Fakes of the IP pools area's ports."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from postline.audit.domain import AuditEntry
from postline.ip_pools.domain import Pool
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from tests.fakes.keys import InMemoryStore

if TYPE_CHECKING:
    from postline.ip_pools.ports import IpPoolStore, WarmupCounts


class InMemoryIpPools:
    """IpPoolStore as the adapter: pools by (account or None, id), each write at the version read
    (else Conflict), the plan's count checked first, an address held once, the default on the
    account's stored item."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self.pools: dict[tuple[str | None, str], Pool] = {}
        self.holders: dict[str, tuple[str | None, str]] = {}
        self.audits: list[AuditEntry] = []

    def list_pools(self, account_id: str | None) -> list[Pool]:
        found = [pool for (owner, _), pool in self.pools.items() if owner == account_id]
        return sorted(found, key=lambda pool: (pool.created_at, pool.id))

    def get_pool(self, account_id: str | None, pool_id: str) -> Pool | None:
        return self.pools.get((account_id, pool_id))

    def create_pool(self, pool: Pool, *, max_pools: int | None, make_default: bool, audit: AuditEntry) -> None:
        if pool.account_id is not None and max_pools is not None:
            if len(self.list_pools(pool.account_id)) >= max_pools:
                raise Forbidden(f"Your plan allows at most {max_pools} dedicated IP pools", code="plan_limit_reached")
            if make_default:
                self._store._accounts[pool.account_id]["default_ip_pool_id"] = pool.id
        self.pools[(pool.account_id, pool.id)] = pool
        self.audits.append(audit)

    def save_pool(self, pool: Pool, *, default: bool | None, audit: AuditEntry) -> None:
        self._check(pool)
        if pool.account_id is not None and default is not None:
            stored = self._store._accounts[pool.account_id]
            if default:
                stored["default_ip_pool_id"] = pool.id
            elif stored.get("default_ip_pool_id") == pool.id:
                stored["default_ip_pool_id"] = None
            else:
                raise Conflict("default changed concurrently")
        self.pools[(pool.account_id, pool.id)] = pool
        self.audits.append(audit)

    def delete_pool(self, pool: Pool, *, was_default: bool, audit: AuditEntry) -> None:
        stored = self.pools.get((pool.account_id, pool.id))
        if stored is None:
            raise NotFound(f"IP pool {pool.id} not found")
        if stored.version != pool.version:
            raise Conflict("changed concurrently")
        del self.pools[(pool.account_id, pool.id)]
        if was_default and pool.account_id is not None:
            self._store._accounts[pool.account_id]["default_ip_pool_id"] = None
        self.audits.append(audit)

    def ip_holder(self, ip: str) -> tuple[str | None, str] | None:
        return self.holders.get(ip)

    def move_ip(self, ip: str, source: Pool, target: Pool, audit: AuditEntry) -> None:
        self._check(source)
        self._check(target)
        if self.holders.get(ip) != (source.account_id, source.id):
            raise Conflict(f"IP {ip} moved concurrently")
        self.pools[(source.account_id, source.id)] = source
        self.pools[(target.account_id, target.id)] = target
        self.holders[ip] = (target.account_id, target.id)
        self.audits.append(audit)

    def allocate_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        if ip in self.holders:
            raise ValidationFailed(f"ip: {ip} is allocated already; release it first")
        self._check(pool)
        self.pools[(pool.account_id, pool.id)] = pool
        self.holders[ip] = (pool.account_id, pool.id)
        self.audits.append(audit)

    def release_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        self._check(pool)
        del self.holders[ip]
        self.pools[(pool.account_id, pool.id)] = pool
        self.audits.append(audit)

    def _check(self, pool: Pool) -> None:
        stored = self.pools.get((pool.account_id, pool.id))
        if stored is None:
            raise NotFound(f"IP pool {pool.id} not found")
        if stored.version != pool.version - 1:
            raise Conflict(f"IP pool {pool.id} changed concurrently; retry")


class InMemoryWarmupCounts:
    def __init__(self) -> None:
        self.counts: dict[tuple[str, date], int] = {}

    def take(self, pool_id: str, day: date) -> int:
        self.counts[(pool_id, day)] = self.counts.get((pool_id, day), 0) + 1
        return self.counts[(pool_id, day)]


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _pools: IpPoolStore = InMemoryIpPools(InMemoryStore())
    _warmup: WarmupCounts = InMemoryWarmupCounts()
