"""IP allowlists: CIDR normalisation and the source-address check."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from postline.keys.domain import AllowlistEntry, ip_allowed, normalize_cidr


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("10.1.2.3/8", "10.0.0.0/8"),  # host bits cleared
        ("192.168.1.77/24", "192.168.1.0/24"),
        ("203.0.113.9", "203.0.113.9/32"),  # bare address -> host route
        ("  198.51.100.0/24\n", "198.51.100.0/24"),  # surrounding whitespace ignored
        ("10.0.0.0/255.0.0.0", "10.0.0.0/8"),  # netmask form
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("2001:DB8::1", "2001:db8::1/128"),  # bare IPv6, lower-cased
        ("2001:db8:abcd:12::1/48", "2001:db8:abcd::/48"),
        ("2001:0db8:0000:0000:0000:0000:0000:0000/32", "2001:db8::/32"),  # compressed
        ("::/0", "::/0"),
        ("::ffff:10.0.0.1", "10.0.0.1/32"),  # IPv4-mapped entries become the IPv4 network they mean
        ("::ffff:10.1.2.3/104", "10.0.0.0/8"),
        ("::ffff:0:0/96", "0.0.0.0/0"),
        ("::ffff:0:0/95", "::fffe:0:0/95"),  # wider than the mapped range: stays IPv6
    ],
)
def test_normalize_cidr(given: str, normalized: str) -> None:
    assert normalize_cidr(given) == normalized


@pytest.mark.parametrize(
    "garbage",
    ["", "   ", "not-an-ip", "10.0.0", "300.1.1.1", "10.0.0.0/33", "10.0.0.0/-1", "2001:db8::/129", "10.0.0.0/8/8"],
)
def test_normalize_cidr_refuses_garbage(garbage: str) -> None:
    with pytest.raises(ValueError, match="not an IPv4 or IPv6 CIDR"):
        normalize_cidr(garbage)


@pytest.mark.parametrize("not_a_string", [None, 167772160, b"10.0.0.0/8", ["10.0.0.0/8"]])
def test_normalize_cidr_refuses_non_strings(not_a_string: object) -> None:
    with pytest.raises(ValueError, match="must be a string"):
        normalize_cidr(not_a_string)


def test_allowlist_entry_stores_the_normalized_cidr_and_an_empty_label_by_default() -> None:
    entry = AllowlistEntry(cidr="10.9.8.7/16")
    assert entry.model_dump() == {"cidr": "10.9.0.0/16", "label": ""}


def test_allowlist_entry_refuses_a_bad_cidr_and_an_overlong_label() -> None:
    with pytest.raises(ValidationError, match="cidr"):
        AllowlistEntry(cidr="10.0.0.0/40")
    with pytest.raises(ValidationError, match="label"):
        AllowlistEntry(cidr="10.0.0.0/8", label="x" * 101)


def _allow(*cidrs: str) -> list[AllowlistEntry]:
    return [AllowlistEntry(cidr=c, label=f"entry {i}") for i, c in enumerate(cidrs)]


@pytest.mark.parametrize("source", ["203.0.113.5", "2001:db8::1", None, "", "garbage"])
def test_an_empty_allowlist_allows_every_source(source: str | None) -> None:
    assert ip_allowed([], source) is True


@pytest.mark.parametrize(
    ("cidrs", "source", "allowed"),
    [
        (("10.0.0.0/8",), "10.200.3.4", True),
        (("10.0.0.0/8",), "11.0.0.1", False),
        (("203.0.113.9",), "203.0.113.9", True),
        (("203.0.113.9",), "203.0.113.10", False),
        (("192.0.2.0/24", "198.51.100.0/24"), "198.51.100.77", True),  # any entry will do
        (("2001:db8::/32",), "2001:db8:1::5", True),
        (("2001:db8::/32",), "2001:db9::1", False),
        (("2001:db8::/32",), "2001:DB8::AB", True),
        (("10.0.0.0/8",), "::ffff:10.1.2.3", True),  # IPv4-mapped IPv6 source matches the IPv4 entry
        (("10.0.0.0/8",), "::ffff:11.1.2.3", False),
        (("10.0.0.0/8",), "2001:db8::1", False),  # other family never matches
        (("2001:db8::/32",), "10.1.2.3", False),
        (("0.0.0.0/0",), "8.8.8.8", True),
    ],
)
def test_ip_allowed(cidrs: tuple[str, ...], source: str, allowed: bool) -> None:
    assert ip_allowed(_allow(*cidrs), source) is allowed


@pytest.mark.parametrize("source", [None, "", "not-an-ip", "10.0.0.1:443"])
def test_a_restricted_key_refuses_a_missing_or_unreadable_source(source: str | None) -> None:
    assert ip_allowed(_allow("0.0.0.0/0", "::/0"), source) is False


@pytest.mark.parametrize("source", ["10.0.0.1", "::ffff:10.0.0.1"])
def test_an_ipv4_mapped_entry_matches_its_ipv4_client(source: str) -> None:
    # Regression: a mapped entry used to be stored as IPv6 and could then match no source at all.
    assert ip_allowed(_allow("::ffff:10.0.0.1"), source) is True
    assert ip_allowed(_allow("::ffff:10.0.0.1"), "10.0.0.2") is False
