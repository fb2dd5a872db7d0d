"""Where mail for a domain goes: its MX hosts by preference (dnspython), per RFC 5321 section 5."""

from __future__ import annotations

from dataclasses import dataclass

import dns.exception
import dns.resolver


@dataclass(frozen=True)
class MxAnswer:
    hosts: list[str]  # best first; empty when the domain takes no mail
    permanent_error: str | None = None  # the domain does not exist, or publishes a null MX
    temporary_error: str | None = None  # DNS did not answer: try again later


class MxResolver:
    def __init__(self, nameserver: str = "", timeout: float = 5.0) -> None:
        """nameserver: "host:port" of the DNS server to ask; empty for the system's resolvers."""
        if nameserver:
            host, _, port = nameserver.rpartition(":")
            self._resolver = dns.resolver.Resolver(configure=False)
            self._resolver.nameservers = [host or "127.0.0.1"]
            self._resolver.port = int(port)
        else:
            self._resolver = dns.resolver.Resolver()
        self._resolver.lifetime = timeout

    def lookup(self, domain: str) -> MxAnswer:
        try:
            answer = self._resolver.resolve(domain, "MX")
        except dns.resolver.NXDOMAIN:
            return MxAnswer([], permanent_error=f"{domain} does not exist (NXDOMAIN)")
        except dns.resolver.NoAnswer:
            return MxAnswer([domain])  # no MX: the domain's own address is the implicit MX
        except (dns.exception.Timeout, dns.resolver.NoNameservers) as error:
            return MxAnswer([], temporary_error=f"DNS lookup of {domain} failed: {error}")
        records = sorted(answer, key=lambda record: record.preference)
        hosts = [str(record.exchange).rstrip(".") for record in records]
        if hosts == [""]:  # RFC 7505 null MX: "this domain accepts no mail"
            return MxAnswer([], permanent_error=f"{domain} accepts no mail (null MX)")
        return MxAnswer(hosts)

    def address(self, host: str) -> str | None:
        """An IPv4 address of the host, or None."""
        try:
            return str(self._resolver.resolve(host, "A")[0])
        except (dns.exception.DNSException, IndexError):
            return None
