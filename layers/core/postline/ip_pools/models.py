"""/v3/ip-pools and /v3/ips: what the routes take and return (the interface's IpPool and Ip)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints

from postline.ip_pools.domain import Pool, PoolType, Provider, Scaling, normalize_ip
from postline.shared.base import Model

PoolName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
Region = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]


def _account_type(value: PoolType) -> PoolType:
    if value is PoolType.SHARED:
        raise ValueError("an account's pool is dedicated or warming; shared pools are the platform's")
    return value


AccountPoolType = Annotated[
    PoolType,
    AfterValidator(_account_type),
    Field(description="dedicated or warming (shared pools are the platform's)."),
]
IpAddress = Annotated[str, StringConstraints(max_length=64), AfterValidator(normalize_ip)]


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class IpPoolCreate(_Strict):
    name: PoolName
    type: AccountPoolType = PoolType.DEDICATED
    region: Region | None = None
    default: bool = Field(default=False, description="Make it the account's default pool.")
    scaling: Scaling = Field(
        default=Scaling.STANDARD,
        description="With the SES transport: standard (the addresses the operator allocates) or managed "
        "(SES leases, warms and scales addresses to the pool's volume; `ips` stays empty). Ignored by the relay.",
    )


class IpPoolUpdate(_Strict):
    """PATCH: any of these. `default: true` makes it the account's default pool, `false` unsets it
    (sends then use the shared platform pool unless they name one)."""

    name: PoolName | None = None
    type: AccountPoolType | None = None
    region: Region | None = None
    default: bool | None = None


class IpAssign(_Strict):
    ip: IpAddress = Field(description="An address allocated to the account, now in another of its pools.")


class IpPool(Model):
    id: str = Field(description="A UUID.")
    account_id: str | None = Field(description="null: a platform pool (read-only).")
    name: str
    provider: Provider
    region: str | None
    type: PoolType
    ips: list[str]
    reputation: int | None = Field(
        description="0-100, read-only: staff's value when they set one, else (the account's own pools) computed "
        "from the last 30 days' bounce and complaint rates of the pool's mail; null below 100 copies."
    )
    ip_details: dict[str, dict[str, Any]] | None = Field(
        description="Per-IP metadata, staff-managed; read-only. An address's computed reputation (0-100) is "
        "under its `reputation` key where staff set none."
    )
    created_at: datetime
    warming_since: date | None = Field(description="A warming pool's day 1 of the warm-up ramp (UTC); null otherwise.")
    default: bool = Field(description="Whether it is the account's default pool.")


class Ip(Model):
    model_config = ConfigDict(extra="allow")

    ip: str
    pool_id: str
    pool_name: str
    provider: Provider
    region: str | None


def pool_view(
    pool: Pool,
    default_pool_id: str | None,
    scores: tuple[dict[str, int | None], dict[str, int | None]] | None = None,
) -> IpPool:
    """scores: the account's computed reputations (pool id -> score, address -> score), shown where
    staff set nothing: the pool's `reputation` when staff's is null, an address's `reputation` key in
    `ip_details` when staff's entry for it has none. A platform pool shows staff's values only."""
    fields = pool.model_dump(exclude={"version"})
    if scores is not None and not pool.platform:
        pools, ips = scores
        if fields["reputation"] is None:
            fields["reputation"] = pools.get(pool.id)
        details = {ip: dict(entry) for ip, entry in (pool.ip_details or {}).items()}
        for ip in pool.ips:
            computed = ips.get(ip)
            if computed is not None and "reputation" not in details.get(ip, {}):
                details[ip] = {**details.get(ip, {}), "reputation": computed}
        fields["ip_details"] = details or pool.ip_details
    return IpPool(**fields, default=pool.id == default_pool_id and not pool.platform)


def ips_of(pool: Pool) -> list[Ip]:
    return [
        Ip(ip=ip, pool_id=pool.id, pool_name=pool.name, provider=pool.provider, region=pool.region) for ip in pool.ips
    ]
