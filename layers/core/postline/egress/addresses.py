"""Which addresses an outbound connection made for a customer may go to: public ones only.

Pure classification (no DNS, no socket), moved here from the webhook rules so every outbound path
applies the same one (postline/egress/guard.py resolves, vets and connects):

- `address_refusal`: why an address is not a public one (loopback, private, link-local, CGNAT,
  multicast, reserved, unspecified, or IPv4 carried inside IPv6: mapped, 6to4, NAT64), or None.
- `literal_address`: the address a host name stands for when it is an IP literal in any notation a
  resolver would read, the obfuscated ones included (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`,
  `[::ffff:7f00:1]`), so such a host is judged as the address it is and never looked up as a name.
"""

from __future__ import annotations

import ipaddress
import re

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for: mapped, 6to4 or NAT64 (Teredo is non-global anyway)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: IpAddress | str) -> str | None:
    """Why an outbound connection may not go to this address, or None when it is a public one."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            reason = address_refusal(embedded)
            return f"{reason} (IPv4 inside IPv6)" if reason else None
    for reason, applies in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("not globally routable", not ip.is_global),
    ):
        if applies:
            return reason
    return None


_HEX = re.compile(r"0[xX]([0-9a-fA-F]*)")
_OCTAL = re.compile(r"0([0-7]+)")
_DECIMAL = re.compile(r"[0-9]+")


def _number(part: str) -> int | None:
    """One part of an inet_aton IPv4 literal: decimal, 0x hexadecimal or 0-led octal (ASCII digits only)."""
    if found := _HEX.fullmatch(part):
        return int(found.group(1) or "0", 16)
    if found := _OCTAL.fullmatch(part):
        return int(found.group(1), 8)
    if _DECIMAL.fullmatch(part) and not (len(part) > 1 and part.startswith("0")):
        return int(part, 10)
    return None


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address of a literal in the notations inet_aton (and so getaddrinfo, and URL
    parsers) accept: a.b.c.d, a.b.c (c 16 bits), a.b (b 24 bits) or a (32 bits), each part decimal,
    hexadecimal or octal."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(parts):
        return None
    numbers = [_number(part) for part in parts]
    if any(number is None for number in numbers):
        return None
    values = [int(number) for number in numbers if number is not None]
    *leading, last = values
    if any(value > 0xFF for value in leading) or last >= 1 << (8 * (5 - len(values))):
        return None
    total = last
    for index, value in enumerate(leading):
        total |= value << (8 * (3 - index))
    return ipaddress.IPv4Address(total)


def literal_address(host: str) -> IpAddress | None:
    """The address `host` is written as (brackets, a zone id and one trailing dot allowed), or None
    when it is a name to look up."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.removesuffix(".")
    if not text:
        return None
    try:
        return ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        pass
    return _inet_aton(text)
