"""The record lookup of sending-domain checks (dnspython) against a real DNS server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.local.dns_server import CNAME, MX, SERVFAIL, TXT, DnsServer, unanswered_nameserver
from postline.domains.dns import DnsRecordLookup
from postline.domains.domain import RecordType
from postline.domains.records import Lookup

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
