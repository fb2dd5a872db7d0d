"""The bulk worker's per-process cache of the shared per-domain facts (CachedDomainFacts)."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.verification.service import CachedDomainFacts

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


class CountedFacts:
    """The shared store (DynamoDB in the worker), counting its reads."""

    def __init__(self) -> None:
        self.catch_alls: dict[str, bool] = {}
        self.registrations: dict[str, datetime] = {}
        self.reads = 0

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        self.reads += 1
        return self.catch_alls.get(domain)

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self.catch_alls[domain] = catch_all

    def registered_at(self, domain: str, now: datetime) -> datetime | None:
        self.reads += 1
        return self.registrations.get(domain)

    def remember_registered_at(self, domain: str, registered: datetime, now: datetime) -> None:
        self.registrations[domain] = registered


def test_each_domain_is_read_once_per_ttl_and_what_this_process_learns_is_kept_at_once() -> None:
    shared, clock = CountedFacts(), [0.0]
    cached = CachedDomainFacts(shared, ttl_seconds=300, monotonic=lambda: clock[0])
    for _ in range(100):  # a chunk's hundred addresses at one domain
        assert cached.catch_all("a.test", NOW) is None
        assert cached.registered_at("a.test", NOW) is None
    assert shared.reads == 2

    cached.remember_catch_all("a.test", True, NOW)  # a decisive probe
    registered = datetime(2015, 3, 1, tzinfo=UTC)
    cached.remember_registered_at("a.test", registered, NOW)
    assert (cached.catch_all("a.test", NOW), cached.registered_at("a.test", NOW)) == (True, registered)
    assert shared.catch_alls == {"a.test": True} and shared.reads == 2  # written through, not read back

    shared.catch_alls["b.test"] = False  # learned by another process
    assert cached.catch_all("b.test", NOW) is False
    shared.catch_alls["b.test"] = True
    clock[0] = 299.0
    assert cached.catch_all("b.test", NOW) is False  # within the TTL: this process's copy
    clock[0] = 301.0
    assert cached.catch_all("b.test", NOW) is True  # after it: read again
    assert shared.reads == 4
