"""Record generation, normalisation and comparison, and which names can be sending domains."""

from __future__ import annotations

import pytest

from postline.domains.domain import (
    DnsRecord,
    DnsSettings,
    DomainStatus,
    Finding,
    RecordPurpose,
    RecordType,
    SendingDomain,
    expected_records,
    tracking_host_clashes,
)
from postline.domains.names import sending_domain_name
from postline.domains.records import Lookup, appended_twice, compare, dmarc_policy
from postline.shared.errors import ValidationFailed

SETTINGS = DnsSettings(spf_include="spf.postline.dev", bounce_mx="bounces.postline.dev", tracking_host="t.postline.dev")
KEY = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx" + "Ab" * 150


def domain(**fields: object) -> SendingDomain:
    base = {"account_id": "a", "domain": "acme.example", "status": DomainStatus.PENDING, "dkim_selector": "pl202611",
            "dkim_private_key": "", "dkim_public_key": KEY, "id": "dom_1",
            "created_at": "2026-11-01T00:00:00Z"}  # fmt: skip
    return SendingDomain.model_validate({**base, **fields})


def record(purpose: RecordPurpose, with_tracking: bool = False) -> DnsRecord:
    records = expected_records(domain(tracking_subdomain="links" if with_tracking else None), SETTINGS)
    return next(r for r in records if r.purpose is purpose)


def test_the_records_a_domain_asks_for() -> None:
    records = {
        (r.purpose, r.type, r.host): r.value for r in expected_records(domain(tracking_subdomain="links"), SETTINGS)
    }
    assert records == {
        (RecordPurpose.DKIM, RecordType.TXT, "pl202611._domainkey.acme.example"): f"v=DKIM1; k=rsa; p={KEY}",
        (RecordPurpose.SPF, RecordType.TXT, "pm-bounces.acme.example"): "v=spf1 include:spf.postline.dev ~all",
        (RecordPurpose.RETURN_PATH_MX, RecordType.MX, "pm-bounces.acme.example"): "10 bounces.postline.dev",
        (RecordPurpose.DMARC, RecordType.TXT, "_dmarc.acme.example"): (
            "v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.example"
        ),
        (RecordPurpose.TRACKING, RecordType.CNAME, "links.acme.example"): "t.postline.dev",
    }
    assert all(not r.ok and r.finding is Finding.UNCHECKED for r in expected_records(domain(), SETTINGS))
    assert domain().envelope_sender("msg_1") == "bounces+msg_1@pm-bounces.acme.example"


@pytest.mark.parametrize(
    "published",
    [
        f"v=DKIM1; k=rsa; p={KEY}",
        f'"v=DKIM1; k=rsa; p={KEY}"',  # pasted with its quotes
        f'"v=DKIM1; k=rsa; " "p={KEY[:100]}" "{KEY[100:]}"',  # pasted as a console's quoted chunks
        f"v=DKIM1;k=rsa;p={KEY};",  # no spaces, a trailing semicolon
        f"v=DKIM1;  k=rsa;\tp={KEY[:60]} {KEY[60:]}",  # whitespace folded, a key broken by a space
    ],
)
def test_dkim_matches_after_normalising_quotes_chunks_and_whitespace(published: str) -> None:
    checked = compare(record(RecordPurpose.DKIM), Lookup((published,)))
    assert (checked.ok, checked.finding, checked.detail) == (True, Finding.FOUND, None)


def test_a_dkim_key_differing_only_in_case_is_a_mismatch() -> None:
    # p= is base64: its case is the key.
    checked = compare(record(RecordPurpose.DKIM), Lookup((f"v=DKIM1; k=rsa; p={KEY.lower()}",)))
    assert (checked.ok, checked.finding) == (False, Finding.MISMATCH)
    assert checked.detail is not None and KEY.lower() in checked.detail


def test_spf_matches_case_insensitively_and_ignores_other_txt_records_at_the_host() -> None:
    spf = record(RecordPurpose.SPF)
    found = compare(spf, Lookup(("google-site-verification=abc", "V=SPF1 INCLUDE:spf.postline.dev ~ALL")))
    assert (found.ok, found.finding) == (True, Finding.FOUND)
    wrong = compare(spf, Lookup(("google-site-verification=abc", "v=spf1 include:other.example -all")))
    assert (wrong.ok, wrong.finding, wrong.detail) == (
        False,
        Finding.MISMATCH,
        "found: v=spf1 include:other.example -all",
    )
    assert compare(spf, Lookup(("google-site-verification=abc",))).finding is Finding.MISSING
    assert compare(spf, Lookup()).finding is Finding.MISSING


def test_mx_compares_the_exchange_whatever_the_preference() -> None:
    mx = record(RecordPurpose.RETURN_PATH_MX)
    assert compare(mx, Lookup(("20 Bounces.Postline.Dev.",))).ok
    assert compare(mx, Lookup(("10 mx.elsewhere.example",))).finding is Finding.MISMATCH


def test_tracking_cname() -> None:
    tracking = record(RecordPurpose.TRACKING, with_tracking=True)
    assert compare(tracking, Lookup(("T.postline.dev.",))).ok
    assert compare(tracking, Lookup(("ghs.googlehosted.com",))).finding is Finding.MISMATCH


def test_dmarc_any_policy_that_parses_is_ok_and_shown_else_ours_is_recommended() -> None:
    dmarc = record(RecordPurpose.DMARC)
    found = compare(dmarc, Lookup(("v=DMARC1; p=reject; pct=100",)))
    assert (found.ok, found.value) == (True, "v=DMARC1; p=reject; pct=100")
    broken = compare(dmarc, Lookup(("v=DMARC1; p=maybe",)))
    assert (broken.ok, broken.finding) == (False, Finding.INVALID)
    absent = compare(dmarc, Lookup())
    assert (absent.ok, absent.finding, absent.value) == (False, Finding.MISSING, dmarc.value)
    assert [dmarc_policy(v) for v in ("v=DMARC1; p=quarantine", "p=reject; v=DMARC1", "v=DMARC1")] == [
        "quarantine",
        None,
        None,
    ]


OURS = f"v=DKIM1; k=rsa; p={KEY}"
SPF = "v=spf1 include:spf.postline.dev ~all"


@pytest.mark.parametrize(
    ("purpose", "published", "detail"),
    [
        # dkimpy's tag-list parser refuses the record (RFC 6376 section 3.2): no signature verifies.
        (RecordPurpose.DKIM, (f"{OURS}; p={KEY}",), "the tag p= appears twice"),
        (RecordPurpose.DKIM, (f"k=rsa; v=DKIM1; p={KEY}",), "v=DKIM1 must be the first tag"),
        (RecordPurpose.DKIM, (f"v=DKIM1; k=rsa; p={KEY}; junk",), "'junk' is not a tag=value pair"),
        (RecordPurpose.DKIM, (f"v=DKIM2; k=rsa; p={KEY}",), "v=DKIM2"),
        (RecordPurpose.DKIM, (f"V=DKIM1;K=rsa;P={KEY}",), "tag names are case-sensitive"),  # dkimpy finds no p=
        (RecordPurpose.DKIM, (OURS, "v=DKIM1; k=rsa; p=MIIBold"), "2 key records"),  # either may be used
        # RFC 7208 section 4.5: two SPF records are a permerror; one not beginning v=spf1 is not SPF.
        (RecordPurpose.SPF, (SPF, "v=spf1 include:other.example -all"), "2 SPF records"),
        (RecordPurpose.SPF, (SPF, SPF.upper()), "2 SPF records"),
        (RecordPurpose.SPF, ("include:spf.postline.dev v=spf1 ~all",), "v=spf1 must begin the record"),
        # RFC 7489 section 6.6.3: v=DMARC1 first, one record; section 6.4: DKIM's tag-list syntax.
        (RecordPurpose.DMARC, ("p=reject; v=DMARC1",), "v=DMARC1"),
        (RecordPurpose.DMARC, ("v=DMARC1; p=none; p=reject",), "the tag p= appears twice"),
        (RecordPurpose.DMARC, ("v=DMARC1; p=none", "v=DMARC1; p=reject"), "2 DMARC records"),
    ],
)
def test_a_record_receivers_reject_is_invalid_with_the_reason(
    purpose: RecordPurpose, published: tuple[str, ...], detail: str
) -> None:
    checked = compare(record(purpose), Lookup(published))
    assert (checked.ok, checked.finding) == (False, Finding.INVALID)
    assert checked.detail is not None and detail in checked.detail, checked.detail


def test_a_lookup_that_failed_concludes_nothing() -> None:
    checked = compare(record(RecordPurpose.DKIM), Lookup(error="timed out"))
    assert (checked.ok, checked.finding, checked.detail) == (False, Finding.LOOKUP_FAILED, "timed out")


def test_a_record_published_with_the_domain_appended_twice_is_named() -> None:
    dkim = record(RecordPurpose.DKIM)
    doubled = appended_twice(dkim, "acme.example", Lookup((dkim.value,)))
    assert doubled is not None and (doubled.ok, doubled.finding) == (False, Finding.DOMAIN_APPENDED_TWICE)
    assert doubled.detail is not None and "pl202611._domainkey.acme.example.acme.example" in doubled.detail
    assert appended_twice(dkim, "acme.example", Lookup()) is None
    assert appended_twice(dkim, "acme.example", Lookup(("v=DKIM1; p=other",))) is None


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Acme.Example", "acme.example"),
        ("mail.acme.co.uk.", "mail.acme.co.uk"),
        ("Bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_names_are_stored_as_lower_case_a_labels(raw: str, stored: str) -> None:
    assert sending_domain_name(raw) == stored


@pytest.mark.parametrize(
    "raw", ["co.uk", "github.io", "com", "localhost", "192.0.2.1", "2001:db8::1", "a..b", "x_y.example", "-a.example"]
)
def test_public_suffixes_addresses_and_malformed_names_are_refused(raw: str) -> None:
    with pytest.raises(ValidationFailed):
        sending_domain_name(raw)


@pytest.mark.parametrize(
    ("label", "clashes"),
    [
        ("pm-bounces", [RecordPurpose.SPF, RecordPurpose.RETURN_PATH_MX]),
        ("_dmarc", [RecordPurpose.DMARC]),  # the API's label syntax refuses these two already
        ("pl202611._domainkey", [RecordPurpose.DKIM]),
        ("links", []),
    ],
)
def test_a_tracking_host_clashes_with_any_other_record_at_its_name(label: str, clashes: list[RecordPurpose]) -> None:
    found = tracking_host_clashes(domain(tracking_subdomain=label), SETTINGS)
    assert [record.purpose for record in found] == clashes
