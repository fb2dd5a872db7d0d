"""The record lookup of sending-domain checks (dnspython) against a real DNS server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from devtools.local.dns_server import CNAME, MX, SERVFAIL, TXT, DnsServer, unanswered_nameserver
from postline.domains.dns import DnsRecordLookup
from postline.domains.domain import (
    DnsSettings,
    DomainStatus,
    Finding,
    RecordPurpose,
    RecordType,
    SendingDomain,
    after_check,
    dkim_txt,
    expected_records,
    spf_txt,
)
from postline.domains.records import Lookup, compare

KEY = "v=DKIM1; k=rsa; p=" + "A" * 400  # longer than one 255-byte character-string


@pytest.fixture(scope="module")
def dns_server() -> Iterator[DnsServer]:
    with DnsServer() as server:
        server.add("pl1._domainkey.acme.test", TXT(KEY))
        server.add("pm-bounces.acme.test", TXT("v=spf1 include:spf.postline.dev ~all"), MX(10, "bounces.postline.dev"))
        server.add("links.acme.test", CNAME("track.postline.dev"))
        server.add("broken.test", SERVFAIL)
        yield server


@pytest.fixture
def lookup(dns_server: DnsServer) -> DnsRecordLookup:
    return DnsRecordLookup(dns_server.address, timeout=2.0)


def test_each_record_type_reads_as_the_checks_compare_it(lookup: DnsRecordLookup, dns_server: DnsServer) -> None:
    assert lookup.lookup("pl1._domainkey.acme.test", RecordType.TXT) == Lookup((KEY,))  # chunks joined
    assert lookup.lookup("pm-bounces.acme.test", RecordType.MX) == Lookup(("10 bounces.postline.dev",))
    assert lookup.lookup("links.acme.test", RecordType.CNAME) == Lookup(("track.postline.dev",))
    assert lookup.lookup("nothing.acme.test", RecordType.TXT) == Lookup()  # NXDOMAIN
    assert lookup.lookup("links.acme.test", RecordType.MX) == Lookup()  # no answer of that type
    dns_server.replace("pm-bounces.acme.test", MX(10, "bounces.postline.dev"))
    assert lookup.lookup("pm-bounces.acme.test", RecordType.TXT) == Lookup()  # seen at once: no cache


def test_a_server_that_fails_or_does_not_answer_is_an_error_not_an_absence(lookup: DnsRecordLookup) -> None:
    failed = lookup.lookup("broken.test", RecordType.TXT)
    assert failed.values == () and failed.error is not None
    with unanswered_nameserver() as silent:
        timed_out = DnsRecordLookup(silent, timeout=0.5).lookup("acme.test", RecordType.TXT)
    assert timed_out.error is not None and "did not answer" in timed_out.error


SETTINGS = DnsSettings(spf_include="spf.postline.dev", bounce_mx="bounces.postline.dev", tracking_host="t.postline.dev")
PUBLIC_KEY = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + "q" * 300
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("name", "dkim", "spf", "dmarc", "invalid"),
    [
        (  # dkimpy refuses a tag list with a duplicated tag; two SPF records are a permerror
            "twice.test",
            [f"{dkim_txt(PUBLIC_KEY)}; p={PUBLIC_KEY}"],
            [spf_txt(SETTINGS), "v=spf1 include:other.example -all"],
            ["v=DMARC1; p=none", "v=DMARC1; p=reject"],
            {
                RecordPurpose.DKIM: "the tag p= appears twice",
                RecordPurpose.SPF: "2 SPF records",
                RecordPurpose.DMARC: "2 DMARC records",
            },
        ),
        (  # v= not first: DKIM's must be (RFC 6376 section 3.6.1), DMARC's too (RFC 7489 section 6.6.3)
            "reordered.test",
            [f"k=rsa; v=DKIM1; p={PUBLIC_KEY}"],
            [spf_txt(SETTINGS)],
            ["p=reject; v=DMARC1"],
            {RecordPurpose.DKIM: "v=DKIM1 must be the first tag", RecordPurpose.DMARC: "v=DMARC1"},
        ),
    ],
)
def test_records_receivers_reject_are_invalid_and_the_domain_is_not_verified(
    lookup: DnsRecordLookup,
    dns_server: DnsServer,
    name: str,
    dkim: list[str],
    spf: list[str],
    dmarc: list[str],
    invalid: dict[RecordPurpose, str],
) -> None:
    domain = SendingDomain(
        account_id="a", id="dom_1", domain=name, status=DomainStatus.PENDING, dkim_selector="pl1",
        dkim_private_key="", dkim_public_key=PUBLIC_KEY, created_at=NOW,
    )  # fmt: skip
    dns_server.add(f"pl1._domainkey.{name}", *(TXT(value) for value in dkim))
    dns_server.add(f"pm-bounces.{name}", *(TXT(value) for value in spf), MX(10, SETTINGS.bounce_mx))
    dns_server.add(f"_dmarc.{name}", *(TXT(value) for value in dmarc))

    records = [
        compare(expected, lookup.lookup(expected.host, expected.type))
        for expected in expected_records(domain, SETTINGS)
    ]
    checked = after_check(domain, records, NOW)

    assert checked.status is DomainStatus.VERIFICATION_FAILED
    found = {record.purpose: record for record in checked.records}
    for purpose, reason in invalid.items():
        assert (found[purpose].ok, found[purpose].finding) == (False, Finding.INVALID)
        assert found[purpose].detail is not None and reason in found[purpose].detail, found[purpose].detail
    assert found[RecordPurpose.RETURN_PATH_MX].ok
