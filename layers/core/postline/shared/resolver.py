"""The dnspython resolver the DNS adapters (MX lookups, domain checks) ask."""

from __future__ import annotations

import dns.resolver


def dns_resolver(nameserver: str, timeout: float) -> dns.resolver.Resolver:
    """nameserver: "host:port" of the DNS server to ask (the deployment's DNS_RESOLVER, a test's
    server); empty for the system's resolvers. `timeout` bounds a whole lookup, retries included."""
    if nameserver:
        host, _, port = nameserver.rpartition(":")
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers = [host or "127.0.0.1"]
        resolver.port = int(port)
    else:
        resolver = dns.resolver.Resolver()
    resolver.lifetime = timeout
    return resolver
