"""The outbound address policy's connections (postline/egress/guard.py) against real peers on 127.0.0.1:
a DNS server (devtools/local/dns_server.py) and a listening socket that counts who connects.

A refused host gets no packet at all; an allowed one is connected to at the address DNS gave once
(no second lookup at connect time: a rebinding answer in between changes nothing)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from devtools.local.dns_server import A, DnsServer
from postline.egress.guard import EgressGuard, EgressRefused, NoAddress, dns_resolve

LOOPBACK = "127.0.0.1"


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP port on 127.0.0.1 that accepts connections (the kernel's backlog) and never answers."""
    server = socket.socket()
    server.bind((LOOPBACK, 0))
    server.listen(8)
    server.settimeout(0.2)
    yield server
    server.close()


def _accepted(server: socket.socket) -> int:
    """How many connections are waiting in the listener's backlog (each taken and closed)."""
    count = 0
    while True:
        try:
            connection, _ = server.accept()
        except TimeoutError:
            return count
        connection.close()
        count += 1


def test_a_host_resolving_inside_is_refused_before_any_connection(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with DnsServer() as dns:
        dns.add("mx.inside.test", A(LOOPBACK))
        guard = EgressGuard(allow_private=False, resolve=dns_resolve(dns.address, 2.0))
        with pytest.raises(EgressRefused, match=r"mx\.inside\.test resolves to a loopback address"):
            guard.connect("mx.inside.test", port, timeout=2)
        for literal in (LOOPBACK, "0x7f.1", "2130706433"):
            with pytest.raises(EgressRefused, match="is a loopback address"):
                guard.connect(literal, port, timeout=2)
        assert [q.name for q in dns.queries] == ["mx.inside.test"]  # literals are never looked up
    assert _accepted(listener) == 0


def test_allowed_private_addresses_are_connected_to_at_the_address_dns_gave_once(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with DnsServer() as dns:
        dns.add("mx.local.test", A(LOOPBACK))
        guard = EgressGuard(allow_private=True, resolve=dns_resolve(dns.address, 2.0))
        with guard.connect("mx.local.test", port, timeout=2) as connection:
            assert connection.getpeername() == (LOOPBACK, port)
        assert [(q.name, q.type) for q in dns.queries] == [("mx.local.test", "A")]  # one lookup, no second
        with pytest.raises(NoAddress, match=r"ghost\.local\.test has no address"):
            guard.connect("ghost.local.test", port, timeout=2)
    assert _accepted(listener) == 1
