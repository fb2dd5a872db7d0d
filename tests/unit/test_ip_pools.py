"""IP pools: the service's rules over the in-memory store. The plan's count (Free has none), the
platform's pools listed and read-only, names unique per account, the default pool, addresses
allocated by the operator and moved by the account, staff fields read-only through the API."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from postline.accounts.domain import PLAN_LIMITS, Account, Plan
from postline.ip_pools.domain import WARMUP_RAMP, Pool, PoolType, Source, warmup_cap
from postline.ip_pools.models import IpAssign, IpPoolCreate, IpPoolUpdate, pool_view
from postline.ip_pools.service import IpPoolAdmin, IpPoolService, SourcePicker
from postline.keys.identity import Principal
from postline.shared.errors import ApiError, Forbidden, NotFound, ValidationFailed
from tests.fakes.ip_pools import InMemoryIpPools, InMemoryWarmupCounts
from tests.fakes.shared import FixedClock, SequentialIds

from .world import build_world


class Pools:
    def __init__(self) -> None:
        self.world = build_world()
        self.store = InMemoryIpPools(self.world.store)
        ids, clock = SequentialIds(), FixedClock()
        self.clock = clock
        self.service = IpPoolService(pools=self.store, ids=ids, clock=clock)
        self.admin = IpPoolAdmin(pools=self.store, ids=ids, clock=clock)
        self.shared = self.admin.create_platform_pool(name="shared", region="us-east-1")
        self.admin.allocate("198.51.100.1", account_id=None, pool_id=self.shared.id)

    def principal(self, account: Account) -> Principal:
        fresh = self.world.store.get_account(account.id)  # as the authenticator reads it, per request
        assert fresh is not None
        return self.world.console_principal(fresh)


TODAY = date(2026, 11, 28)


@pytest.fixture
def pools() -> Pools:
    return Pools()


def refused(error: type[ApiError], code: str, call: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value.message


def test_free_has_no_dedicated_pools(pools: Pools) -> None:
    free = pools.world.account(plan=Plan.FREE)
    refused(Forbidden, "plan_limit_reached", pools.service.create, pools.principal(free), IpPoolCreate(name="mine"))


def test_the_plan_counts_pools(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    limit = PLAN_LIMITS[Plan.PROFESSIONAL].dedicated_ip_pools
    for n in range(limit):
        pools.service.create(pools.principal(pro), IpPoolCreate(name=f"p{n}", type=PoolType.WARMING))
    refused(Forbidden, "plan_limit_reached", pools.service.create, pools.principal(pro), IpPoolCreate(name="one-more"))


def test_the_list_holds_the_platform_pools_first_and_they_are_read_only(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    mine = pools.service.create(pools.principal(pro), IpPoolCreate(name="marketing"))
    listed = pools.service.list_page(pools.principal(pro), page=1, per_page=25)
    assert [(p.name, p.account_id, p.type) for p in listed.items] == [
        ("shared", None, PoolType.SHARED), ("marketing", pro.id, PoolType.DEDICATED)]  # fmt: skip
    assert listed.items[0].ips == ["198.51.100.1"] and listed.pagination.total_count == 2
    assert pools.service.get(pools.principal(pro), pools.shared.id).account_id is None
    principal = pools.principal(pro)
    for call, args in (
        (pools.service.update, (principal, pools.shared.id, IpPoolUpdate(name="mine now"))),
        (pools.service.delete, (principal, pools.shared.id)),
        (pools.service.assign_ip, (principal, pools.shared.id, IpAssign(ip="198.51.100.1"))),
    ):
        refused(Forbidden, "platform_pool_read_only", call, *args)
    other = pools.world.account(plan=Plan.PROFESSIONAL)
    refused(NotFound, "not_found", pools.service.get, pools.principal(other), mine.id)


def test_names_are_unique_and_shared_is_not_an_accounts_type(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    pools.service.create(pools.principal(pro), IpPoolCreate(name="a"))
    refused(ValidationFailed, "validation_error", pools.service.create, pools.principal(pro), IpPoolCreate(name="a"))
    with pytest.raises(ValidationError):
        IpPoolCreate.model_validate({"name": "b", "type": "shared"})
    with pytest.raises(ValidationError):  # staff-managed fields are not the account's to write
        IpPoolUpdate.model_validate({"reputation": 90})


def test_the_default_pool_is_set_moved_and_unset(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    first = pools.service.create(pools.principal(pro), IpPoolCreate(name="first", default=True))
    assert first.default and pools.principal(pro).account.default_ip_pool_id == first.id
    second = pools.service.create(pools.principal(pro), IpPoolCreate(name="second"))
    assert not second.default
    assert pools.service.update(pools.principal(pro), second.id, IpPoolUpdate(default=True)).default
    assert not pools.service.get(pools.principal(pro), first.id).default
    assert not pools.service.update(pools.principal(pro), second.id, IpPoolUpdate(default=False)).default
    assert pools.principal(pro).account.default_ip_pool_id is None
    pools.service.update(pools.principal(pro), first.id, IpPoolUpdate(default=True))
    pools.service.delete(pools.principal(pro), first.id)
    assert pools.principal(pro).account.default_ip_pool_id is None


def test_addresses_are_allocated_by_the_operator_and_moved_by_the_account(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    a = pools.service.create(pools.principal(pro), IpPoolCreate(name="a"))
    b = pools.service.create(pools.principal(pro), IpPoolCreate(name="b", type=PoolType.WARMING))
    pools.admin.allocate("127.0.0.12", account_id=pro.id, pool_id=a.id)
    pools.admin.allocate("127.0.0.11", account_id=pro.id, pool_id=a.id)
    refused(ValidationFailed, "validation_error", pools.admin.allocate, "127.0.0.11", account_id=None,
            pool_id=pools.shared.id)  # fmt: skip
    assert pools.service.get(pools.principal(pro), a.id).ips == ["127.0.0.11", "127.0.0.12"]

    moved = pools.service.assign_ip(pools.principal(pro), b.id, IpAssign(ip="127.0.0.12"))
    assert (moved.ip, moved.pool_id, moved.pool_name) == ("127.0.0.12", b.id, "b")
    ips = pools.service.list_ips(pools.principal(pro), page=1, per_page=25)
    assert [(ip.ip, ip.pool_name) for ip in ips.items] == [("127.0.0.11", "a"), ("127.0.0.12", "b")]
    assert pools.service.assign_ip(pools.principal(pro), b.id, IpAssign(ip="127.0.0.12")).pool_id == b.id  # no-op

    refused(NotFound, "not_found", pools.service.assign_ip, pools.principal(pro), b.id, IpAssign(ip="198.51.100.1"))
    refused(ValidationFailed, "validation_error", pools.service.delete, pools.principal(pro), a.id)  # holds an IP
    pools.admin.release("127.0.0.11")
    pools.service.delete(pools.principal(pro), a.id)
    assert [p.name for p in pools.service.list_page(pools.principal(pro), page=1, per_page=25).items] == ["shared", "b"]


def test_a_relay_elastic_ip_keeps_its_allocation_id_wherever_it_moves(pools: Pools) -> None:
    """`postline ip allocate <EIP> --allocation-id eipalloc-...`: the address's staff details say which
    of the relay's Elastic IPs it is, in whichever of the account's pools it is, until released."""
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    a = pools.service.create(pools.principal(pro), IpPoolCreate(name="a"))
    b = pools.service.create(pools.principal(pro), IpPoolCreate(name="b"))
    refused(ValidationFailed, "validation_error", pools.admin.allocate, "203.0.113.7", account_id=pro.id,
            pool_id=a.id, allocation_id="i-0abc")  # fmt: skip
    pools.admin.allocate("203.0.113.7", account_id=pro.id, pool_id=a.id, allocation_id="eipalloc-0f1e2d3c4b5a69788")
    pools.admin.allocate("203.0.113.8", account_id=pro.id, pool_id=a.id)
    entry = {"allocation_id": "eipalloc-0f1e2d3c4b5a69788"}
    assert pools.service.get(pools.principal(pro), a.id).ip_details == {"203.0.113.7": entry}

    pools.service.assign_ip(pools.principal(pro), b.id, IpAssign(ip="203.0.113.7"))
    assert pools.service.get(pools.principal(pro), a.id).ip_details is None
    assert pools.service.get(pools.principal(pro), b.id).ip_details == {"203.0.113.7": entry}
    pools.admin.release("203.0.113.7")
    assert pools.service.get(pools.principal(pro), b.id).ip_details is None


def test_staff_fields_are_set_by_the_operator_only(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    pool = pools.service.create(pools.principal(pro), IpPoolCreate(name="a"))
    pools.admin.set_staff_fields(pro.id, pool.id, reputation=87, ip_details={"127.0.0.9": {"ptr": "mta9.example"}})
    seen = pools.service.get(pools.principal(pro), pool.id)
    assert (seen.reputation, seen.ip_details) == (87, {"127.0.0.9": {"ptr": "mta9.example"}})
    with pytest.raises(ValidationError):
        pools.admin.set_staff_fields(pro.id, pool.id, reputation=101)
    actions = [entry.action for entry in pools.store.audits]
    assert actions.count("ip_pool.staff_updated") == 1 and "ip.allocated" in actions


def test_the_source_is_the_named_pools_else_the_shared_pools(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    mine = pools.service.create(pools.principal(pro), IpPoolCreate(name="mine"))
    empty = pools.service.create(pools.principal(pro), IpPoolCreate(name="empty"))
    for ip in ("127.0.0.21", "127.0.0.22"):
        pools.admin.allocate(ip, account_id=pro.id, pool_id=mine.id)
    ticks = [0.0]
    picker = SourcePicker(pools=pools.store, monotonic=lambda: ticks[0])

    def ip(reference: str | None, key: str) -> str | None:
        picked = picker.pick(pro.id, reference, key, TODAY)
        return None if picked is None else picked.ip

    assert ip(mine.id, "m1:a") == ip("mine", "m1:a") == ip("mine", "m1:a") is not None  # stable per copy
    assert {ip("mine", f"m{n}:a") for n in range(40)} == {"127.0.0.21", "127.0.0.22"}
    for reference in (None, "empty", empty.id, "unknown"):  # the shared pool's one address
        assert picker.pick(pro.id, reference, "m1:a", TODAY) == Source(pools.shared.id, "198.51.100.1")
    assert picker.exists(pro.id, "mine") and picker.exists(pro.id, pools.shared.id) and not picker.exists(pro.id, "x")

    pools.admin.release("198.51.100.1")  # the platform's pools are kept a minute
    assert picker.pick(pro.id, None, "m1:a", TODAY) is not None
    ticks[0] = SourcePicker.PLATFORM_TTL + 1
    assert picker.pick(pro.id, None, "m1:a", TODAY) is None


def test_with_ses_the_source_is_the_pools_configuration_set_and_its_reports_map_back(pools: Pools) -> None:
    """SES picks (and warms) the address in a pool's configuration set: the source names the pool and
    the set only, and the set's name in SES's reports leads back to the pool."""
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    relayed = pools.service.create(pools.principal(pro), IpPoolCreate(name="relayed"))
    pools.admin.allocate("127.0.0.41", account_id=pro.id, pool_id=relayed.id)
    ses_pool = pools.service.create(pools.principal(pro), IpPoolCreate(name="ses", type=PoolType.WARMING))
    stored = pools.store.get_pool(pro.id, ses_pool.id)
    assert stored is not None
    pools.store.pools[(pro.id, ses_pool.id)] = stored.model_copy(
        update={"ses_configuration_set": f"postline-{ses_pool.id}"}
    )
    pools.admin.allocate("127.0.0.42", account_id=pro.id, pool_id=ses_pool.id)
    picker = SourcePicker(pools=pools.store, warmup=InMemoryWarmupCounts(), ses=True)

    assert picker.pick(pro.id, "ses", "m1:a", TODAY) == Source(ses_pool.id, None, None, f"postline-{ses_pool.id}")
    for reference in ("relayed", None):  # no configuration set of its own: the deployment's
        assert picker.pick(pro.id, reference, "m1:a", TODAY) is None
    assert picker.pool_of_configuration_set(pro.id, f"postline-{ses_pool.id}") == ses_pool.id
    assert picker.pool_of_configuration_set(pro.id, "postline") is None
    assert picker.pool_of_configuration_set(pro.id, f"postline-{relayed.id}") is None  # no set of its own
    other = pools.world.account(plan=Plan.PROFESSIONAL)
    assert picker.pool_of_configuration_set(other.id, f"postline-{ses_pool.id}") is None  # another account's pool


def test_a_warming_pool_follows_the_ramp_and_overflows_to_the_shared_pool(pools: Pools) -> None:
    pro = pools.world.account(plan=Plan.PROFESSIONAL)
    warm = pools.service.create(pools.principal(pro), IpPoolCreate(name="warm", type=PoolType.WARMING))
    assert warm.warming_since == pools.clock.now().date()
    pools.admin.allocate("127.0.0.31", account_id=pro.id, pool_id=warm.id)
    pools.admin.allocate("127.0.0.32", account_id=pro.id, pool_id=warm.id)
    counts = InMemoryWarmupCounts()
    picker = SourcePicker(pools=pools.store, warmup=counts)
    day1 = warm.warming_since
    assert day1 is not None
    cap = WARMUP_RAMP[0] * 2  # two addresses
    picked = [picker.pick(pro.id, "warm", f"m{n}:a", day1) for n in range(cap + 3)]
    assert all(p is not None and p.pool_id == warm.id and p.overflowed_from is None for p in picked[:cap])
    assert picked[cap:] == [Source(pools.shared.id, "198.51.100.1", warm.id)] * 3
    # A test copy (simulated) names the warming pool without spending or heeding the day's cap.
    spent = counts.take(warm.id, day1)
    simulated = picker.pick(pro.id, "warm", "t1:a", day1, simulated=True)
    assert simulated is not None and (simulated.pool_id, simulated.overflowed_from) == (warm.id, None)
    assert counts.take(warm.id, day1) == spent + 1
    day5 = day1 + timedelta(days=4)
    assert warmup_cap(pools.store.pools[(pro.id, warm.id)], day5) == WARMUP_RAMP[4] * 2
    assert all(picker.pick(pro.id, "warm", f"n{n}:a", day5).pool_id == warm.id for n in range(cap + 3))  # type: ignore[union-attr]
    assert warmup_cap(pools.store.pools[(pro.id, warm.id)], day1 + timedelta(days=len(WARMUP_RAMP))) is None


def test_computed_reputation_shows_only_where_staff_set_none() -> None:
    when = FixedClock().now()
    pool = Pool(
        id="p1", account_id="acct_1", name="mine", type=PoolType.DEDICATED, created_at=when,
        ips=["192.0.2.1", "192.0.2.2", "192.0.2.3"],
        ip_details={"192.0.2.1": {"ptr": "mta1.example"}, "192.0.2.2": {"reputation": 90}},
    )  # fmt: skip
    scores = ({"p1": 35}, {"192.0.2.1": 60, "192.0.2.2": 10, "192.0.2.3": None, "203.0.113.9": 5})
    view = pool_view(pool, None, scores)
    assert view.reputation == 35
    assert view.ip_details == {
        "192.0.2.1": {"ptr": "mta1.example", "reputation": 60},  # staff's metadata kept, computed added
        "192.0.2.2": {"reputation": 90},  # staff's reputation wins
    }  # 192.0.2.3: below the minimum volume, nothing; 203.0.113.9: not the pool's
    assert pool.ip_details == {"192.0.2.1": {"ptr": "mta1.example"}, "192.0.2.2": {"reputation": 90}}
    staffed = pool_view(pool.model_copy(update={"reputation": 80}), None, scores)
    assert staffed.reputation == 80
    platform = pool.model_copy(update={"account_id": None, "ip_details": None})
    assert (pool_view(platform, None, scores).reputation, pool_view(platform, None, scores).ip_details) == (None, None)
    assert pool_view(pool.model_copy(update={"ip_details": None}), None, ({}, {})).ip_details is None
