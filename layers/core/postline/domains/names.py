"""Which names can be sending domains: a registrable domain or a name under one.

IDNA 2008 with UTS #46 mapping (the `idna` package) turns what a customer types into the A-label
DNS uses; the Public Suffix List (the `publicsuffixlist` package, which ships the list) tells a
registrable name from a public suffix such as `co.uk` or `github.io`, where anyone can publish.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

import idna
from publicsuffixlist import PublicSuffixList

from postline.shared.errors import ValidationFailed

MAX_NAME_LENGTH = 253
_LDH = set(  # letters, digits, hyphen: what an A-label holds
    "abcdefghijklmnopqrstuvwxyz0123456789-"
)


@lru_cache(maxsize=1)
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # parses the bundled list once per process


def sending_domain_name(raw: str) -> str:
    """The name as stored (lower-case A-label), or ValidationFailed saying why it cannot send."""
    name = raw.strip().rstrip(".")
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        pass
    else:
        raise ValidationFailed(f"domain: {raw!r} is an IP address; give a domain name.")
    try:
        ascii_name = idna.encode(name, uts46=True).decode().lower()
    except idna.IDNAError as error:
        raise ValidationFailed(f"domain: {raw!r} is not a valid domain name ({error}).") from None
    labels = ascii_name.split(".")
    if len(labels) < 2 or len(ascii_name) > MAX_NAME_LENGTH or not all(set(label) <= _LDH for label in labels):
        raise ValidationFailed(f"domain: {raw!r} is not a fully qualified domain name.")
    if _suffixes().privatesuffix(ascii_name) is None:
        raise ValidationFailed(f"domain: {raw!r} is a public suffix, not a domain one owner registers.")
    return ascii_name
