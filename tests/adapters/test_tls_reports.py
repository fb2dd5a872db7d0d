"""TLS-RPT (RFC 8460) end to end at the adapters: the SMTP transport counts each MX session's TLS
outcome in the counters table (moto), and the daily run sends each domain-day's report to the rua its
`_smtp._tls` record names: a local HTTPS receiver (certificate from a test CA) and a mailbox on the
local mail sink, reached as the rua domain's MX through the same SMTP transport.

Real peers on 127.0.0.1: the DNS server (devtools/local/dns_server.py), the MTA-STS policy server and
MX servers of tests/adapters/test_mta_sts.py (a trusted certificate, a self-signed one, no STARTTLS).
Every test works on a day of its own (the clock moved on), so the days' domain indexes do not mix.
Mailed reports are checked with dkimpy's verifier, which reads the reporting domain's key record from
the DNS server (published as `postline tlsrpt dkim show` prints it).
"""

from __future__ import annotations

import gzip
import json
import ssl
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, cast

import dkim
import pytest

from devtools.local.dns_server import MX, TXT, A, DnsServer
from devtools.local.mail_sink import MailSink
from postline.delivery.mta_sts import HttpsPolicyFetcher, MtaStsPolicies
from postline.delivery.outcomes import OutcomeKind
from postline.delivery.transports.smtp import SmtpTransport
from postline.domains.dkim_keys import RsaDkimKeys
from postline.domains.dns import DnsRecordLookup
from postline.relay.worker import RelayWorker
from postline.shared.clock import MovableClock
from postline.shared.errors import Conflict, ValidationFailed
from postline.shared.mx import MxResolver
from postline.shared.resolver import dns_resolver
from postline.tlsrpt.keys import DynamoReportKeys
from postline.tlsrpt.ports import ReportNotDelivered
from postline.tlsrpt.senders import DnsReportRecords, HttpsReportPoster, MailReportSender
from postline.tlsrpt.service import (
    CachedReportRecords,
    ReporterIdentity,
    ReportKeyService,
    TlsReportService,
    TlsSessionRecorder,
)
from postline.tlsrpt.store import DynamoTlsReports
from postline.wiring import delivery
from tests.adapters.test_mta_sts import POLICIES, PolicyServer
from tests.adapters.test_smtp_transport import deliver_one, make_parcel
from tests.aws_stack import InProcessStack, in_process_stack
from tests.certs import TestCa, server_context
from tests.peers.egress import peers_allowed, strict
from tests.peers.https_server import HttpsServer
from tests.peers.mx_server import MxServer

LOOPBACK = "127.0.0.1"
IDENTITY = ReporterIdentity("Postline Tests", "tls-reports@reporter.test", "reporter.test")
MAILBOX = "tlsrpt@mailbox.test"
STRICT_MAILBOX = "tlsrpt@unlisted.test"
DAY_SECONDS = 86_400
_days_used = 0


@dataclass
class Posted:
    path: str
    content_type: str
    body: bytes


class ReportReceiver:
    """https://reports.test:<port>/... taking POSTs; answers `status` (a test may make it fail)."""

    def __init__(self, ca: TestCa) -> None:
        self.posted: list[Posted] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if receiver.status < 300:
                    receiver.posted.append(Posted(self.path, self.headers.get("Content-Type", ""), body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._https = HttpsServer(Handler, ca, "reports", dns_names=("reports.test",))
        self.port = self._https.port

    def __enter__(self) -> ReportReceiver:
        self._https.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._https.__exit__(None, None, None)

    def reports(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(gzip.decompress(post.body)) for post in self.posted if post.path == path]


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack


@pytest.fixture(scope="module")
def ca() -> TestCa:
    return TestCa.create()


@pytest.fixture(scope="module")
def ca_file(ca: TestCa, tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("tlsrpt") / "ca.pem"
    path.write_text(ca.pem)
    return str(path)


@pytest.fixture(scope="module")
def receiver(ca: TestCa) -> Iterator[ReportReceiver]:
    with ReportReceiver(ca) as server:
        yield server


@pytest.fixture(scope="module")
def sink() -> Iterator[MailSink]:
    sink = MailSink(port=0)
    sink.start()
    yield sink
    sink.stop()


@pytest.fixture(scope="module")
def dns_server(receiver: ReportReceiver) -> Iterator[DnsServer]:
    """Recipient domains (MX, MTA-STS, TLS-RPT records) and where their reports go."""
    https = f"https://reports.test:{receiver.port}"
    rua = {
        "enforce.test": f"v=TLSRPTv1; rua={https}/enforce",
        "testing.test": f"v=TLSRPTv1; rua=mailto:{MAILBOX}",
        "plain.test": f"v=TLSRPTv1;rua=mailto:{MAILBOX},{https}/plain",
        "badpolicy.test": f"v=TLSRPTv1; rua={https}/badpolicy",
        # unlisted.test publishes no TLS-RPT record: it is counted, and never reported
    }
    with DnsServer() as server:
        for domain in [*POLICIES, "plain.test", "badpolicy.test"]:
            server.add(domain, MX(10, f"mx.{domain}"))
            server.add(f"mx.{domain}", A(LOOPBACK))
            server.add(f"mta-sts.{domain}", A(LOOPBACK))
            if domain != "plain.test":
                server.add(f"_mta-sts.{domain}", TXT("v=STSv1; id=1"))
            if domain in rua:
                server.add(f"_smtp._tls.{domain}", TXT(rua[domain]))
        # strictrua.test's reports go to a mailbox of unlisted.test, whose MTA-STS policy (enforce)
        # lists no MX it has: mail of ours is never delivered there, its reports are (RFC 8460 5.3).
        server.add("strictrua.test", MX(10, "mx.strictrua.test"))
        server.add("_smtp._tls.strictrua.test", TXT(f"v=TLSRPTv1; rua=mailto:{STRICT_MAILBOX}"))
        server.add("reports.test", A(LOOPBACK))
        server.add("mailbox.test", MX(10, "mx.mailbox.test"))
        server.add("mx.mailbox.test", A(LOOPBACK))
        yield server


@pytest.fixture(scope="module")
def policy_server(ca: TestCa) -> Iterator[PolicyServer]:
    with PolicyServer(ca) as server:
        yield server


@pytest.fixture(scope="module")
def trusted_mx(ca: TestCa) -> Iterator[MxServer]:
    names = tuple(f"mx.{d}" for d in [*POLICIES, "plain.test", "badpolicy.test"])
    cert, key = ca.issue("mx", server=True, dns_names=names)
    with MxServer(tls=server_context(cert, key)) as server:
        yield server


@pytest.fixture(scope="module")
def untrusted_mx() -> Iterator[MxServer]:
    with MxServer(starttls=True) as server:
        yield server


@pytest.fixture(scope="module")
def plain_mx() -> Iterator[MxServer]:
    with MxServer() as server:  # offers no STARTTLS
        yield server


@pytest.fixture(scope="module")
def broken_tls_mx(ca: TestCa) -> Iterator[MxServer]:
    """Offers STARTTLS, and every handshake fails (TLS 1.1 at most: no client of ours goes below 1.2).
    A context of its own: mx_server.tls_context() is shared by every other STARTTLS server."""
    context = server_context(*ca.issue("broken-mx", server=True, dns_names=("mx.unlisted.test",)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the point: an MX with a TLS setup of the past
        context.minimum_version = ssl.TLSVersion.TLSv1
        context.maximum_version = ssl.TLSVersion.TLSv1_1
    with MxServer(tls=context) as server:
        yield server


@pytest.fixture(scope="module")
def report_keys(stack: InProcessStack, dns_server: DnsServer) -> ReportKeyService:
    """reporter.test's key, minted and published as the operator does (`postline tlsrpt dkim show`)."""
    service = _key_service(stack, dns_server, IDENTITY.submitter)
    active = service.published()["active"]
    dns_server.add(active.record_name, TXT(active.record_value))
    return service


def _key_service(stack: InProcessStack, dns_server: DnsServer, domain: str) -> ReportKeyService:
    store = DynamoReportKeys(
        stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"), stack.env["CONTENT_KEY_ID"]
    )
    return ReportKeyService(
        store=store,
        keys=RsaDkimKeys(),
        records=DnsRecordLookup(dns_server.address),
        clock=MovableClock(),
        domain=domain,
    )


def _dkim_verified(raw: bytes, dns_server: DnsServer) -> bool:
    """dkimpy's verdict, its key record asked of the DNS server; strict: only a key for TLS reports (s=tlsrpt)."""
    resolver = dns_resolver(dns_server.address, 2.0)

    def txt(name: bytes, timeout: int = 5) -> bytes | None:
        answer = resolver.resolve(name.decode().rstrip("."), "TXT")
        return b"".join(answer[0].strings)

    return bool(dkim.verify(raw, dnsfunc=txt, tlsrpt="strict"))


@pytest.fixture
def clock() -> MovableClock:
    """A day of this test's own, days after any other test's (the runtime's clock, moved on)."""
    global _days_used
    _days_used += 5  # a run looks 3 days back
    clock = MovableClock()
    clock.advance(_days_used * DAY_SECONDS)
    return clock


@pytest.fixture
def store(stack: InProcessStack) -> DynamoTlsReports:
    return DynamoTlsReports(stack.client("dynamodb"), stack.env["COUNTERS_TABLE"])


def _transport(
    dns_server: DnsServer,
    mx_port: int,
    *,
    ca_file: str,
    policy_port: int = 443,
    sessions: TlsSessionRecorder | None = None,
) -> SmtpTransport:
    resolver = MxResolver(nameserver=dns_server.address, timeout=2.0)
    egress = peers_allowed(dns_server.address)  # every peer is on 127.0.0.1 (ALLOW_PRIVATE_OUTBOUND)
    fetch = HttpsPolicyFetcher(egress, port=policy_port, cafile=ca_file, timeout=5.0)
    return SmtpTransport(
        relay=None,
        resolver=resolver,
        egress=egress,
        mx_port=mx_port,
        helo_name="out.postline.test",
        timeout=5.0,
        mta_sts=MtaStsPolicies(dns_resolver(dns_server.address, 2.0), fetch),
        mx_cafile=ca_file,
        tls_sessions=sessions,
    )


def _service(
    store: DynamoTlsReports,
    dns_server: DnsServer,
    sink: MailSink | MxServer,
    ca_file: str,
    clock: MovableClock,
    owner: str = "r1",
    *,
    keys: ReportKeyService,
    sessions: TlsSessionRecorder | None = None,
) -> TlsReportService:
    """The relay's run as tlsrpt_root.tls_report_service builds it: mail through a transport like
    tlsrpt_root.report_transport (no MTA-STS, TLS optional, sessions not counted) to `sink` as every MX."""
    resolver = MxResolver(nameserver=dns_server.address, timeout=2.0)
    egress = peers_allowed(dns_server.address)  # the receiver and the sink are on 127.0.0.1 (ALLOW_PRIVATE_OUTBOUND)
    mail = SmtpTransport(
        relay=None,
        resolver=resolver,
        egress=egress,
        mx_port=sink.port,
        helo_name="reporter.test",
        timeout=5.0,
        tls_optional=True,
    )
    return TlsReportService(
        store=store,
        records=CachedReportRecords(DnsReportRecords(DnsRecordLookup(dns_server.address))),
        senders={
            "https": HttpsReportPoster(egress, cafile=ca_file, timeout=5.0),
            "mailto": MailReportSender(mail, IDENTITY.contact, IDENTITY.submitter, keys.sign),
        },
        identity=IDENTITY,
        clock=clock,
        owner=owner,
        sessions=sessions,
    )


def _send(transport: SmtpTransport, domain: str) -> OutcomeKind:
    return deliver_one(transport, make_parcel(f"user+{uuid.uuid4().hex[:8]}@{domain}")).kind


def _mailed(sink: MailSink, domain: str) -> list[EmailMessage]:
    found = []
    for kept in sink.messages():
        message = cast(EmailMessage, BytesParser(policy=policy.default).parsebytes(kept["raw"].encode()))
        if message["TLS-Report-Domain"] == domain:
            found.append(message)
    return found


def _raw_mailed(sink: MailSink, domain: str) -> list[bytes]:
    """The messages as the sink received them (for DKIM, which signs the bytes)."""
    raws = [kept["raw"].encode() for kept in sink.messages()]
    return [raw for raw in raws if f"TLS-Report-Domain: {domain}\r\n".encode() in raw]


def _attached_report(message: EmailMessage) -> dict[str, Any]:
    [part] = [part for part in message.iter_attachments() if part.get_content_type() == "application/tlsrpt+gzip"]
    return cast(dict[str, Any], json.loads(gzip.decompress(part.get_payload(decode=True))))


def _range(day: date) -> dict[str, str]:
    return {"start-datetime": f"{day.isoformat()}T00:00:00Z", "end-datetime": f"{day.isoformat()}T23:59:59Z"}


def test_sessions_are_counted_and_each_domain_gets_one_report_per_day(
    stack: InProcessStack,
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    policy_server: PolicyServer,
    receiver: ReportReceiver,
    sink: MailSink,
    ca_file: str,
    trusted_mx: MxServer,
    untrusted_mx: MxServer,
    plain_mx: MxServer,
    report_keys: ReportKeyService,
) -> None:
    sessions = TlsSessionRecorder(store, clock, seconds=3600)  # written when flushed, below
    trusted = _transport(
        dns_server, trusted_mx.port, ca_file=ca_file, policy_port=policy_server.port, sessions=sessions
    )
    untrusted = _transport(
        dns_server, untrusted_mx.port, ca_file=ca_file, policy_port=policy_server.port, sessions=sessions
    )
    plain = _transport(dns_server, plain_mx.port, ca_file=ca_file, policy_port=policy_server.port, sessions=sessions)
    # enforce.test: 2 sessions over valid TLS, 1 refused (self-signed certificate: not delivered).
    assert [_send(trusted, "enforce.test") for _ in range(2)] == [OutcomeKind.DELIVERED] * 2
    assert _send(untrusted, "enforce.test") is OutcomeKind.DEFERRED
    # testing.test: checked and reported, delivered anyway.
    assert _send(trusted, "testing.test") is OutcomeKind.DELIVERED
    assert _send(untrusted, "testing.test") is OutcomeKind.DELIVERED
    # plain.test (no MTA-STS): one MX without STARTTLS, one with.
    assert _send(plain, "plain.test") is OutcomeKind.DELIVERED
    assert _send(untrusted, "plain.test") is OutcomeKind.DELIVERED
    # badpolicy.test: a record, but its policy is a 404.
    assert _send(trusted, "badpolicy.test") is OutcomeKind.DELIVERED
    # unlisted.test (enforce, lists another MX): no session is opened at all.
    assert _send(trusted, "unlisted.test") is OutcomeKind.DEFERRED

    day = clock.now().date()
    assert store.domains(day) == []  # counted in memory so far
    assert sessions.flush() == 8  # one ADD per distinct outcome (enforce.test's 2 successes: one write of 2)
    assert sorted(store.domains(day)) == ["badpolicy.test", "enforce.test", "plain.test", "testing.test"]
    assert sessions.flush() == 0

    clock.advance(DAY_SECONDS)  # the next day, when the schedule fires
    summary = _service(store, dns_server, sink, ca_file, clock, keys=report_keys).run(scheduled_at=clock.now())
    assert summary.days[0] == day.isoformat()
    errors = {d: (r.last_error if (r := store.report(day, d)) else None) for d in store.domains(day)}
    assert (summary.sent, summary.pending, summary.without_rua) == (4, 0, 0), errors

    enforce_sts = {
        "policy-type": "sts",
        "policy-domain": "enforce.test",
        "policy-string": ["version: STSv1", "mode: enforce", "mx: mx.enforce.test", "max_age: 86400"],
        "mx-host": ["mx.enforce.test"],
    }
    [posted] = [post for post in receiver.posted if post.path == "/enforce"]
    assert posted.content_type == "application/tlsrpt+gzip"
    assert json.loads(gzip.decompress(posted.body)) == {
        "organization-name": "Postline Tests",
        "date-range": _range(day),
        "contact-info": "tls-reports@reporter.test",
        "report-id": f"{day.isoformat()}T00:00:00Z_enforce.test@reporter.test",
        "policies": [
            {
                "policy": enforce_sts,
                "summary": {"total-successful-session-count": 2, "total-failure-session-count": 1},
                "failure-details": [
                    {
                        "result-type": "certificate-not-trusted",
                        "receiving-mx-hostname": "mx.enforce.test",
                        "receiving-ip": LOOPBACK,
                        "failed-session-count": 1,
                    }
                ],
            }
        ],
    }

    [testing_mail] = _mailed(sink, "testing.test")
    assert testing_mail.get_content_type() == "multipart/report"
    assert testing_mail.get_param("report-type") == "tlsrpt"
    assert testing_mail["Subject"] == (
        "Report Domain: testing.test Submitter: reporter.test"
        f" Report-ID: <{day.isoformat()}T00:00:00Z_testing.test@reporter.test>"
    )
    assert testing_mail["TLS-Report-Submitter"] == "reporter.test"
    assert testing_mail["From"] == IDENTITY.contact
    start = int(clock.now().timestamp()) // DAY_SECONDS * DAY_SECONDS - DAY_SECONDS
    [attachment] = testing_mail.iter_attachments()
    assert attachment.get_filename() == f"reporter.test!testing.test!{start}!{start + DAY_SECONDS - 1}.json.gz"
    # Signed by the reporting domain (RFC 8460 section 3), with a key for TLS reports only: dkimpy's
    # verifier finds the key in DNS; the report's own headers are covered (changing one breaks it).
    [raw] = _raw_mailed(sink, "testing.test")
    assert _dkim_verified(raw, dns_server)
    signature = str(testing_mail["DKIM-Signature"]).replace(" ", "").replace("\r\n", "").replace("\t", "")
    assert "d=reporter.test;" in signature and "l=" not in signature
    assert not _dkim_verified(
        raw.replace(b"TLS-Report-Domain: testing.test", b"TLS-Report-Domain: other.test"), dns_server
    )
    testing = _attached_report(testing_mail)
    [entry] = testing["policies"]
    assert entry["policy"]["policy-type"] == "sts" and entry["policy"]["policy-string"][1] == "mode: testing"
    assert entry["summary"] == {"total-successful-session-count": 1, "total-failure-session-count": 1}
    assert entry["failure-details"][0]["result-type"] == "certificate-not-trusted"

    # plain.test: both rua have the same report, byte for byte.
    [plain_mail] = _mailed(sink, "plain.test")
    [plain_posted] = receiver.reports("/plain")
    assert _attached_report(plain_mail) == plain_posted
    assert plain_posted["policies"] == [
        {
            "policy": {"policy-type": "no-policy-found", "policy-domain": "plain.test"},
            "summary": {"total-successful-session-count": 1, "total-failure-session-count": 1},
            "failure-details": [
                {
                    "result-type": "starttls-not-supported",
                    "receiving-mx-hostname": "mx.plain.test",
                    "receiving-ip": LOOPBACK,
                    "failed-session-count": 1,
                }
            ],
        }
    ]
    [bad] = receiver.reports("/badpolicy")
    assert bad["policies"][0]["policy"] == {"policy-type": "no-policy-found", "policy-domain": "badpolicy.test"}
    assert bad["policies"][0]["failure-details"][0]["result-type"] == "sts-policy-fetch-error"

    # Never two reports: the run again, and another runner, send nothing more.
    before = (len(receiver.posted), len(sink.messages()))
    again = _service(store, dns_server, sink, ca_file, clock, owner="r2", keys=report_keys).run(
        scheduled_at=clock.now()
    )
    assert (again.sent, again.done_before) == (0, 4)
    assert (len(receiver.posted), len(sink.messages())) == before


def test_a_rua_that_failed_is_tried_on_the_next_run_and_the_other_is_not_sent_again(
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    policy_server: PolicyServer,
    receiver: ReportReceiver,
    sink: MailSink,
    ca_file: str,
    untrusted_mx: MxServer,
    report_keys: ReportKeyService,
) -> None:
    sessions = TlsSessionRecorder(store, clock, seconds=3600)  # written by the report run (it flushes first)
    transport = _transport(
        dns_server, untrusted_mx.port, ca_file=ca_file, policy_port=policy_server.port, sessions=sessions
    )
    assert _send(transport, "plain.test") is OutcomeKind.DELIVERED
    day = clock.now().date()
    posts, mails = len(receiver.reports("/plain")), len(_mailed(sink, "plain.test"))
    clock.advance(DAY_SECONDS)
    receiver.status = 503
    try:
        first = _service(store, dns_server, sink, ca_file, clock, keys=report_keys, sessions=sessions).run(day=day)
    finally:
        receiver.status = 200
    assert (first.sent, first.pending) == (0, 1)
    assert len(_mailed(sink, "plain.test")) == mails + 1  # the mailbox took it
    stored = store.report(day, "plain.test")
    assert stored is not None and stored.attempts == 1 and "503" in stored.last_error

    clock.advance(DAY_SECONDS)
    second = _service(store, dns_server, sink, ca_file, clock, keys=report_keys).run(scheduled_at=clock.now())
    assert second.sent == 1
    assert len(receiver.reports("/plain")) == posts + 1
    assert len(_mailed(sink, "plain.test")) == mails + 1  # not mailed twice
    [mailed] = _mailed(sink, "plain.test")[-1:]
    assert _attached_report(mailed) == receiver.reports("/plain")[-1]  # the same report, not rebuilt


def test_a_report_held_by_another_runner_is_left_to_it(
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    receiver: ReportReceiver,
    sink: MailSink,
    ca_file: str,
    report_keys: ReportKeyService,
) -> None:
    from postline.delivery.tls_sessions import NO_POLICY, TlsSession

    day = clock.now().date()
    store.record(TlsSession("badpolicy.test", NO_POLICY, None, "mx.badpolicy.test", LOOPBACK), day)
    service = _service(store, dns_server, sink, ca_file, clock, keys=report_keys)
    posts = len(receiver.reports("/badpolicy"))
    assert service.run(day=day).days == []  # the day is not over: nothing is built or sent yet
    assert store.report(day, "badpolicy.test") is None
    clock.advance(DAY_SECONDS)
    assert service.run(day=day - timedelta(days=1)).sent == 0  # another day: nothing there
    # A runner (r9) built the report and holds its lease: this one leaves it alone until it runs out.
    from postline.tlsrpt.ports import StoredReport

    store.create_report(day, "badpolicy.test", StoredReport("id", b"x", ("https://reports.test/badpolicy",)))
    now = int(clock.now().timestamp())
    assert store.take_lease(day, "badpolicy.test", "r9", now=now, until=now + 600)
    assert service.run(day=day).busy == 1
    assert len(receiver.reports("/badpolicy")) == posts


def test_the_relay_worker_runs_a_report_job_from_its_queue(
    stack: InProcessStack,
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    receiver: ReportReceiver,
    sink: MailSink,
    ca_file: str,
    report_keys: ReportKeyService,
) -> None:
    from postline.delivery.tls_sessions import NO_POLICY, ResultType, TlsSession

    day = clock.now().date()
    store.record(TlsSession("enforce.test", NO_POLICY, ResultType.STS_POLICY_INVALID, "mx.enforce.test", LOOPBACK), day)
    sqs = stack.client("sqs")
    url = stack.env["RELAY_QUEUE_URL"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"kind": "tls_reports", "day": day.isoformat()}))
    service = _service(store, dns_server, sink, ca_file, clock, keys=report_keys)
    worker = RelayWorker(
        sqs,
        url,
        stack.env["RELAY_QUEUE_ARN"],
        lambda: delivery.dispatcher("relay-test", hand_over=False),
        reports=lambda: service,
        wait_seconds=0,
    )
    before = len(receiver.reports("/enforce"))
    clock.advance(DAY_SECONDS)  # the day is over
    assert worker.poll() == 1
    reports = receiver.reports("/enforce")
    assert len(reports) == before + 1
    assert reports[-1]["report-id"] == f"{day.isoformat()}T00:00:00Z_enforce.test@reporter.test"
    assert reports[-1]["policies"][0]["failure-details"][0]["result-type"] == "sts-policy-invalid"
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages") is None  # deleted


def test_a_report_of_a_domain_whose_mta_sts_would_refuse_our_mail_is_still_mailed_and_not_reported(
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    policy_server: PolicyServer,
    ca_file: str,
    broken_tls_mx: MxServer,
    report_keys: ReportKeyService,
) -> None:
    """RFC 8460 section 5.3: reports by mail go despite any TLS failure (in plain text if need be), and
    their sessions are in no report. unlisted.test's policy (enforce) lists none of its MX, and its MX's
    STARTTLS fails: a message of ours is never delivered there, strictrua.test's report is."""
    relay = _transport(
        dns_server,
        broken_tls_mx.port,
        ca_file=ca_file,
        policy_port=policy_server.port,
        sessions=TlsSessionRecorder(store, clock),
    )
    assert _send(relay, "unlisted.test") is OutcomeKind.DEFERRED
    from postline.delivery.tls_sessions import NO_POLICY, TlsSession

    day = clock.now().date()
    store.record(TlsSession("strictrua.test", NO_POLICY, None, "mx.strictrua.test", LOOPBACK), day)
    clock.advance(DAY_SECONDS)
    before = len(broken_tls_mx.messages)
    summary = _service(store, dns_server, broken_tls_mx, ca_file, clock, keys=report_keys).run(day=day)
    assert (summary.sent, summary.pending) == (1, 0)
    [received] = broken_tls_mx.messages[before:]
    assert received.rcpt_tos == [STRICT_MAILBOX]
    assert received.tls is False  # STARTTLS failed; the report went in plain text on the same MX
    assert _dkim_verified(received.raw, dns_server)
    assert store.domains(clock.now().date()) == []  # the report's session is counted nowhere


def test_without_a_key_mailed_reports_wait_and_https_ones_go(
    stack: InProcessStack,
    store: DynamoTlsReports,
    clock: MovableClock,
    dns_server: DnsServer,
    receiver: ReportReceiver,
    sink: MailSink,
    ca_file: str,
) -> None:
    """The relay never mints the key (the operator's command does, and publishes it): until then a
    mailed report is pending, retried by the next runs, and never sent unsigned."""
    from postline.delivery.tls_sessions import NO_POLICY, TlsSession

    unminted = _key_service(stack, dns_server, "unminted.test")
    day = clock.now().date()
    store.record(TlsSession("plain.test", NO_POLICY, None, "mx.plain.test", LOOPBACK), day)
    clock.advance(DAY_SECONDS)
    mails, posts = len(_mailed(sink, "plain.test")), len(receiver.reports("/plain"))
    summary = _service(store, dns_server, sink, ca_file, clock, keys=unminted).run(day=day)
    assert (summary.sent, summary.pending) == (0, 1)
    stored = store.report(day, "plain.test")
    assert stored is not None and "no DKIM key" in stored.last_error
    assert len(_mailed(sink, "plain.test")) == mails
    assert len(receiver.reports("/plain")) == posts + 1


def test_the_report_key_rotates_once_dns_serves_the_next_one(stack: InProcessStack, dns_server: DnsServer) -> None:
    keys = _key_service(stack, dns_server, "rotating.test")
    first = keys.published()["active"]
    assert first.record_name == f"{first.selector}._domainkey.rotating.test"
    assert first.record_value == f"v=DKIM1; k=rsa; s=tlsrpt; p={first.public_key}"
    assert keys.published() == {"active": first}  # minted once
    dns_server.add(first.record_name, TXT(first.record_value))
    message = b"From: tls-reports@rotating.test\r\nTo: a@b.test\r\nSubject: r\r\n\r\nbody\r\n"
    assert _dkim_verified(keys.sign(message), dns_server)

    staged = keys.rotate()
    assert staged.selector != first.selector
    assert keys.published() == {"active": first, "next": staged}
    with pytest.raises(Conflict, match="does not serve the staged key"):
        keys.promote()  # not published yet: the first key keeps signing
    assert f"s={first.selector};".encode() in keys.sign(message).replace(b" ", b"")

    dns_server.add(staged.record_name, TXT(staged.record_value))
    assert keys.promote() == staged
    assert keys.published() == {"active": staged}
    signed = keys.sign(message)
    assert f"s={staged.selector};".encode() in signed.replace(b" ", b"")
    assert _dkim_verified(signed, dns_server)
    with pytest.raises(ValidationFailed, match="no report key is staged"):
        keys.promote()


def test_a_report_is_not_posted_to_an_https_rua_inside(
    dns_server: DnsServer, receiver: ReportReceiver, ca_file: str, clock: MovableClock
) -> None:
    """The outbound address policy as deployed: reports.test resolves to 127.0.0.1, so nothing is sent
    (tests/adapters/test_outbound_addresses.py has the relay's whole run)."""
    poster = HttpsReportPoster(strict(dns_server.address), cafile=ca_file, timeout=5.0)
    before = len(receiver.posted)
    for uri, refusal in (
        (f"https://reports.test:{receiver.port}/enforce", "reports.test resolves to a loopback"),
        (f"https://127.0.0.1:{receiver.port}/enforce", "127.0.0.1 is a loopback"),
        (f"https://[::ffff:127.0.0.1]:{receiver.port}/enforce", "::ffff:127.0.0.1 is a loopback (IPv4 inside IPv6)"),
    ):
        with pytest.raises(ReportNotDelivered) as refused:
            poster.send(uri, domain="enforce.test", day=clock.now().date(), report_id="r", body=b"{}")
        assert str(refused.value) == f"{refusal} address; outbound connections go to public addresses only"
    assert len(receiver.posted) == before
