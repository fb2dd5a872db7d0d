"""The outbound address policy (postline/egress/guard.py) for tests whose peers listen on 127.0.0.1.

Every outbound connection made for a customer refuses addresses inside (loopback among them), so a
test that means to reach its peers says so, as the embedded runtime does with ALLOW_PRIVATE_OUTBOUND:

    SmtpTransport(..., egress=peers_allowed(dns_server.address))
"""

from __future__ import annotations

from postline.egress.guard import EgressGuard, dns_resolve


def peers_allowed(nameserver: str) -> EgressGuard:
    """Private and loopback addresses allowed, names resolved by the test's DNS server ("host:port")."""
    return EgressGuard(allow_private=True, resolve=dns_resolve(nameserver, 2.0))


def strict(nameserver: str) -> EgressGuard:
    """The policy as a deployed stack has it: public addresses only."""
    return EgressGuard(allow_private=False, resolve=dns_resolve(nameserver, 2.0))
