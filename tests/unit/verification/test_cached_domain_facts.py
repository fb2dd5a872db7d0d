"""The bulk worker's per-process cache of the shared per-domain facts (CachedDomainFacts)."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.verification.domain import Registration
from postline.verification.service import CachedDomainFacts

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


class CountedFacts:
    """The shared store (DynamoDB in the worker), counting its reads."""

    def __init__(self) -> None:
        self.catch_alls: dict[str, bool] = {}
        self.registrations: dict[str, Registration] = {}
        self.reads = 0

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        self.reads += 1
        return self.catch_alls.get(domain)

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self.catch_alls[domain] = catch_all

    def registration(self, domain: str, now: datetime) -> Registration | None:
        self.reads += 1
        return self.registrations.get(domain)

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        self.registrations[domain] = registration


def test_each_domain_is_read_once_per_ttl_and_what_this_process_learns_is_kept_at_once() -> None:
    shared, clock = CountedFacts(), [0.0]
    cached = CachedDomainFacts(shared, ttl_seconds=300, monotonic=lambda: clock[0])
    for _ in range(100):  # a chunk's hundred addresses at one domain
        assert cached.catch_all("a.test", NOW) is None
        assert cached.registration("a.test", NOW) is None
    assert shared.reads == 2

    cached.remember_catch_all("a.test", True, NOW)  # a decisive probe
    registered = Registration(datetime(2015, 3, 1, tzinfo=UTC))
    cached.remember_registration("a.test", registered, NOW)
    assert (cached.catch_all("a.test", NOW), cached.registration("a.test", NOW)) == (True, registered)
    assert shared.catch_alls == {"a.test": True} and shared.reads == 2  # written through, not read back

    shared.catch_alls["b.test"] = False  # learned by another process
    assert cached.catch_all("b.test", NOW) is False
    shared.catch_alls["b.test"] = True
    clock[0] = 299.0
    assert cached.catch_all("b.test", NOW) is False  # within the TTL: this process's copy
    clock[0] = 301.0
    assert cached.catch_all("b.test", NOW) is True  # after it: read again
    assert shared.reads == 4


def test_an_unreachable_registry_is_read_from_the_store_each_time() -> None:
    """The store keeps it for an hour of the runtime's clock; this process's copy could outlive that."""
    shared, clock = CountedFacts(), [0.0]
    cached = CachedDomainFacts(shared, ttl_seconds=300, monotonic=lambda: clock[0])
    assert cached.registration("down.test", NOW) is None
    down = Registration(None, "the registry answered 503 for down.test", unreachable=True)
    cached.remember_registration("down.test", down, NOW)
    assert shared.registrations == {"down.test": down}
    assert cached.registration("down.test", NOW) == down and shared.reads == 2  # not the kept miss
    del shared.registrations["down.test"]  # its hour is over
    assert cached.registration("down.test", NOW) is None and shared.reads == 3
