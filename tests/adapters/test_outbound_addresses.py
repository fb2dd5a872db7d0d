"""No connection for a customer to an address inside (issue 25, D1), on each outbound path as a
deployed stack wires it: the wiring roots' accessors (postline/wiring/) on the template's defaults
(AllowPrivateOutbound false), in moto, with DnsResolver, SmtpMxPort and an empty SmtpRelay as the relay task has them.

A customer controls a domain's DNS and points it at this machine (127.0.0.1, where the peers listen,
as 127.0.0.2 or 10.0.0.5 would be another host inside the VPC): its MX (the mailbox probe, live
delivery), `mta-sts.<domain>` (the MTA-STS policy fetch) and its TLS-RPT `rua`. No peer may be
offered a connection, and nothing a peer says may come back. Tests that mean to reach peers on
127.0.0.1 set the policy's one setting (ALLOW_PRIVATE_OUTBOUND) themselves: the other adapter tests.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from devtools.local.dns_server import MX, TXT, A, DnsServer
from postline import wiring
from postline.delivery.outcomes import BounceType, OutcomeKind
from postline.delivery.tls_sessions import NO_POLICY, TlsSession
from postline.relay.probes import ProbeServer
from postline.shared.clock import MovableClock
from postline.verification.domain import MailboxProbe, ProbeOutcome
from postline.verification.smtp_probe import RelayMailboxProber
from postline.wiring import delivery, tlsrpt, verification
from tests.adapters.test_smtp_transport import deliver_one, make_parcel
from tests.aws_stack import InProcessStack, in_process_stack
from tests.peers.mx_server import MxServer
from tests.peers.probe_mx import PolicyMx, policy_servers

INSIDE = "127.0.0.1"  # an address inside: loopback here, where the test's peers can listen
DAY_SECONDS = 86_400


class Doorbell:
    """A TCP port on 127.0.0.1 that takes every connection, counts it and hangs up at once."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind((INSIDE, 0))
        self._socket.listen(16)
        self.port: int = self._socket.getsockname()[1]
        self.rang = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.rang += 1
            connection.close()

    def close(self) -> None:
        self._socket.close()


@contextmanager
def _ports() -> Iterator[tuple[int, int]]:
    """A closed port (nothing listens: refused at once) and a silent one (the kernel accepts, nobody
    ever answers: what a filtered port looks like from outside)."""
    closed = socket.socket()
    closed.bind((INSIDE, 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    silent = socket.socket()
    silent.bind((INSIDE, 0))
    silent.listen(16)
    try:
        yield closed_port, silent.getsockname()[1]
    finally:
        silent.close()


@pytest.fixture(scope="module")
def doorbell() -> Iterator[Doorbell]:
    bell = Doorbell()
    yield bell
    bell.close()


@pytest.fixture(scope="module")
def dns_server(doorbell: Doorbell) -> Iterator[DnsServer]:
    with DnsServer() as server:
        server.add("inside.test", MX(10, "mx.inside.test"))
        server.add("mx.inside.test", A(INSIDE))
        # MTA-STS: a record, and the policy host inside.
        server.add("sts-inside.test", MX(10, "mx.inside.test"))
        server.add("_mta-sts.sts-inside.test", TXT("v=STSv1; id=1"))
        server.add("mta-sts.sts-inside.test", A(INSIDE))
        # TLS-RPT: reports to an https rua inside, by name and as an IP literal.
        named = f"https://reports.rua-inside.test:{doorbell.port}/"
        server.add("_smtp._tls.rua-inside.test", TXT(f"v=TLSRPTv1; rua={named}"))
        server.add("reports.rua-inside.test", A(INSIDE))
        server.add("_smtp._tls.rua-literal.test", TXT(f"v=TLSRPTv1; rua=https://{INSIDE}:{doorbell.port}/tlsrpt"))
        yield server


@pytest.fixture(scope="module")
def stack(dns_server: DnsServer) -> Iterator[InProcessStack]:
    """The template's defaults but for where DNS is asked and that live mail goes over SMTP to MX hosts."""
    parameters = {"OutboundTransport": "smtp", "SmtpRelay": "", "DnsResolver": dns_server.address}
    with in_process_stack(parameters) as stack:
        yield stack


@pytest.fixture
def mx_port(stack: InProcessStack, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], None]]:
    """Points SMTP_MX_PORT (the port of every MX, 25 on the internet) at a peer's, as SmtpMxPort would."""

    def point(port: int) -> None:
        monkeypatch.setenv("SMTP_MX_PORT", str(port))
        wiring.reset()

    yield point
    tlsrpt.tls_sessions().close()  # sessions counted (a connection made) are written while moto is there
    wiring.reset()


def _seen(probe: MailboxProbe) -> tuple[Any, ...]:
    return (probe.outcome, probe.catch_all, probe.detail)


def test_the_mailbox_probe_opens_no_session_with_an_mx_inside_and_its_answer_says_nothing_of_the_port(
    mx_port: Callable[[int], None],
) -> None:
    """An open SMTP server, a closed port and a silent one inside give one and the same answer, with
    nothing any server said: no EHLO/MAIL/RCPT session, no port scanner with read-back."""
    users = PolicyMx("known_users", frozenset({"ada"}))
    answers: dict[str, list[tuple[Any, ...]]] = {}
    with policy_servers({"inside.test": users}) as open_port, _ports() as (closed_port, silent_port):
        for name, port in (("open", open_port), ("closed", closed_port), ("silent", silent_port)):
            mx_port(port)
            direct = verification.direct_mailbox_prober()  # the relay task's (and "direct" mode's) prober
            answers[name] = [
                _seen(direct.probe(f"{user}@inside.test", "inside.test", ("mx.inside.test",), catch_all=None))
                for user in ("ada", "bob")
            ]
            server = ProbeServer(verification.direct_mailbox_prober, host=INSIDE, port=0)  # as the relay task serves it
            server.start()
            try:
                relayed = RelayMailboxProber(server.address).probe(
                    "ada@inside.test", "inside.test", ("mx.inside.test",), catch_all=None
                )
            finally:
                server.stop()
            answers[name].append(_seen(relayed))
    assert users.rcpts == [] and users.data_sessions == 0  # the server inside was never asked
    assert answers["open"] == answers["closed"] == answers["silent"], answers
    outcome, catch_all, detail = answers["open"][0]
    assert (outcome, catch_all) == (ProbeOutcome.NOT_RUN, None)
    assert detail == (
        "mx.inside.test was not probed: mx.inside.test resolves to a loopback address; "
        "outbound connections go to public addresses only"
    )


def test_live_delivery_to_an_mx_inside_bounces_without_a_connection(mx_port: Callable[[int], None]) -> None:
    """Every MX host of the domain refused: a permanent routing failure (5.4.4), as an MTA that will not
    deliver to an MX pointing at loopback or a private address answers; never `delivered`."""
    with MxServer() as mx:
        mx_port(mx.port)
        recipient = f"ada+{uuid.uuid4().hex[:8]}@inside.test"
        outcome = deliver_one(delivery.transports()["smtp"], make_parcel(recipient))
        assert (mx.messages, mx.rcpt_replies) == ([], [])
    assert (outcome.kind, outcome.bounce_type) == (OutcomeKind.BOUNCED, BounceType.HARD), outcome
    assert outcome.reason == (
        "5.4.4 no MX host of inside.test may be connected to: mx.inside.test resolves to a loopback "
        "address; outbound connections go to public addresses only"
    )


def test_the_mta_sts_policy_fetch_does_not_connect_inside(
    mx_port: Callable[[int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """mta-sts.sts-inside.test resolves inside: its policy is not fetched (HTTPS, port 443)."""
    attempts: list[tuple[Any, ...]] = []
    connect = socket.create_connection

    def recorded(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        attempts.append(address)
        return connect(address, *args, **kwargs)

    with MxServer() as mx:
        mx_port(mx.port)
        transport = delivery.transports()["smtp"]
        monkeypatch.setattr(socket, "create_connection", recorded)
        outcome = deliver_one(transport, make_parcel(f"ada+{uuid.uuid4().hex[:8]}@sts-inside.test"))
        received = mx.messages
    assert [address for address in attempts if address[1] == 443] == []  # no policy fetch
    assert (attempts, received) == ([], [])  # nor anything else: the MX is inside too
    assert outcome.kind is OutcomeKind.BOUNCED


def test_a_tls_report_is_not_posted_to_an_https_rua_inside(
    stack: InProcessStack, doorbell: Doorbell, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock, previous = MovableClock(), wiring.clock()
    wiring.set_clock(clock)
    try:
        clock.advance(400 * DAY_SECONDS)  # a day of this test's own
        day = clock.now().date()
        for domain in ("rua-inside.test", "rua-literal.test"):
            tlsrpt.tls_report_store().record(TlsSession(domain, NO_POLICY, None, f"mx.{domain}", "192.0.2.1"), day)
        clock.advance(DAY_SECONDS)  # the day is over
        summary = tlsrpt.tls_report_service().run(day=day)
        stored = {d: tlsrpt.tls_report_store().report(day, d) for d in ("rua-inside.test", "rua-literal.test")}
    finally:
        wiring.set_clock(previous)
    assert doorbell.rang == 0
    assert (summary.sent, summary.pending) == (0, 2)
    by_name, by_literal = stored["rua-inside.test"], stored["rua-literal.test"]
    assert by_name is not None and by_name.last_error == (
        f"https://reports.rua-inside.test:{doorbell.port}/: reports.rua-inside.test resolves to a loopback "
        "address; outbound connections go to public addresses only"
    )
    assert by_literal is not None and by_literal.last_error == (
        f"https://{INSIDE}:{doorbell.port}/tlsrpt: {INSIDE} is a loopback address; "
        "outbound connections go to public addresses only"
    )
