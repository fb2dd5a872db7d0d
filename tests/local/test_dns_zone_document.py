"""The local DNS server's zone as JSON, which the embedded runtime's snapshots carry across restarts."""

from __future__ import annotations

import json

from devtools.local.dns_server import CNAME, MX, NULL_MX, SERVFAIL, TXT, A, DnsServer


def test_a_zone_comes_back_from_its_document_record_for_record() -> None:
    zone = DnsServer(
        {
            "customer.test": [MX(10, "mx.customer.test"), TXT("v=spf1 -all"), TXT("k" * 600)],
            "mx.customer.test": [A("127.0.0.1")],
            "www.customer.test": [CNAME("customer.test")],
            "null.test": [NULL_MX],
            "broken.test": [SERVFAIL],
        }
    )
    restored = DnsServer({"kept.test": [A("127.0.0.2")], "customer.test": [A("127.0.0.9")]})

    restored.load(json.loads(json.dumps(zone.document())))

    assert restored.records == {**zone.records, "kept.test": [A("127.0.0.2")]}  # a name it holds is its own
