"""IP pools: the account's routes (IpPoolService) and the operator's (IpPoolAdmin).

An account lists the platform's pools with its own, creates, changes and deletes its own (dedicated
or warming, up to its plan's dedicated_ip_pools), picks its default, lists its addresses and moves
them between its pools. The operator creates platform pools, allocates and releases addresses and
sets the staff-managed reputation and ip_details. Every write is audited in its transaction.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from datetime import date
from typing import Any

from postline.audit.domain import Actor, AuditEntry
from postline.audit.service import new_audit_entry
from postline.ip_pools.domain import (
    ALLOCATION_ID,
    PLAN_LIMIT_REACHED,
    PLATFORM_POOL_READ_ONLY,
    Pool,
    PoolType,
    Provider,
    Source,
    details_without,
    normalize_ip,
    warmup_cap,
    with_details,
    with_ip,
    without,
)
from postline.ip_pools.models import Ip, IpAssign, IpPool, IpPoolCreate, IpPoolUpdate, ips_of, pool_view
from postline.ip_pools.ports import IpPoolStore, PoolReputations, SesPools, WarmupCounts
from postline.ip_pools.ses import PREFIX as SES_PREFIX
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import Forbidden, NotFound, ValidationFailed
from postline.shared.pagination import Page, slice_page
from postline.shared.ports import Clock, IdFactory

logger = logging.getLogger(__name__)


class IpPoolService:
    def __init__(
        self,
        *,
        pools: IpPoolStore,
        ids: IdFactory,
        clock: Clock,
        ses: SesPools | None = None,
        reputations: PoolReputations | None = None,
    ) -> None:
        """ses: the SES transport's counterpart of each pool (None: the relay binds addresses);
        reputations: the computed reputation of the account's pools and addresses (None: staff's only)."""
        self._pools = pools
        self._ids = ids
        self._clock = clock
        self._ses = ses
        self._reputations = reputations

    def _scores(self, principal: Principal) -> tuple[dict[str, int | None], dict[str, int | None]] | None:
        """In the caller's mode, as the metrics routes answer (a test key: its simulated mail's)."""
        if self._reputations is None:
            return None
        return self._reputations.pool_scores(principal.account.id, principal.env.value)

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[IpPool]:
        """The platform's pools first (read-only), then the account's, each oldest first."""
        account = principal.account
        pools = [*self._pools.list_pools(None), *self._pools.list_pools(account.id)]
        scores = self._scores(principal)
        views = [pool_view(pool, account.default_ip_pool_id, scores) for pool in pools]
        return slice_page(views, page=page, per_page=per_page)

    def get(self, principal: Principal, pool_id: str) -> IpPool:
        pool = self._visible(principal, pool_id)
        return pool_view(pool, principal.account.default_ip_pool_id, self._scores(principal))

    def create(self, principal: Principal, request: IpPoolCreate) -> IpPool:
        account = principal.account
        limit = account.limits.dedicated_ip_pools
        if limit == 0:
            raise Forbidden(
                f"The {account.plan.value} plan has no dedicated IP pools; upgrade to create them.",
                code=PLAN_LIMIT_REACHED,
            )
        self._unique_name(account.id, request.name)
        pool = Pool(
            id=self._ids.new_id(),
            account_id=account.id,
            name=request.name,
            region=request.region,
            type=request.type,
            created_at=self._clock.now(),
            warming_since=self._clock.now().date() if request.type is PoolType.WARMING else None,
            scaling=request.scaling,
        )
        # SES's pool and configuration set first, named by the pool's id: a pool is never stored
        # without them, and a store that fails (the plan's count, a race) takes them back.
        if self._ses is not None:
            pool = pool.model_copy(update={"ses_configuration_set": self._ses.provision(pool)})
        audit = self._audit(principal.actor(), account.id, "ip_pool.created", pool, f"{pool.name} ({pool.type})")
        try:
            self._pools.create_pool(pool, max_pools=limit, make_default=request.default, audit=audit)
        except Exception:
            if self._ses is not None:
                self._ses.retire(pool)
            raise
        return pool_view(pool, pool.id if request.default else account.default_ip_pool_id)

    def update(self, principal: Principal, pool_id: str, request: IpPoolUpdate) -> IpPool:
        account = principal.account
        current = self._own(principal, pool_id)
        changes = request.model_dump(exclude_unset=True)
        for name in ("name", "type"):
            if name in changes and changes[name] is None:
                raise ValidationFailed(f"{name} cannot be null.")
        if changes.get("name") not in (None, current.name):
            self._unique_name(account.id, changes["name"])
        was_default = current.id == account.default_ip_pool_id
        default = changes.pop("default", None)
        default_change = None if default is None or default == was_default else default
        fields = {name: value for name, value in changes.items() if getattr(current, name) != value}
        if not fields and default_change is None:
            return pool_view(current, account.default_ip_pool_id, self._scores(principal))
        if fields.get("type") is PoolType.WARMING:  # the ramp starts again at day 1
            fields["warming_since"] = self._clock.now().date()
        updated = current.model_copy(update={**fields, "version": current.version + 1})
        details = ", ".join([*(f"{name} {value}" for name, value in fields.items()),
                             *([f"default {default_change}"] if default_change is not None else [])])  # fmt: skip
        audit = self._audit(principal.actor(), account.id, "ip_pool.updated", updated, details)
        self._pools.save_pool(updated, default=default_change, audit=audit)
        now_default = default_change if default_change is not None else was_default
        return pool_view(updated, updated.id if now_default else None, self._scores(principal))

    def delete(self, principal: Principal, pool_id: str) -> DeleteConfirmation:
        current = self._own(principal, pool_id)
        if current.ips:
            raise ValidationFailed(
                f"IP pool {current.id} holds {len(current.ips)} IPs; move them to another pool first "
                f"(POST /v3/ip-pools/{{id}}/ips)."
            )
        was_default = current.id == principal.account.default_ip_pool_id
        audit = self._audit(principal.actor(), principal.account.id, "ip_pool.deleted", current, current.name)
        self._pools.delete_pool(current, was_default=was_default, audit=audit)
        if self._ses is not None:
            try:
                self._ses.retire(current)
            except Exception:  # the pool is gone; an SES leftover sends nothing and costs nothing
                logger.exception("ip pool %s: its SES pool and configuration set were not deleted", current.id)
        return DeleteConfirmation(message=f"IP pool {current.id} ({current.name}) deleted.")

    def list_ips(self, principal: Principal, *, page: int, per_page: int) -> Page[Ip]:
        """The account's addresses, pool by pool."""
        ips = [ip for pool in self._pools.list_pools(principal.account.id) for ip in ips_of(pool)]
        return slice_page(ips, page=page, per_page=per_page)

    def assign_ip(self, principal: Principal, pool_id: str, request: IpAssign) -> Ip:
        """Moves one of the account's addresses into this pool of its (a no-op when it is there)."""
        account = principal.account
        target = self._own(principal, pool_id)
        holder = self._pools.ip_holder(request.ip)
        if holder is None or holder[0] != account.id:
            raise NotFound(f"IP {request.ip} is not allocated to this account; ask support for dedicated IPs.")
        if holder[1] == target.id:
            return _ip(target, request.ip)
        source = self._pools.get_pool(account.id, holder[1])
        if source is None:
            raise NotFound(f"IP {request.ip}'s pool {holder[1]} is gone; retry")
        # The address's staff details (its Elastic IP's allocation id) go with it.
        entry = (source.ip_details or {}).get(request.ip)
        moved_from = source.model_copy(update={
            "ips": without(source.ips, request.ip), "ip_details": details_without(source.ip_details, request.ip),
            "version": source.version + 1,
        })  # fmt: skip
        moved_to = target.model_copy(update={
            "ips": with_ip(target.ips, request.ip), "version": target.version + 1,
            "ip_details": with_details(target.ip_details, request.ip, entry) if entry else target.ip_details,
        })  # fmt: skip
        details = f"{request.ip} from {source.name} to {target.name}"
        audit = self._audit(principal.actor(), account.id, "ip_pool.ip_assigned", target, details)
        self._pools.move_ip(request.ip, moved_from, moved_to, audit)
        return _ip(moved_to, request.ip)

    def _visible(self, principal: Principal, pool_id: str) -> Pool:
        """A pool of the account's, or a platform pool; anything else is 404 (ids are account-scoped)."""
        found = self._pools.get_pool(principal.account.id, pool_id) or self._pools.get_pool(None, pool_id)
        if found is None:
            raise NotFound(f"No IP pool {pool_id} in this account.")
        return found

    def _own(self, principal: Principal, pool_id: str) -> Pool:
        """The account's own pool; a platform pool is 403, being the operator's."""
        pool = self._visible(principal, pool_id)
        if pool.platform:
            raise Forbidden(
                f"IP pool {pool.id} ({pool.name}) is a platform pool: read-only.", code=PLATFORM_POOL_READ_ONLY
            )
        return pool

    def _unique_name(self, account_id: str, name: str) -> None:
        if any(pool.name == name for pool in self._pools.list_pools(account_id)):
            raise ValidationFailed(f"name: this account has an IP pool named {name!r} already.")

    def _audit(self, actor: Actor, account_id: str | None, action: str, pool: Pool, details: str) -> AuditEntry:
        return new_audit_entry(self._ids, actor, account_id, action, pool.id, details, now=self._clock.now())


class IpPoolAdmin:
    """The operator's actions (the `postline ip-pool` and `postline ip` commands), audited as staff."""

    def __init__(self, *, pools: IpPoolStore, ids: IdFactory, clock: Clock) -> None:
        self._pools = pools
        self._ids = ids
        self._clock = clock

    def list_pools(self, account_id: str | None) -> list[Pool]:
        return self._pools.list_pools(account_id)

    def create_platform_pool(
        self, *, name: str, type: PoolType = PoolType.SHARED, region: str | None = None,
        provider: Provider = Provider.CLOUD_RELAY,
    ) -> Pool:  # fmt: skip
        pool = Pool(
            id=self._ids.new_id(), account_id=None, name=name, provider=provider, region=region, type=type,
            created_at=self._clock.now(),
        )  # fmt: skip
        self._pools.create_pool(
            pool, max_pools=None, make_default=False, audit=self._audit(None, "ip_pool.created", pool)
        )
        return pool

    def allocate(self, ip: str, *, account_id: str | None, pool_id: str, allocation_id: str | None = None) -> Pool:
        """The address into a pool of the account's (None: a platform pool), now its alone.
        allocation_id: the relay's Elastic IP this address is (its RelayAddress<N>AllocationId output),
        kept in the pool's `ip_details.<ip>.allocation_id` wherever the address moves."""
        ip = _address(ip)
        pool = self._require(account_id, pool_id)
        update: dict[str, Any] = {"ips": with_ip(pool.ips, ip), "version": pool.version + 1}
        if allocation_id is not None:
            if not ALLOCATION_ID.fullmatch(allocation_id):
                raise ValidationFailed(f"allocation_id: {allocation_id!r} is not an Elastic IP's (eipalloc-<hex>)")
            update["ip_details"] = with_details(pool.ip_details, ip, {"allocation_id": allocation_id})
        updated = pool.model_copy(update=update)
        self._pools.allocate_ip(ip, updated, self._audit(account_id, "ip.allocated", pool, ip))
        return updated

    def release(self, ip: str) -> Pool:
        ip = _address(ip)
        holder = self._pools.ip_holder(ip)
        if holder is None:
            raise NotFound(f"IP {ip} is not allocated")
        pool = self._require(*holder)
        update = {
            "ips": without(pool.ips, ip),
            "ip_details": details_without(pool.ip_details, ip),
            "version": pool.version + 1,
        }
        updated = pool.model_copy(update=update)
        self._pools.release_ip(ip, updated, self._audit(holder[0], "ip.released", pool, ip))
        return updated

    def set_staff_fields(self, account_id: str | None, pool_id: str, **fields: Any) -> Pool:
        """reputation (0-100 or None) and/or ip_details (per-IP metadata or None)."""
        pool = self._require(account_id, pool_id)
        updated = Pool.model_validate({**pool.model_dump(), **fields, "version": pool.version + 1})
        details = ", ".join(f"{name} {value}" for name, value in fields.items())
        self._pools.save_pool(
            updated, default=None, audit=self._audit(account_id, "ip_pool.staff_updated", pool, details)
        )
        return updated

    def _require(self, account_id: str | None, pool_id: str) -> Pool:
        pool = self._pools.get_pool(account_id, pool_id)
        if pool is None:
            raise NotFound(
                f"IP pool {pool_id} not found" + (f" in account {account_id}" if account_id else " (platform)")
            )
        return pool

    def _audit(self, account_id: str | None, action: str, pool: Pool, details: str | None = None) -> AuditEntry:
        return new_audit_entry(self._ids, Actor.staff(), account_id, action, pool.id, details, now=self._clock.now())


def _address(text: str) -> str:
    try:
        return normalize_ip(text)
    except ValueError as exc:
        raise ValidationFailed(f"ip: {exc}") from None


def _ip(pool: Pool, ip: str) -> Ip:
    return next(view for view in ips_of(pool) if view.ip == ip)


class SourcePicker:
    """The pool and source address a copy of a message leaves from (delivery/ports.py SourceAddresses).

    The pool a send named (its id or its name among the account's pools), else the account's default
    (the send stores it), else the first shared platform pool that holds addresses; None when none of
    them holds one (the transport's own address, as before pools). Of the pool's addresses, one by a
    hash of `key` (message and recipient): a retry of a copy leaves from the same address."""

    PLATFORM_TTL = 60.0  # seconds a process keeps the platform's pools (read for every copy otherwise)

    def __init__(
        self,
        *,
        pools: IpPoolStore,
        warmup: WarmupCounts | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        ses: bool = False,
    ) -> None:
        """ses: the SES transport's picker. A pool's copies go through its configuration set and SES
        picks the address (and warms it): the source names the pool and the set, never an address
        SES may not use, and the ramp is SES's (no count here)."""
        self._ses = ses
        self._pools = pools
        self._warmup = warmup  # counts a warming pool's copies per day (None: no ramp enforced)
        self._monotonic = monotonic
        self._platform: tuple[float, list[Pool]] | None = None

    def pick(
        self, account_id: str, reference: str | None, key: str, today: date, *, simulated: bool = False
    ) -> Source | None:
        """simulated: a test copy's (named on its events only): the warm-up ramp is neither counted nor applied."""
        pool = self._named(account_id, reference) if reference else None
        if self._ses:
            if pool is None or not pool.ses_configuration_set:
                return None  # the deployment's own configuration set
            return Source(pool.id, None, None, pool.ses_configuration_set)
        overflowed: str | None = None
        if pool is not None and pool.ips and not simulated:
            cap = warmup_cap(pool, today)
            if cap is not None and self._warmup is not None and self._warmup.take(pool.id, today) > cap:
                overflowed, pool = pool.id, None  # past today's step of the ramp: the shared pool takes it
        if pool is not None and not pool.ips and pool.ses_configuration_set:
            return Source(pool.id, None, overflowed, pool.ses_configuration_set)  # SES picks (managed scaling)
        if pool is None or not pool.ips:
            shared = [p for p in self._platform_pools() if p.type is PoolType.SHARED and p.ips]
            pool = shared[0] if shared else None
        if pool is None:
            return Source(None, None, overflowed) if overflowed else None
        index = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % len(pool.ips)
        return Source(pool.id, pool.ips[index], overflowed, pool.ses_configuration_set)

    def _platform_pools(self) -> list[Pool]:
        now = self._monotonic()
        if self._platform is None or now - self._platform[0] > self.PLATFORM_TTL:
            self._platform = (now, self._pools.list_pools(None))
        return self._platform[1]

    def pool_of_configuration_set(self, account_id: str, name: str) -> str | None:
        """The account's pool whose SES configuration set is `name` (what SES's reports name in the
        `ses:configuration-set` tag: delivery/ports.py SesPools), None for any other set."""
        if not name.startswith(SES_PREFIX):  # a pool's set is named after it: one read, and only for those
            return None
        pool = self._pools.get_pool(account_id, name.removeprefix(SES_PREFIX))
        return pool.id if pool is not None and pool.ses_configuration_set == name else None

    def exists(self, account_id: str, reference: str) -> bool:
        """Whether a send's ip_pool names the account's pool or a platform pool (sending/ports.py IpPoolNames)."""
        return self._named(account_id, reference) is not None

    def _named(self, account_id: str, reference: str) -> Pool | None:
        found = self._pools.get_pool(account_id, reference) or self._pools.get_pool(None, reference)
        if found is not None:
            return found
        return next((pool for pool in self._pools.list_pools(account_id) if pool.name == reference), None)
