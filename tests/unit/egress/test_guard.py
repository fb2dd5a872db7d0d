"""The outbound address policy's resolve-and-vet step (postline/egress/guard.py) with a fake resolver:
every address a host resolves to must be public, literals are judged without a lookup, and
allow_private (ALLOW_PRIVATE_OUTBOUND) turns the refusal off but not the resolution. Connections
are made against real peers: tests/adapters/test_egress_guard.py."""

from __future__ import annotations

import ipaddress

import pytest

from postline.egress.guard import EgressGuard, EgressRefused
from tests.unit.egress.test_addresses import LITERALS, PUBLIC, REFUSED


class FakeDns:
    def __init__(self, records: dict[str, list[str]]) -> None:
        self.records = records
        self.asked: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append((host, port))
        if host not in self.records:
            raise OSError("Name or service not known")
        return self.records[host]


DNS = {
    "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "internal.example.com": ["10.0.0.7"],
    "sneaky.example.com": ["93.184.215.14", "127.0.0.1"],
    "mapped.example.com": ["::ffff:192.168.0.1"],
    "v6-first.example.com": ["2606:4700:4700::1111", "1.1.1.1"],
    "2130706433": ["127.0.0.1"],  # what getaddrinfo makes of a decimal IPv4 literal
}


def strict() -> tuple[EgressGuard, FakeDns]:
    dns = FakeDns(DNS)
    return EgressGuard(allow_private=False, resolve=dns), dns


def test_a_public_host_gives_its_addresses_ipv4_first() -> None:
    guard, dns = strict()
    assert guard.addresses("hooks.example.com", 25) == DNS["hooks.example.com"]
    assert guard.addresses("v6-first.example.com", 443) == ["1.1.1.1", "2606:4700:4700::1111"]
    assert dns.asked == [("hooks.example.com", 25), ("v6-first.example.com", 443)]


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("internal.example.com", "private"),
        ("sneaky.example.com", "loopback"),  # any one address refuses the host
        ("mapped.example.com", "private (IPv4 inside IPv6)"),
    ],
)
def test_a_name_resolving_to_any_non_public_address_is_refused(host: str, reason: str) -> None:
    guard, _ = strict()
    with pytest.raises(EgressRefused) as refused:
        guard.addresses(host, 25)
    assert (refused.value.host, refused.value.reason) == (host, reason)
    assert (
        str(refused.value) == f"{host} resolves to a {reason} address; outbound connections go to public addresses only"
    )
    assert refused.value.address not in str(refused.value)  # the customer learns the kind, not the address


@pytest.mark.parametrize(("address", "reason"), REFUSED.items())
def test_every_non_public_literal_is_refused_without_a_lookup(address: str, reason: str) -> None:
    guard, dns = strict()
    with pytest.raises(EgressRefused, match=f"is a {reason.replace('(', '.').replace(')', '.')} address"):
        guard.addresses(address, 25)
    assert dns.asked == []


@pytest.mark.parametrize(("host", "address"), LITERALS.items())
def test_obfuscated_literals_are_judged_as_the_address_they_are(host: str, address: str) -> None:
    guard, dns = strict()
    if address == "8.8.8.8":
        assert guard.addresses(host, 443) == ["8.8.8.8"]  # connected to as that address, never looked up
    else:
        with pytest.raises(EgressRefused):
            guard.addresses(host, 443)
    assert dns.asked == []


@pytest.mark.parametrize("address", PUBLIC)
def test_public_literals_pass(address: str) -> None:
    guard, dns = strict()
    assert guard.addresses(address, 443) == [str(ipaddress.ip_address(address))]  # as written canonically
    assert dns.asked == []


def test_a_name_without_an_address_gives_none() -> None:
    guard, _ = strict()
    assert guard.addresses("nowhere.example.com", 25) == []
    assert EgressGuard(allow_private=False, resolve=lambda host, port: []).addresses("empty.example.com", 25) == []


def test_allowing_private_addresses_still_resolves_through_the_same_resolver() -> None:
    dns = FakeDns(DNS)
    guard = EgressGuard(allow_private=True, resolve=dns)
    assert guard.addresses("internal.example.com", 25) == ["10.0.0.7"]
    assert guard.addresses("127.0.0.1", 25) == ["127.0.0.1"]
    assert dns.asked == [("internal.example.com", 25)]
