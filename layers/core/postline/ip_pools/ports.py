"""What the IP pool services need from storage. Adapters implement these; tests pass fakes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from datetime import date

    from postline.audit.domain import AuditEntry
    from postline.ip_pools.domain import Pool


class IpPoolStore(Protocol):
    def list_pools(self, account_id: str | None) -> list[Pool]:
        """The account's pools (None: the platform's), oldest first."""
        ...

    def get_pool(self, account_id: str | None, pool_id: str) -> Pool | None:
        """The account's pool (None: the platform's) of that id, if there is one."""
        ...

    def create_pool(self, pool: Pool, *, max_pools: int | None, make_default: bool, audit: AuditEntry) -> None:
        """Stores a new pool; an account's is counted against `max_pools` (Forbidden plan_limit_reached
        once reached) and, with make_default, becomes its default pool. None: a platform pool."""
        ...

    def save_pool(self, pool: Pool, *, default: bool | None, audit: AuditEntry) -> None:
        """Writes `pool` (its version one past the stored one, else Conflict). default True makes it
        its account's default pool, False unsets the default when it is this pool, None leaves it."""
        ...

    def delete_pool(self, pool: Pool, *, was_default: bool, audit: AuditEntry) -> None:
        """Deletes an empty pool at its version, uncounts it, and unsets the default when it was."""
        ...

    def ip_holder(self, ip: str) -> tuple[str | None, str] | None:
        """(account id or None for the platform, pool id) of an allocated address; None if unallocated."""
        ...

    def move_ip(self, ip: str, source: Pool, target: Pool, audit: AuditEntry) -> None:
        """Writes both pools (each at its version + 1) and the address's holder, in one transaction."""
        ...

    def allocate_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        """Records the address as `pool`'s account's (ValidationFailed when it is held already) and
        writes the pool."""
        ...

    def release_ip(self, ip: str, pool: Pool, audit: AuditEntry) -> None:
        """Forgets the address's holder and writes the pool without it."""
        ...


class SesPools(Protocol):
    """A pool's counterpart in SES: a dedicated IP pool and the configuration set that sends through
    it (ip_pools/ses.py). Both idempotent by the pool's id."""

    def provision(self, pool: Pool) -> str | None:
        """Makes them; the configuration set's name, or None when mail does not go through SES."""
        ...

    def retire(self, pool: Pool) -> None:
        """Deletes them (nothing to do when there are none)."""
        ...


class WarmupCounts(Protocol):
    def take(self, pool_id: str, day: date) -> int:
        """Counts one more copy of the pool's on `day` (UTC); returns the day's count with it."""
        ...


class PoolReputations(Protocol):
    def pool_scores(self, account_id: str, mode: str) -> tuple[dict[str, int | None], dict[str, int | None]]:
        """(pool id -> reputation, address -> reputation) of the account's own pools and addresses in a
        mode, as last computed from the metrics roll-ups (metrics/reputation.py); 0-100, None below
        the minimum volume."""
        ...
