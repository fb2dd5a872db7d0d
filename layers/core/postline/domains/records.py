"""Comparing what DNS publishes with the records a domain asks for. Pure.

TXT values are compared after normalising what DNS and providers' consoles add: a value split
into 255-byte character-strings (the resolver hands them over separately), quotes pasted along
with it, whitespace and case. A DKIM key's p= is base64, case-sensitive, so DKIM and DMARC are
compared as tag lists (RFC 6376 section 3.2: tag names case-insensitive, whitespace folded);
SPF as its terms, lower-cased (RFC 7208 section 4.6.1 is case-insensitive).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from postline.domains.domain import DnsRecord, Finding, RecordPurpose, RecordType

DMARC_POLICIES = ("none", "quarantine", "reject")
_CASELESS_TAGS = {"v", "k", "h", "s", "t"}  # DKIM tags whose values ignore case (never p=, base64)
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Lookup:
    """What DNS answered for one name and type: its values, or that it has none, or no answer."""

    values: tuple[str, ...] = ()  # TXT: each record's character-strings joined; MX: "pref host"; CNAME: host
    error: str | None = None  # the server did not answer (timeout, SERVFAIL)


def join_txt(strings: list[bytes]) -> str:
    """One TXT record's character-strings, joined as RFC 7208 section 3.3 says."""
    return b"".join(strings).decode("utf-8", errors="replace")


def _unquoted(value: str) -> str:
    """A value pasted with its quotes, whole or per chunk ("v=DKIM1; " "p=..."), arrives with them."""
    value = value.strip()
    quoted = _QUOTED.findall(value)
    return "".join(quoted) if quoted and value.startswith('"') else value


def tags(value: str) -> dict[str, str]:
    """A tag=value list: names lower-cased, whitespace folded out of values (a key split by a
    provider's line breaks is still one key)."""
    parsed: dict[str, str] = {}
    for part in _unquoted(value).split(";"):
        name, sep, tag_value = part.partition("=")
        if sep and name.strip():
            parsed[name.strip().lower()] = "".join(tag_value.split())
    return parsed


def spf_terms(value: str) -> list[str]:
    return _unquoted(value).lower().split()


def normalised(purpose: RecordPurpose, record_type: RecordType, value: str) -> object:
    """A comparable form of a value of this record."""
    if record_type is RecordType.TXT and purpose is RecordPurpose.SPF:
        return spf_terms(value)
    if record_type is RecordType.TXT:
        return {name: v.lower() if name in _CASELESS_TAGS else v for name, v in tags(value).items()}
    if record_type is RecordType.MX:
        preference, _, host = value.strip().partition(" ")
        return host.strip().rstrip(".").lower() or preference.rstrip(".").lower()  # the exchange; any preference
    return value.strip().rstrip(".").lower()


def _relevant(purpose: RecordPurpose, value: str) -> bool:
    """Whether a TXT value at the host is the kind of record looked for (others share the name)."""
    if purpose is RecordPurpose.SPF:
        return _unquoted(value).lower().startswith("v=spf1")
    if purpose is RecordPurpose.DMARC:
        return _unquoted(value).lower().startswith("v=dmarc1")
    if purpose is RecordPurpose.DKIM:
        return "p" in tags(value)
    return True


def dmarc_policy(value: str) -> str | None:
    """The p= of a DMARC record that parses (v=DMARC1 first, a known p), else None."""
    parsed = tags(value)
    if _unquoted(value).split(";")[0].strip().upper() != "V=DMARC1":
        return None
    policy = parsed.get("p", "").lower()
    return policy if policy in DMARC_POLICIES else None


def compare(expected: DnsRecord, lookup: Lookup) -> DnsRecord:
    """The expected record with what DNS published at its host."""
    if lookup.error is not None:
        return expected.model_copy(update={"ok": False, "finding": Finding.LOOKUP_FAILED, "detail": lookup.error})
    candidates = [value for value in lookup.values if _relevant(expected.purpose, value)]
    if expected.purpose is RecordPurpose.DMARC:
        return _dmarc(expected, candidates)
    want = normalised(expected.purpose, expected.type, expected.value)
    if any(normalised(expected.purpose, expected.type, value) == want for value in candidates):
        return expected.model_copy(update={"ok": True, "finding": Finding.FOUND, "detail": None})
    if candidates:
        found = "; ".join(candidates)
        return expected.model_copy(update={"ok": False, "finding": Finding.MISMATCH, "detail": f"found: {found}"})
    return expected.model_copy(update={"ok": False, "finding": Finding.MISSING, "detail": None})


def _dmarc(expected: DnsRecord, candidates: list[str]) -> DnsRecord:
    """DMARC is the domain owner's policy: any that parses is ok, and shown; absent, ours is
    recommended (the expected value)."""
    for value in candidates:
        if dmarc_policy(value) is not None:
            return expected.model_copy(update={"ok": True, "finding": Finding.FOUND, "value": value, "detail": None})
    if candidates:
        detail = f"does not parse as DMARC: {candidates[0]}"
        return expected.model_copy(update={"ok": False, "finding": Finding.MISMATCH, "detail": detail})
    return expected.model_copy(update={"ok": False, "finding": Finding.MISSING, "detail": "recommended"})


def appended_twice(expected: DnsRecord, domain: str, lookup: Lookup) -> DnsRecord | None:
    """The record found at host.domain (a DNS console appended the domain to a full name), or None."""
    if lookup.error is not None or not lookup.values:
        return None
    doubled = compare(expected.model_copy(update={"host": f"{expected.host}.{domain}"}), lookup)
    if not doubled.ok:
        return None
    detail = f"published at {expected.host}.{domain}: enter the host without .{domain}, your DNS provider adds it"
    return expected.model_copy(update={"ok": False, "finding": Finding.DOMAIN_APPENDED_TWICE, "detail": detail})
