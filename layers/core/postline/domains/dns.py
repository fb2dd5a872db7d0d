"""The records published at a name, asked of the deployment's DNS resolvers with dnspython."""

from __future__ import annotations

import dns.exception
import dns.resolver

from postline.domains.domain import RecordType
from postline.domains.records import Lookup, join_txt
from postline.shared.resolver import dns_resolver


class DnsRecordLookup:
    def __init__(self, nameserver: str = "", timeout: float = 3.0) -> None:
        """nameserver: "host:port" of the DNS server to ask; empty for the system's resolvers."""
        self._resolver = dns_resolver(nameserver, timeout)
        # Verification must see a record as soon as it is published, not an answer cached minutes ago.
        self._resolver.cache = None

    def lookup(self, name: str, record_type: RecordType) -> Lookup:
        try:
            answer = self._resolver.resolve(name, record_type.value)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return Lookup()
        except (dns.exception.Timeout, dns.resolver.NoNameservers) as error:
            return Lookup(error=f"DNS did not answer for {name} {record_type.value}: {error}")
        if record_type is RecordType.TXT:
            return Lookup(tuple(join_txt(list(record.strings)) for record in answer))
        if record_type is RecordType.MX:
            return Lookup(tuple(f"{record.preference} {str(record.exchange).rstrip('.')}" for record in answer))
        return Lookup(tuple(str(record.target).rstrip(".") for record in answer))
