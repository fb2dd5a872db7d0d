"""The outbound address policy's classification (postline/egress/addresses.py): which addresses are
not public, and which host names are IP literals in disguise. The cases are the webhook guard's,
which it now takes from here, and more notations of the same addresses."""

from __future__ import annotations

import ipaddress

import pytest

from postline.egress.addresses import address_refusal, literal_address

REFUSED = {
    "0.0.0.0": "unspecified",  # noqa: S104 (an address to refuse, not one to bind)
    "127.0.0.1": "loopback",
    "127.8.9.10": "loopback",
    "10.0.0.1": "private",
    "172.16.5.4": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local",  # cloud metadata
    "100.64.0.1": "not globally routable",  # carrier-grade NAT
    "224.0.0.251": "multicast",
    "240.0.0.1": "reserved",
    "255.255.255.255": "reserved",  # broadcast
    "192.0.2.10": "private",  # documentation
    "198.18.0.1": "private",  # benchmarking
    "::": "unspecified",
    "::1": "loopback",
    "fe80::1": "link-local",
    "fc00::1": "private",
    "fd12:3456::1": "private",
    "ff02::1": "multicast",
    "2001:db8::1": "private",  # documentation
    "::ffff:127.0.0.1": "loopback (IPv4 inside IPv6)",
    "::ffff:10.1.2.3": "private (IPv4 inside IPv6)",
    "::ffff:169.254.169.254": "link-local (IPv4 inside IPv6)",
    "2002:c0a8:0101::1": "private (IPv4 inside IPv6)",  # 6to4 of 192.168.1.1
    "64:ff9b::7f00:1": "loopback (IPv4 inside IPv6)",  # NAT64 of 127.0.0.1
}
PUBLIC = ["8.8.8.8", "93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8",
          "64:ff9b::808:808"]  # fmt: skip

# Host names that are IP literals: what a resolver (inet_aton, getaddrinfo) or a URL parser reads them as.
LITERALS = {
    "127.0.0.1": "127.0.0.1",
    "2130706433": "127.0.0.1",  # one decimal number
    "0x7f000001": "127.0.0.1",  # one hexadecimal number
    "017700000001": "127.0.0.1",  # one octal number
    "0x7f.1": "127.0.0.1",  # a.b: b is 24 bits
    "127.1": "127.0.0.1",
    "127.0.1": "127.0.0.1",  # a.b.c: c is 16 bits
    "0177.0.0.1": "127.0.0.1",  # octal parts
    "0x7F.0x0.0x0.0x1": "127.0.0.1",
    "127.0.0.1.": "127.0.0.1",  # a trailing dot
    "0xA9FEA9FE": "169.254.169.254",
    "0x0a.0.0.1": "10.0.0.1",
    "::1": "::1",
    "[::1]": "::1",
    "::ffff:7f00:1": "::ffff:7f00:1",
    "[::ffff:127.0.0.1]": "::ffff:7f00:1",
    "fe80::1%eth0": "fe80::1",  # a zone id
    "0x08080808": "8.8.8.8",
    "0x": "0.0.0.0",  # noqa: S104 (URL parsers read an empty hexadecimal number as 0)
}
NAMES = ["hooks.example.com", "mx.acme.test", "127.0.0.1.nip.io", "0x7f.example", "08.0.0.1", "1.2.3.4.5", "256.1.1.1",
         "4294967296", "1..1", "", "١٢٧.0.0.1", "0x7_f.0.0.1"]  # fmt: skip


@pytest.mark.parametrize(("address", "reason"), REFUSED.items())
def test_non_public_addresses_are_refused_with_their_reason(address: str, reason: str) -> None:
    assert address_refusal(address) == reason
    assert address_refusal(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(address) is None


@pytest.mark.parametrize(("host", "address"), LITERALS.items())
def test_an_ip_literal_in_any_notation_is_the_address_it_stands_for(host: str, address: str) -> None:
    assert literal_address(host) == ipaddress.ip_address(address)


@pytest.mark.parametrize("host", NAMES)
def test_names_are_not_literals(host: str) -> None:
    assert literal_address(host) is None
