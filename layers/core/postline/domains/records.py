"""Comparing what DNS publishes with the records a domain asks for. Pure.

TXT values are compared after normalising what DNS and providers' consoles add: a value split
into 255-byte character-strings (the resolver hands them over separately), quotes pasted along
with it, whitespace. DKIM key records are compared as the tag lists dkimpy reads (case-sensitive,
RFC 6376 section 3.2; whitespace folded, so a key split by a provider's line breaks is one key);
SPF as its terms, lower-cased (RFC 7208 section 4.6.1 is case-insensitive).

A record receivers refuse is `invalid`, whatever its value, and `detail` says why:
- DKIM: parsed by dkimpy's tag-list parser (dkim.util.parse_tag_value, what dkimpy's verifier runs
  on a key record): a duplicated tag, or a part that is no tag=value pair, invalidates the record
  (RFC 6376 section 3.2); a v= must come first and be DKIM1 (section 3.6.1); with two key records at
  the selector a receiver uses either (section 3.6.2.2).
- DMARC: the same tag-list syntax (RFC 7489 section 6.4, tag names case-insensitive there), then
  pydmarc's parser (the `dmarc` package, a receiver's milter): v=DMARC1 first, a known p=; with two
  records at _dmarc receivers apply none (section 6.6.3).
- SPF: only records beginning with exactly v=spf1 are SPF, and two are a permerror (RFC 7208 section
  4.5). Checked here rather than with checkdmarc: its parse_spf_record and parse_dmarc_record resolve
  what a record names (include:, a rua address's MX) over DNS, so they cannot judge a given text
  offline; pyspf evaluates over DNS too. A record that must equal ours term for term needs no more
  than that selection and count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import dmarc
from dkim.util import DuplicateTag, InvalidTagValueList, parse_tag_value

from postline.domains.domain import DnsRecord, Finding, RecordPurpose, RecordType

DMARC_POLICIES = ("none", "quarantine", "reject")
_DKIM = (RecordPurpose.DKIM, RecordPurpose.DKIM_NEXT)
_DKIM_TAGS = {"v", "g", "h", "k", "n", "p", "s", "t"}  # RFC 6376 section 3.6.1
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


def _text(raw: bytes | str) -> str:
    return raw.decode(errors="replace").strip() if isinstance(raw, bytes) else raw.strip()


def _tag_list(value: str, *, caseless_names: bool = False) -> dict[str, str]:
    """dkimpy's parse of a tag=value list, names lower-cased first where the syntax ignores their case
    (DMARC); InvalidTagValueList for a duplicated tag or a part that is no tag=value pair."""
    text = _unquoted(value)
    if caseless_names:
        text = ";".join(
            f"{name.lower()}={rest}" if sep else name for name, sep, rest in (p.partition("=") for p in text.split(";"))
        )
    return {_text(name): _text(tag_value) for name, tag_value in parse_tag_value(text.encode()).items()}


def _tag_list_problem(value: str, *, caseless_names: bool = False) -> str | None:
    try:
        _tag_list(value, caseless_names=caseless_names)
    except DuplicateTag as error:
        return f"the tag {_text(error.args[0])}= appears twice, which invalidates the record (RFC 6376 section 3.2)"
    except InvalidTagValueList as error:
        return f"'{_text(error.args[0])}' is not a tag=value pair, which invalidates the record (RFC 6376 section 3.2)"
    return None


def _dkim_problem(value: str) -> str | None:
    """Why receivers refuse this DKIM key record, or None."""
    problem = _tag_list_problem(value)
    if problem is not None:
        return problem
    parsed = _tag_list(value)
    upper = sorted(name for name in parsed if name not in _DKIM_TAGS and name.lower() in _DKIM_TAGS)
    if upper:
        names = ", ".join(f"{name}=" for name in upper)
        return f"tag names are case-sensitive (RFC 6376 section 3.2): receivers do not read {names} as lower case"
    if "v" in parsed and next(iter(parsed)) != "v":
        return "v=DKIM1 must be the first tag (RFC 6376 section 3.6.1)"
    if parsed.get("v", "DKIM1") != "DKIM1":
        return f"v={parsed['v']}: receivers discard a key record whose v= is not DKIM1 (RFC 6376 section 3.6.1)"
    return None


def _is_spf(value: str) -> bool:
    """An SPF record: it begins with exactly v=spf1 (RFC 7208 section 4.5)."""
    lowered = _unquoted(value).lower()
    return lowered == "v=spf1" or lowered.startswith("v=spf1 ")


def _dmarc_problem(value: str) -> str | None:
    """Why receivers refuse this DMARC record, or None."""
    problem = _tag_list_problem(value, caseless_names=True)
    if problem is not None:
        return problem
    try:
        dmarc.Policy("DMARC1", "").parse_record(_unquoted(value), strict=False)
    except dmarc.Error as error:
        policy = tags(value).get("p")
        if policy is not None and policy.lower() not in DMARC_POLICIES:
            return f"p={policy} is not none, quarantine or reject (RFC 7489 section 6.3)"
        return f"{error} (RFC 7489 section 6.3)"
    return None


def _quoted(values: list[str]) -> str:
    return ", ".join(f'"{value}"' for value in values)


def _problem(purpose: RecordPurpose, candidates: list[str]) -> str | None:
    """Why receivers refuse what is published at the host (several records, a broken one), or None."""
    found = _quoted(candidates)
    if purpose is RecordPurpose.SPF:
        records = [value for value in candidates if _is_spf(value)]
        if len(records) > 1:
            return (
                f"{len(records)} SPF records at the host: receivers fail SPF (permerror, RFC 7208 section 4.5); "
                f"publish one: {found}"
            )
        if not records and candidates:
            return f"v=spf1 must begin the record (RFC 7208 section 4.5); receivers ignore it: {found}"
    if purpose in _DKIM:
        if len(candidates) > 1:
            return (
                f"{len(candidates)} key records at the host: a receiver uses either (RFC 6376 section 3.6.2.2); "
                f"publish one: {found}"
            )
        problem = _dkim_problem(candidates[0]) if candidates else None
        if problem is not None:
            return f"{problem}: {found}"
    return None


def normalised(purpose: RecordPurpose, record_type: RecordType, value: str) -> object:
    """A comparable form of a value of this record."""
    if record_type is RecordType.TXT and purpose is RecordPurpose.SPF:
        return spf_terms(value)
    if record_type is RecordType.TXT and purpose in _DKIM:
        try:
            return {name: "".join(tag_value.split()) for name, tag_value in _tag_list(value).items()}
        except InvalidTagValueList:
            return None
    if record_type is RecordType.TXT:
        return tags(value)
    if record_type is RecordType.MX:
        preference, _, host = value.strip().partition(" ")
        return host.strip().rstrip(".").lower() or preference.rstrip(".").lower()  # the exchange; any preference
    return value.strip().rstrip(".").lower()


def _relevant(purpose: RecordPurpose, value: str) -> bool:
    """Whether a TXT value at the host is meant as the kind of record looked for (others share the
    name); one that receivers would not take for it (v= not first) is still looked at, to say why."""
    if purpose is RecordPurpose.SPF:
        return any(term.startswith("v=spf") for term in spf_terms(value))
    if purpose is RecordPurpose.DMARC:
        return "v=dmarc1" in _unquoted(value).lower()
    if purpose in _DKIM:
        return bool({"p", "v"} & set(tags(value)))
    return True


def dmarc_policy(value: str) -> str | None:
    """The p= of a DMARC record receivers take (v=DMARC1 first, a known p), else None."""
    if _dmarc_problem(value) is not None:
        return None
    return tags(value).get("p", "").lower()


def compare(expected: DnsRecord, lookup: Lookup) -> DnsRecord:
    """The expected record with what DNS published at its host."""
    if lookup.error is not None:
        return expected.model_copy(update={"ok": False, "finding": Finding.LOOKUP_FAILED, "detail": lookup.error})
    candidates = [value for value in lookup.values if _relevant(expected.purpose, value)]
    if expected.purpose is RecordPurpose.DMARC:
        return _dmarc(expected, candidates)
    problem = _problem(expected.purpose, candidates)
    if problem is not None:
        return expected.model_copy(update={"ok": False, "finding": Finding.INVALID, "detail": problem})
    want = normalised(expected.purpose, expected.type, expected.value)
    if any(normalised(expected.purpose, expected.type, value) == want for value in candidates):
        return expected.model_copy(update={"ok": True, "finding": Finding.FOUND, "detail": None})
    if candidates:
        found = "; ".join(candidates)
        return expected.model_copy(update={"ok": False, "finding": Finding.MISMATCH, "detail": f"found: {found}"})
    return expected.model_copy(update={"ok": False, "finding": Finding.MISSING, "detail": None})


def _dmarc(expected: DnsRecord, candidates: list[str]) -> DnsRecord:
    """DMARC is the domain owner's policy: one that receivers take is ok, and shown; absent, ours is
    recommended (the expected value)."""
    if not candidates:
        return expected.model_copy(update={"ok": False, "finding": Finding.MISSING, "detail": "recommended"})
    records = [value for value in candidates if _unquoted(value).lower().startswith("v=dmarc1")]
    if len(records) > 1:
        detail = (
            f"{len(records)} DMARC records at the host: receivers apply none (RFC 7489 section 6.6.3); "
            f"publish one: {_quoted(records)}"
        )
        return expected.model_copy(update={"ok": False, "finding": Finding.INVALID, "detail": detail})
    value = (records or candidates)[0]
    problem = _dmarc_problem(value)
    if problem is not None:
        detail = f"{problem}: {_quoted([value])}"
        return expected.model_copy(update={"ok": False, "finding": Finding.INVALID, "detail": detail})
    return expected.model_copy(update={"ok": True, "finding": Finding.FOUND, "value": value, "detail": None})


def appended_twice(expected: DnsRecord, domain: str, lookup: Lookup) -> DnsRecord | None:
    """The record found at host.domain (a DNS console appended the domain to a full name), or None."""
    if lookup.error is not None or not lookup.values:
        return None
    doubled = compare(expected.model_copy(update={"host": f"{expected.host}.{domain}"}), lookup)
    if not doubled.ok:
        return None
    detail = f"published at {expected.host}.{domain}: enter the host without .{domain}, your DNS provider adds it"
    return expected.model_copy(update={"ok": False, "finding": Finding.DOMAIN_APPENDED_TWICE, "detail": detail})
