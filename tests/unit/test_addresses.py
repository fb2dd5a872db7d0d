"""Addresses as every area takes them (shared/addresses.py): RFC 5321's limits in octets, the
local part's 64 (4.5.3.1.1), the domain's and the whole address's, for sends, suppressions, lists
and verification alike."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from postline.shared.addresses import normalize_address, normalize_email, normalize_mailbox

NORMALIZERS = [normalize_address, normalize_email, normalize_mailbox]
LABEL = "d" * 63
TOO_LONG_LOCAL = r"not a valid email address: .* too long before the @-sign \(\d+ octets, at most 64\)"


@pytest.mark.parametrize("normalize", NORMALIZERS)
@pytest.mark.parametrize(
    "local",
    [
        "a" * 64,
        "é" * 32,  # 64 octets in UTF-8
        "first.last+" + "t" * 53,
    ],
)
def test_a_local_part_of_64_octets_is_an_address(normalize: Callable[[str], str], local: str) -> None:
    assert normalize(f"{local}@example.com").lower() == f"{local}@example.com".lower()


@pytest.mark.parametrize("normalize", NORMALIZERS)
@pytest.mark.parametrize(
    "local",
    [
        "a" * 65,
        "é" * 33,  # 33 characters, 66 octets
        "a" * 63 + "é",  # 64 characters, 65 octets
        "日本" * 11,  # 22 characters, 66 octets
    ],
)
def test_a_local_part_over_64_octets_is_refused(normalize: Callable[[str], str], local: str) -> None:
    with pytest.raises(ValueError, match=TOO_LONG_LOCAL):
        normalize(f"{local}@example.com")


@pytest.mark.parametrize("normalize", NORMALIZERS)
def test_an_address_over_254_octets_is_refused_so_no_domain_reaches_255(normalize: Callable[[str], str]) -> None:
    """email-validator's own limits: 254 octets for the address (RFC 5321's 256-octet path less its
    angle brackets; 4.5.3.1.3) and 253 for the domain, under the 255 of 4.5.3.1.2."""
    fits = ".".join([LABEL, LABEL, LABEL, "d" * 55, "test"])  # 252 octets: a@ and it make 254
    assert normalize(f"a@{fits}") == f"a@{fits}"
    longer = ".".join([LABEL, LABEL, LABEL, "d" * 56, "test"])  # 253 octets
    with pytest.raises(ValueError, match="not a valid email address: The email address is too long"):
        normalize(f"a@{longer}")
    with pytest.raises(ValueError, match="not a valid email address: The email address is too long"):
        normalize(f"ab@{fits}")
