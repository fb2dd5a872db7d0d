"""The direct SMTP mailbox probe and the RDAP client against real servers on loopback: the MX
fallback, a server that is down, the dialogue (never DATA), and a registry that cannot answer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from devtools.local.dns_server import MX, A, DnsServer
from postline.relay.probes import ProbeServer
from postline.verification.domain import MailboxProbe, ProbeOutcome, Registration
from postline.verification.rdap import RdapRegistrations
from postline.verification.smtp_probe import RelayMailboxProber, SmtpMailboxProber
from tests.certs import TestCa
from tests.peers.egress import peers_allowed, strict
from tests.peers.probe_mx import MX_HOST, PolicyMx, policy_servers
from tests.peers.rdap_server import RdapServer


def test_the_probe_falls_back_to_the_next_mx_and_never_sends_data() -> None:
    strict = PolicyMx("known_users", frozenset({"ada"}))
    with policy_servers({"acme.test": strict}) as port, DnsServer() as dns:
        dns.add("acme.test", MX(10, "down.acme.test"), MX(20, "mx.acme.test"))
        dns.add("down.acme.test", A("127.0.0.9"))  # nothing listens there: connecting is refused at once
        dns.add("mx.acme.test", A(MX_HOST))
        prober = SmtpMailboxProber(peers_allowed(dns.address), port=port, helo_name="probe.postline.test", timeout=2)
        hosts = ("down.acme.test", "mx.acme.test")
        found = prober.probe("ada@acme.test", "acme.test", hosts, catch_all=None)
        assert (found.outcome, found.catch_all) == (ProbeOutcome.ACCEPTED, False)
        missing = prober.probe("bob@acme.test", "acme.test", hosts, catch_all=None)
        assert (missing.outcome, missing.catch_all) == (ProbeOutcome.REJECTED, False)
        known = prober.probe("ada@acme.test", "acme.test", ("mx.acme.test",), catch_all=False)
        assert known.outcome is ProbeOutcome.ACCEPTED
        asked = [address for address, _ in strict.rcpts]
        assert asked[0] == "ada@acme.test" and asked[1].endswith("@acme.test") and asked[1] != "ada@acme.test"
        assert asked[2:] == ["bob@acme.test", "ada@acme.test"]  # catch-all known: no random address
        assert strict.data_sessions == 0


def test_no_server_answering_is_unreachable() -> None:
    with DnsServer() as dns:
        dns.add("down.test", A("127.0.0.9"))
        prober = SmtpMailboxProber(peers_allowed(dns.address), port=2, helo_name="probe.postline.test", timeout=1)
        found = prober.probe("ada@down.test", "down.test", ("down.test", "gone.down.test"), catch_all=None)
        assert found.outcome is ProbeOutcome.UNREACHABLE
        assert "gone.down.test has no address" in found.detail


def test_an_mx_inside_is_never_probed_and_only_the_policys_words_come_back() -> None:
    """The outbound address policy as deployed (tests/adapters/test_outbound_addresses.py has it through
    wiring): no session with a host inside; every host refused is `not_run`, one refused among hosts
    that could not be reached is `unreachable`, and neither says anything a server said."""
    users = PolicyMx("known_users", frozenset({"ada"}))
    with policy_servers({"inside.test": users}) as port, DnsServer() as dns:
        dns.add("mx.inside.test", A(MX_HOST))
        prober = SmtpMailboxProber(strict(dns.address), port=port, helo_name="probe.postline.test", timeout=2)
        for _ in range(2):  # the second answer comes from the prober's address cache: the same refusal
            inside = prober.probe("ada@inside.test", "inside.test", ("mx.inside.test", "0x7f.1"), catch_all=None)
            assert (inside.outcome, inside.catch_all) == (ProbeOutcome.NOT_RUN, None)
            assert inside.detail == (
                "mx.inside.test was not probed: mx.inside.test resolves to a loopback address; outbound "
                "connections go to public addresses only; 0x7f.1 was not probed: 0x7f.1 is a loopback address; "
                "outbound connections go to public addresses only"
            )
        assert [q.name for q in dns.queries] == ["mx.inside.test"]  # once; a literal never
        mixed = prober.probe("ada@inside.test", "inside.test", ("mx.inside.test", "ghost.inside.test"), catch_all=None)
        assert mixed.outcome is ProbeOutcome.UNREACHABLE
        assert mixed.detail.endswith("public addresses only; ghost.inside.test has no address")
    assert users.rcpts == [] and users.data_sessions == 0


def test_the_cloud_adapter_asks_the_relays_probe_endpoint_which_runs_the_same_dialogue() -> None:
    """RelayMailboxProber (the validate Lambda) -> ProbeServer (the relay task) -> SmtpMailboxProber."""
    strict = PolicyMx("known_users", frozenset({"ada"}))
    with policy_servers({"acme.test": strict}) as port, DnsServer() as dns:
        dns.add("acme.test", MX(10, "mx.acme.test"))
        dns.add("mx.acme.test", A(MX_HOST))
        direct = SmtpMailboxProber(peers_allowed(dns.address), port=port, helo_name="probe.postline.test", timeout=2)
        server = ProbeServer(lambda: direct, host="127.0.0.1", port=0)
        server.start()
        try:
            relay = RelayMailboxProber(server.address)
            found = relay.probe("ada@acme.test", "acme.test", ("mx.acme.test",), catch_all=None)
            assert (found.outcome, found.catch_all) == (ProbeOutcome.ACCEPTED, False)
            assert found.detail.startswith("mx.acme.test answered RCPT TO with 250")
            missing = relay.probe("bob@acme.test", "acme.test", ("mx.acme.test",), catch_all=False)
            assert missing.outcome is ProbeOutcome.REJECTED and "550" in missing.detail
        finally:
            server.stop()
        assert [address for address, _ in strict.rcpts][-1] == "bob@acme.test"  # the relay asked the MX
        assert strict.data_sessions == 0


def test_a_relay_that_cannot_be_reached_or_is_busy_is_not_run_with_the_reason() -> None:
    import time

    started = time.monotonic()
    gone = RelayMailboxProber("127.0.0.1:1").probe("ada@acme.test", "acme.test", ("mx.acme.test",), catch_all=None)
    assert gone.outcome is ProbeOutcome.NOT_RUN and "probe endpoint (127.0.0.1:1) did not answer" in gone.detail
    assert time.monotonic() - started < 3  # refused at once; never the request's whole budget

    class Stuck:
        """A probe that is still talking to a slow MX while another request comes in."""

        def __init__(self) -> None:
            import threading

            self.entered, self.release = threading.Event(), threading.Event()

        def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> Any:
            self.entered.set()
            self.release.wait(10)
            return MailboxProbe(ProbeOutcome.TEMPORARY, detail="451 try later")

    import threading

    stuck = Stuck()
    server = ProbeServer(lambda: stuck, host="127.0.0.1", port=0, max_concurrent=1)
    server.start()
    try:
        relay = RelayMailboxProber(server.address)
        answers: list[MailboxProbe] = []
        first = threading.Thread(
            target=lambda: answers.append(relay.probe("a@b.test", "b.test", ("mx.b.test",), catch_all=None))
        )
        first.start()
        assert stuck.entered.wait(5)
        busy = relay.probe("c@b.test", "b.test", ("mx.b.test",), catch_all=None)
        assert busy.outcome is ProbeOutcome.NOT_RUN and "busy" in busy.detail
        stuck.release.set()
        first.join(10)
        assert [(a.outcome, a.detail) for a in answers] == [(ProbeOutcome.TEMPORARY, "451 try later")]
    finally:
        stuck.release.set()
        server.stop()


def test_rdap_registration_date_and_failures(tmp_path: object) -> None:
    ca = TestCa.create("RDAP CA")
    bundle = f"{tmp_path}/ca.pem"
    with open(bundle, "w") as out:
        out.write(ca.pem)
    registered = datetime(2015, 3, 1, tzinfo=UTC)
    with RdapServer(ca, {"acme.test": registered}) as rdap:
        client = RdapRegistrations(rdap.base_url, ca_bundle=bundle)
        assert client.registered_at("acme.test") == Registration(registered)
        assert client.registered_at("other.test") == Registration(None, "the registry answered 404 for other.test")
        rdap.failing.add("acme.test")
        assert client.registered_at("acme.test") == Registration(
            None, "the registry answered 503 for acme.test", unreachable=True
        )
        untrusted = RdapRegistrations(rdap.base_url).registered_at("other.test")
        assert untrusted.registered is None and untrusted.unreachable and "could not be reached" in str(untrusted.note)
    gone = RdapRegistrations(rdap.base_url, ca_bundle=bundle, timeout=1).registered_at("acme.test")
    assert gone.registered is None and gone.unreachable and "could not be reached" in str(gone.note)
    https_only = RdapRegistrations("http://127.0.0.1:1").registered_at("acme.test")
    assert https_only == Registration(None, "RDAP is asked over HTTPS only")  # configuration: not "down"
    assert RdapRegistrations("").registered_at("acme.test") == Registration(None, "no RDAP service is configured")


def test_a_server_that_never_answers_costs_at_most_the_budget() -> None:
    import socket
    import time

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # accepts connections (the kernel does) and never says a word
    try:
        with DnsServer() as dns:
            dns.add("mx1.slow.test", A("127.0.0.1"))
            dns.add("mx2.slow.test", A("127.0.0.1"))
            prober = SmtpMailboxProber(
                peers_allowed(dns.address),
                port=silent.getsockname()[1],
                helo_name="probe.postline.test",
                timeout=1.0,
                budget_seconds=1.5,
            )
            started = time.monotonic()
            found = prober.probe("ada@slow.test", "slow.test", ("mx1.slow.test", "mx2.slow.test"), catch_all=None)
            elapsed = time.monotonic() - started
        assert found.outcome is ProbeOutcome.UNREACHABLE
        assert elapsed < 2.5, elapsed
    finally:
        silent.close()
