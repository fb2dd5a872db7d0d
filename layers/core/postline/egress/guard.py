"""The one outbound address policy: every connection the service makes on a customer's behalf to a
host the customer's DNS names (their MX hosts for delivery and the mailbox probe, `mta-sts.<domain>`,
an https TLS-RPT `rua`, a webhook URL) goes through an EgressGuard.

1. Resolve the host once (an IP literal in any notation is not looked up: egress/addresses.py).
2. Refuse it when any of its addresses is not a public one (`EgressRefused`, before any packet is
   sent to it): nothing of a refused host ever reaches the caller but the refusal itself, so no
   remote server's text, and no difference between a port that is open, closed or filtered.
3. Connect to exactly the addresses checked (`connect`, or the caller's own connect to one of the
   `addresses` returned): the name is never resolved a second time, which would leave a DNS
   rebinding window.

`allow_private` (ALLOW_PRIVATE_OUTBOUND, config.EgressPolicy) turns step 2 off: the embedded runtime
and tests whose peers listen on 127.0.0.1 set it; a deployed stack never does. Destinations the
operator configures (SMTP_RELAY's smart host, the DNS resolver, the relay's probe endpoint, RDAP)
are not chosen by customers and do not go through it.

The resolver is the caller's: the relay's DNS (`dns_resolve`, DNS_RESOLVER) for mail hosts, the
system's (`system_resolve`) for webhooks.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable

import dns.exception
import dns.resolver

from postline.egress.addresses import address_refusal, literal_address
from postline.shared.resolver import dns_resolver

logger = logging.getLogger(__name__)

Resolve = Callable[[str, int], list[str]]  # host, port -> its addresses; OSError when it has none


class EgressRefused(Exception):
    """A host that resolves to an address outbound connections may not go to. Not an OSError: it is
    the policy's decision, not a network failure to retry elsewhere. Its text names the host and the
    kind of address, never the address itself (an internal name's address is not the customer's to
    learn); `address` is there for logs."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        self.host = host
        self.address = address
        self.reason = reason
        what = f"is a {reason} address" if literal_address(host) is not None else f"resolves to a {reason} address"
        super().__init__(f"{host} {what}; outbound connections go to public addresses only")


class NoAddress(OSError):
    """The host has no address to connect to (the name does not resolve)."""


def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (IPv4 and IPv6), without zone ids."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]).split("%", 1)[0] for info in infos})


def dns_resolve(nameserver: str, timeout: float = 5.0) -> Resolve:
    """The host's A records from `nameserver` ("host:port"; empty: the system's resolvers), as the
    relay's MX lookups ask them (its outbound traffic is IPv4, through the NAT gateway); [] when the
    name has none or DNS does not answer."""
    resolver = dns_resolver(nameserver, timeout)

    def resolve(host: str, port: int) -> list[str]:
        try:
            answer = resolver.resolve(host, "A")
        except dns.exception.DNSException:
            return []
        return list(dict.fromkeys(str(record) for record in answer))

    return resolve


class EgressGuard:
    def __init__(self, *, allow_private: bool, resolve: Resolve) -> None:
        self._allow_private = allow_private
        self._resolve = resolve

    @property
    def allow_private(self) -> bool:
        return self._allow_private

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses a connection to host:port may be made to, every one of them public (IPv4
        first); [] when the host has none. Raises EgressRefused when any address is not public."""
        literal = literal_address(host)
        if literal is not None:
            found = [str(literal)]
        else:
            try:
                found = self._resolve(host, port)
            except (OSError, UnicodeError):
                return []
        addresses = sorted(dict.fromkeys(found), key=lambda address: ":" in address)
        if not self._allow_private:
            for address in addresses:
                reason = address_refusal(address)
                if reason is not None:
                    logger.info("outbound connection to %s (%s, %s) refused", host, address, reason)
                    raise EgressRefused(host, address, reason)
        return addresses

    def connect(
        self, host: str, port: int, *, timeout: float, source_address: tuple[str, int] | None = None
    ) -> socket.socket:
        """A TCP connection to host:port at one of the addresses checked (the next one only when a
        connection could not be opened at all). EgressRefused, NoAddress, or the last OSError."""
        addresses = self.addresses(host, port)
        if not addresses:
            raise NoAddress(f"{host} has no address")
        failed: OSError | None = None
        for address in addresses:
            try:
                return socket.create_connection((address, port), timeout, source_address)
            except OSError as error:
                failed = error
        assert failed is not None
        raise failed
