"""Where mail for a domain goes: its MX hosts by preference (dnspython), per RFC 5321 section 5,
for the SMTP transport (lookup) and for address verification (route)."""

from __future__ import annotations

from dataclasses import dataclass

import dns.exception
import dns.resolver

from postline.shared.resolver import dns_resolver

_NO_ANSWER = (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer)
_NO_SERVER = (dns.exception.Timeout, dns.resolver.NoNameservers)


@dataclass(frozen=True)
class MailRoute:
    """Where a domain's mail goes, as DNS answered (RFC 5321 section 5.1, RFC 7505)."""

    mx_hosts: tuple[str, ...] = ()  # its MX records, best first
    null_mx: bool = False  # MX 0 "." : the domain takes no mail
    exists: bool = True  # False: NXDOMAIN
    has_address: bool = False  # an A or AAAA record: with no MX, the domain itself is the MX
    lookup_error: str | None = None  # DNS did not answer (timeout, SERVFAIL)


@dataclass(frozen=True)
class MxAnswer:
    hosts: list[str]  # best first; empty when the domain takes no mail
    permanent_error: str | None = None  # the domain does not exist, or publishes a null MX
    temporary_error: str | None = None  # DNS did not answer: try again later


class MxResolver:
    def __init__(self, nameserver: str = "", timeout: float = 5.0) -> None:
        """nameserver: "host:port" of the DNS server to ask; empty for the system's resolvers."""
        self._resolver = dns_resolver(nameserver, timeout)

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

    def route(self, domain: str) -> MailRoute:
        """What verification needs to know about the domain's mail: MX, null MX, or its own address."""
        try:
            answer = self._resolver.resolve(domain, "MX")
        except dns.resolver.NXDOMAIN:
            return MailRoute(exists=False)
        except dns.resolver.NoAnswer:
            return self._implicit_route(domain)
        except _NO_SERVER as error:
            return MailRoute(lookup_error=str(error))
        hosts = [str(record.exchange).rstrip(".") for record in sorted(answer, key=lambda record: record.preference)]
        if hosts == [""]:
            return MailRoute(null_mx=True)
        return MailRoute(mx_hosts=tuple(hosts))

    def _implicit_route(self, domain: str) -> MailRoute:
        """No MX: the domain's own A or AAAA record is where its mail goes, if it has one."""
        for record_type in ("A", "AAAA"):
            try:
                self._resolver.resolve(domain, record_type)
            except _NO_ANSWER:
                continue
            except _NO_SERVER as error:
                return MailRoute(lookup_error=str(error))
            return MailRoute(has_address=True)
        return MailRoute()

    def address(self, host: str) -> str | None:
        """An IPv4 address of the host, or None."""
        try:
            return str(self._resolver.resolve(host, "A")[0])
        except (dns.exception.DNSException, IndexError):
            return None
