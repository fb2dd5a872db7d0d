"""MTA-STS enforced by the SMTP transport, against real servers on 127.0.0.1: the DNS server
(devtools/local/dns_server.py) publishing `_mta-sts` records, MX and addresses; an HTTPS policy
server with a certificate from a test CA; and two MX servers (tests/peers/mx_server.py), one whose
STARTTLS certificate that CA issued for its MX name, one with a self-signed certificate.

Recipient domains (each MX host resolves to 127.0.0.1; the transport's MX port picks the server):
enforce.test (enforce, lists its MX), testing.test (testing), unlisted.test (enforce, lists another
host), plain.test (no record), badpolicy.test (record, but the policy server's answer is a 404).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from devtools.local.dns_server import MX, TXT, A, DnsServer
from postline.delivery.mta_sts import FetchFailure, HttpsPolicyFetcher, MtaStsPolicies, PolicyError
from postline.delivery.outcomes import OutcomeKind
from postline.delivery.transports.smtp import SmtpTransport
from postline.shared.mx import MxResolver
from postline.shared.resolver import dns_resolver
from tests.adapters.test_smtp_transport import deliver_one, make_parcel, received_by
from tests.certs import TestCa, server_context
from tests.peers.egress import peers_allowed, strict
from tests.peers.https_server import HttpsServer
from tests.peers.mx_server import MxServer

LOOPBACK = "127.0.0.1"
POLICIES = {
    "enforce.test": "version: STSv1\r\nmode: enforce\r\nmx: mx.enforce.test\r\nmax_age: 86400\r\n",
    "testing.test": "version: STSv1\r\nmode: testing\r\nmx: mx.testing.test\r\nmax_age: 86400\r\n",
    "unlisted.test": "version: STSv1\r\nmode: enforce\r\nmx: *.elsewhere.test\r\nmax_age: 86400\r\n",
}
DOMAINS = [*POLICIES, "plain.test", "badpolicy.test"]


class PolicyServer:
    """https://mta-sts.<domain>/.well-known/mta-sts.txt for every domain of POLICIES; counts requests."""

    def __init__(self, ca: TestCa) -> None:
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host = (self.headers.get("Host") or "").removeprefix("mta-sts.")
                server.requests.append(host)
                body = POLICIES.get(host)
                if self.path != "/.well-known/mta-sts.txt" or body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self._https = HttpsServer(Handler, ca, "mta-sts", dns_names=tuple(f"mta-sts.{d}" for d in DOMAINS))
        self.port = self._https.port

    def __enter__(self) -> PolicyServer:
        self._https.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._https.__exit__(None, None, None)


@pytest.fixture(scope="module")
def ca() -> TestCa:
    return TestCa.create()


@pytest.fixture(scope="module")
def ca_file(ca: TestCa, tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("mta-sts") / "ca.pem"
    path.write_text(ca.pem)
    return str(path)


@pytest.fixture(scope="module")
def dns_server() -> Iterator[DnsServer]:
    with DnsServer() as server:
        for domain in DOMAINS:
            server.add(domain, MX(10, f"mx.{domain}"))
            server.add(f"mx.{domain}", A(LOOPBACK))
            server.add(f"mta-sts.{domain}", A(LOOPBACK))
            if domain != "plain.test":
                server.add(f"_mta-sts.{domain}", TXT("v=STSv1; id=1"))
        yield server


@pytest.fixture(scope="module")
def policy_server(ca: TestCa) -> Iterator[PolicyServer]:
    with PolicyServer(ca) as server:
        yield server


@pytest.fixture(scope="module")
def trusted_mx(ca: TestCa) -> Iterator[MxServer]:
    """STARTTLS with a certificate the test CA issued for every domain's MX name."""
    cert, key = ca.issue("mx", server=True, dns_names=tuple(f"mx.{d}" for d in DOMAINS))
    with MxServer(tls=server_context(cert, key)) as server:
        yield server


@pytest.fixture(scope="module")
def untrusted_mx() -> Iterator[MxServer]:
    """STARTTLS with a self-signed certificate for localhost: encrypted, but proves nothing."""
    with MxServer(starttls=True) as server:
        yield server


def _transport(dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, mx: MxServer) -> SmtpTransport:
    """Policy hosts and MX hosts on 127.0.0.1: the outbound address policy told so (ALLOW_PRIVATE_OUTBOUND)."""
    resolver = MxResolver(nameserver=dns_server.address, timeout=2.0)
    egress = peers_allowed(dns_server.address)
    fetch = HttpsPolicyFetcher(egress, port=policy_server.port, cafile=ca_file, timeout=5.0)
    policies = MtaStsPolicies(dns_resolver(dns_server.address, 2.0), fetch)
    return SmtpTransport(
        relay=None,
        resolver=resolver,
        egress=egress,
        mx_port=mx.port,
        helo_name="out.postline.test",
        timeout=5.0,
        mta_sts=policies,
        mx_cafile=ca_file,
    )


def _recipient(domain: str) -> str:
    return f"user+{uuid.uuid4().hex[:8]}@{domain}"


def test_enforce_delivers_to_a_listed_mx_with_a_trusted_certificate(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, trusted_mx: MxServer
) -> None:
    recipient = _recipient("enforce.test")
    outcome = deliver_one(_transport(dns_server, policy_server, ca_file, trusted_mx), make_parcel(recipient))
    assert outcome.kind is OutcomeKind.DELIVERED, outcome
    assert len(received_by(trusted_mx, recipient)) == 1


def test_enforce_refuses_an_mx_whose_certificate_is_not_trusted(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, untrusted_mx: MxServer
) -> None:
    recipient = _recipient("enforce.test")
    outcome = deliver_one(_transport(dns_server, policy_server, ca_file, untrusted_mx), make_parcel(recipient))
    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason is not None and "MTA-STS" in outcome.reason
    assert received_by(untrusted_mx, recipient) == []


def test_enforce_never_connects_to_an_mx_the_policy_does_not_list(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, trusted_mx: MxServer
) -> None:
    recipient = _recipient("unlisted.test")
    outcome = deliver_one(_transport(dns_server, policy_server, ca_file, trusted_mx), make_parcel(recipient))
    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason == "MTA-STS: no MX host of unlisted.test matches its enforced policy"
    assert [r for r in trusted_mx.rcpt_replies if r.address == recipient] == []


@pytest.mark.parametrize("domain", ["testing.test", "plain.test", "badpolicy.test"])
def test_without_an_enforced_policy_tls_stays_opportunistic(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, untrusted_mx: MxServer, domain: str
) -> None:
    """Testing mode, no record, or a policy that cannot be fetched: delivered as before MTA-STS."""
    recipient = _recipient(domain)
    outcome = deliver_one(_transport(dns_server, policy_server, ca_file, untrusted_mx), make_parcel(recipient))
    assert outcome.kind is OutcomeKind.DELIVERED, outcome
    assert len(received_by(untrusted_mx, recipient)) == 1


def test_a_policy_is_fetched_once_and_again_only_when_the_record_id_changes(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str, trusted_mx: MxServer
) -> None:
    resolver = dns_resolver(dns_server.address, 2.0)
    fetch = HttpsPolicyFetcher(peers_allowed(dns_server.address), port=policy_server.port, cafile=ca_file)
    policies = MtaStsPolicies(resolver, fetch, recheck_seconds=0)  # DNS asked every time
    before = policy_server.requests.count("enforce.test")
    for _ in range(3):
        policy = policies.policy_for("enforce.test")
        assert policy is not None and policy.enforced
    assert policy_server.requests.count("enforce.test") == before + 1
    dns_server.replace("_mta-sts.enforce.test", TXT("v=STSv1; id=2"))  # the domain published a new policy
    try:
        assert policies.policy_for("enforce.test") is not None
        assert policy_server.requests.count("enforce.test") == before + 2
    finally:
        dns_server.replace("_mta-sts.enforce.test", TXT("v=STSv1; id=1"))


def test_a_policy_host_inside_is_not_fetched_from(
    dns_server: DnsServer, policy_server: PolicyServer, ca_file: str
) -> None:
    """mta-sts.<domain> resolving inside (127.0.0.1 here) is a fetch error (sts-policy-fetch-error in the
    domain's TLS-RPT report) that sends the policy host nothing; mail then goes as without a policy."""
    fetch = HttpsPolicyFetcher(strict(dns_server.address), port=policy_server.port, cafile=ca_file, timeout=5.0)
    before = len(policy_server.requests)
    with pytest.raises(PolicyError) as refused:
        fetch("enforce.test")
    assert refused.value.failure is FetchFailure.FETCH_ERROR
    assert str(refused.value) == (
        "mta-sts.enforce.test resolves to a loopback address; outbound connections go to public addresses only"
    )
    lookup = MtaStsPolicies(dns_resolver(dns_server.address, 2.0), fetch).lookup("testing.test")
    assert (lookup.policy, lookup.failure) == (None, FetchFailure.FETCH_ERROR)
    assert len(policy_server.requests) == before
