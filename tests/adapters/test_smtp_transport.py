"""The outbound SMTP transport and its MX lookup, against a real DNS server and a real MX on loopback.

Nothing is mocked: MxResolver asks devtools/local/dns_server.py over UDP (and TCP), SmtpTransport
speaks SMTP to tests/peers/mx_server.py, and DKIM signatures are checked by dkimpy against the
key published in that DNS. The MX decides its replies by the recipient's local part (reject@ is
550, full@ 552, ...); each test's recipients carry a fresh +tag, so tests share one MX and tell
their mail apart.
"""

from __future__ import annotations

import base64
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import dkim
import dns.message
import dns.query
import dns.resolver
import pytest
from aiosmtpd.smtp import SMTP
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from devtools.local.dns_server import MX, NULL_MX, SERVFAIL, TXT, A, DnsServer, Query, Record, unanswered_nameserver
from postline.delivery.mime import build_mime
from postline.delivery.outcomes import BounceClass, BounceType, Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.transports.smtp import Relay, SmtpTransport
from postline.domains.domain import DomainStatus, SendingDomain, dkim_txt
from postline.sending.domain import Content, Message
from postline.shared.mx import MxResolver
from tests.peers.egress import peers_allowed, strict
from tests.peers.mx_server import HOST, MxServer, Received, _LoopbackController

DOMAIN = "example.test"  # the sending domain, and a recipient domain whose one MX is the test MX
SELECTOR = "s1"
HELO = "out.postline.test"
NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LOOPBACK = "127.0.0.1"
REFUSING = "127.0.0.2"  # loopback too, but nothing listens there: connecting is refused at once

ZONE: dict[str, list[Record]] = {
    DOMAIN: [MX(10, f"mx.{DOMAIN}")],
    f"mx.{DOMAIN}": [A(LOOPBACK)],
    f"backup.{DOMAIN}": [A(LOOPBACK)],
    f"down.{DOMAIN}": [A(REFUSING)],
    # preference, not order of publication, decides
    "ranked.test": [MX(30, "mx3.ranked.test"), MX(10, "mx1.ranked.test"), MX(20, "mx2.ranked.test")],
    "implicit.test": [A(LOOPBACK)],  # no MX: the domain itself is the MX
    "null.test": [NULL_MX],
    "servfail.test": [SERVFAIL],
    "two-mx.test": [MX(10, f"mx.{DOMAIN}"), MX(20, f"backup.{DOMAIN}")],
    "first-down.test": [MX(10, f"down.{DOMAIN}"), MX(20, f"mx.{DOMAIN}")],
    "first-nameless.test": [MX(10, f"ghost.{DOMAIN}"), MX(20, f"mx.{DOMAIN}")],  # ghost: NXDOMAIN
    "all-down.test": [MX(10, f"down.{DOMAIN}"), MX(20, f"ghost.{DOMAIN}")],
    "xn--bcher-kva.test": [MX(10, f"mx.{DOMAIN}")],  # bücher.test: DNS holds the A-label
}


@pytest.fixture(scope="module")
def dns_server() -> Iterator[DnsServer]:
    with DnsServer(ZONE) as server:
        yield server


@pytest.fixture(scope="module")
def mx() -> Iterator[MxServer]:
    """The recipient domains' MX, offering STARTTLS as MX servers do."""
    with MxServer(starttls=True) as server:
        yield server


@pytest.fixture(scope="module")
def relay_server() -> Iterator[MxServer]:
    """A relay without TLS, like the local runtime's mail sink."""
    with MxServer() as server:
        yield server


@pytest.fixture
def resolver(dns_server: DnsServer) -> MxResolver:
    return MxResolver(nameserver=dns_server.address, timeout=2.0)


@pytest.fixture
def transport(resolver: MxResolver, mx: MxServer, dns_server: DnsServer) -> SmtpTransport:
    """To the MX on 127.0.0.1: the outbound address policy told so (ALLOW_PRIVATE_OUTBOUND)."""
    egress = peers_allowed(dns_server.address)
    return SmtpTransport(relay=None, resolver=resolver, egress=egress, mx_port=mx.port, helo_name=HELO, timeout=5.0)


@pytest.fixture(scope="module")
def sending_domain(dns_server: DnsServer) -> SendingDomain:
    """example.test with a fresh RSA key, its public half published at s1._domainkey.example.test
    (a 410-byte TXT: two character-strings, as a real zone holds a 2048-bit key)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    dns_server.add(f"{SELECTOR}._domainkey.{DOMAIN}", TXT(dkim_txt(base64.b64encode(public_der).decode())))
    return SendingDomain(
        account_id="a",
        id="dom_fixture",
        created_at=datetime.now(UTC),
        domain=DOMAIN,
        status=DomainStatus.VERIFIED,
        dkim_selector=SELECTOR,
        dkim_private_key=pem,
    )


def address(local_part: str, domain: str = DOMAIN) -> str:
    """A recipient no other test uses; the MX still reads `local_part` for its reply."""
    return f"{local_part}+{uuid.uuid4().hex[:10]}@{domain}"


def make_parcel(recipient: str, *, domain: SendingDomain | None = None) -> Parcel:
    message = Message(
        id=f"msg_{uuid.uuid4().hex}",
        account_id="a",
        key_id="key_1",
        test=False,
        from_=f"Postline Tests <app@{DOMAIN}>",
        to=[recipient],
        subject="Your receipt",
        created_at=NOW,
    )
    text = "Thanks for your order.\nTotal: 12.00 EUR\n"
    html = "<p>Thanks for your order.</p><p>Total: 12.00 EUR</p>"
    mime = build_mime(
        message, Content(text=text, html=html), html=html, text=text, now=NOW,
        unsubscribe_url=f"https://{DOMAIN}/u/{message.id}",
    )  # fmt: skip
    return Parcel(
        message_id=message.id,
        sender=f"bounces@{DOMAIN}",
        recipient=recipient,
        mime=mime,
        domain=domain,
        test=False,
        send_outcomes=None,
        attempt=1,
    )


def deliver_one(transport: SmtpTransport, parcel: Parcel) -> Outcome:
    [outcome] = list(transport.deliver([parcel]))
    return outcome


def received_by(server: MxServer, recipient: str) -> list[Received]:
    return [message for message in server.messages if recipient in message.rcpt_tos]


def dkim_txt_from(dns_server: DnsServer) -> Callable[..., bytes | None]:
    """dkimpy's DNS lookup, asking the test DNS server through dnspython (TXT strings joined)."""

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        resolver = dns.resolver.Resolver(configure=False)
        host, _, port = dns_server.address.rpartition(":")
        resolver.nameservers, resolver.port, resolver.lifetime = [host], int(port), float(timeout)
        try:
            answer = resolver.resolve(name.decode(), "TXT")
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return None
        return b"".join(answer[0].strings)

    return lookup


# --- MX lookup ----------------------------------------------------------------------------------


def test_mx_hosts_come_best_preference_first(resolver: MxResolver) -> None:
    answer = resolver.lookup("ranked.test")

    assert answer.hosts == ["mx1.ranked.test", "mx2.ranked.test", "mx3.ranked.test"]
    assert answer.permanent_error is None
    assert answer.temporary_error is None


def test_a_domain_without_mx_is_its_own_mx(resolver: MxResolver) -> None:
    answer = resolver.lookup("implicit.test")

    assert answer.hosts == ["implicit.test"]
    assert resolver.address("implicit.test") == LOOPBACK


def test_a_domain_that_does_not_exist_has_a_permanent_error(resolver: MxResolver) -> None:
    answer = resolver.lookup("no-such-domain.test")

    assert answer.hosts == []
    assert answer.permanent_error is not None
    assert "NXDOMAIN" in answer.permanent_error
    assert answer.temporary_error is None


def test_a_null_mx_has_a_permanent_error(resolver: MxResolver) -> None:
    answer = resolver.lookup("null.test")

    assert answer.hosts == []
    assert answer.permanent_error is not None
    assert "null MX" in answer.permanent_error


def test_a_failing_nameserver_is_a_temporary_error(resolver: MxResolver) -> None:
    answer = resolver.lookup("servfail.test")

    assert answer.hosts == []
    assert answer.permanent_error is None
    assert answer.temporary_error is not None


def test_a_nameserver_that_does_not_answer_is_a_temporary_error() -> None:
    with unanswered_nameserver() as nameserver:
        answer = MxResolver(nameserver=nameserver, timeout=0.2).lookup(DOMAIN)

    assert answer.hosts == []
    assert answer.permanent_error is None
    assert answer.temporary_error is not None


def test_an_address_is_the_hosts_a_record_or_none(resolver: MxResolver) -> None:
    assert resolver.address(f"mx.{DOMAIN}") == LOOPBACK
    assert resolver.address(f"ghost.{DOMAIN}") is None
    assert resolver.address("null.test") is None  # exists, but has no A record


def test_the_dns_peer_answers_over_tcp_what_does_not_fit_in_udp(dns_server: DnsServer) -> None:
    text = "k=" + "A" * 1_998  # a 2,000-byte TXT: eight character-strings, too long for a 512-byte UDP reply
    name = f"long-{uuid.uuid4().hex[:8]}.test"
    dns_server.add(name, TXT(text))
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port = [LOOPBACK], dns_server.port
    resolver.use_edns(False)  # no EDNS: a UDP reply holds 512 bytes at most

    [record] = resolver.resolve(name, "TXT")

    assert [len(part) for part in record.strings] == [255] * 7 + [215]
    assert b"".join(record.strings).decode() == text
    asked = {query.protocol for query in dns_server.queries if query.name == name}
    assert "tcp" in asked  # truncated over UDP, then asked again over TCP
    reply = dns.query.tcp(dns.message.make_query(name, "TXT"), LOOPBACK, port=dns_server.port, timeout=2)
    assert b"".join(reply.answer[0][0].strings).decode() == text


# --- Delivery to the recipient domain's MX -------------------------------------------------------


def test_a_250_is_delivered_over_starttls(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("alice"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.smtp_response is not None
    assert outcome.smtp_response.startswith("250 2.0.0 OK: queued as ")
    assert outcome.data == {"mx": f"mx.{DOMAIN}"}
    [received] = received_by(mx, parcel.recipient)
    assert received.mail_from == parcel.sender
    assert received.rcpt_tos == [parcel.recipient]
    assert received.tls  # the MX offered STARTTLS, so the transport used it
    assert received.helo == HELO
    assert received.raw == parcel.mime  # unsigned: no domain to sign with


@pytest.mark.parametrize(
    ("local_part", "kind", "bounce_type", "code"),
    [
        ("tempfail", OutcomeKind.DEFERRED, None, "451 4.3.0"),
        ("reject", OutcomeKind.BOUNCED, BounceType.HARD, "550 5.1.1"),
        ("bounce", OutcomeKind.BOUNCED, BounceType.HARD, "550 5.1.1"),
        ("full", OutcomeKind.BOUNCED, BounceType.SOFT, "552 5.2.2"),
        ("spam", OutcomeKind.BOUNCED, BounceType.SOFT, "554 5.7.1"),  # refused at the end of DATA
    ],
)
def test_a_refusal_maps_to_its_outcome(
    transport: SmtpTransport,
    mx: MxServer,
    local_part: str,
    kind: OutcomeKind,
    bounce_type: BounceType | None,
    code: str,
) -> None:
    parcel = make_parcel(address(local_part))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is kind
    assert outcome.bounce_type is bounce_type
    assert outcome.smtp_response is not None
    assert outcome.smtp_response.startswith(code)
    assert received_by(mx, parcel.recipient) == []


def test_a_greylisted_recipient_is_deferred_then_delivered(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("tempfail-once"))

    first = deliver_one(transport, parcel)
    second = deliver_one(transport, parcel)

    assert first.kind is OutcomeKind.DEFERRED
    assert first.smtp_response is not None
    assert first.smtp_response.startswith("451 4.7.1")
    assert second.kind is OutcomeKind.DELIVERED
    assert len(received_by(mx, parcel.recipient)) == 1


def test_a_4xx_from_one_mx_goes_on_to_the_next(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("tempfail-once", "two-mx.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.data == {"mx": f"backup.{DOMAIN}"}
    replies = [reply.reply[:3] for reply in mx.rcpt_replies if reply.address == parcel.recipient]
    assert replies == ["451", "250"]


def test_when_every_mx_answers_4xx_the_recipient_is_deferred(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("tempfail", "two-mx.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DEFERRED
    assert len([reply for reply in mx.rcpt_replies if reply.address == parcel.recipient]) == 2


def test_a_5xx_from_the_first_mx_is_final(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("reject", "two-mx.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.BOUNCED
    assert len([reply for reply in mx.rcpt_replies if reply.address == parcel.recipient]) == 1


def test_an_unreachable_mx_is_skipped_for_the_next(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("carol", "first-down.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.data == {"mx": f"mx.{DOMAIN}"}
    assert len(received_by(mx, parcel.recipient)) == 1


def test_an_mx_host_without_an_address_is_skipped_for_the_next(
    transport: SmtpTransport, mx: MxServer, dns_server: DnsServer
) -> None:
    parcel = make_parcel(address("dave", "first-nameless.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.data == {"mx": f"mx.{DOMAIN}"}
    assert Query(f"ghost.{DOMAIN}", "A", "udp") in dns_server.queries


def test_when_no_mx_can_be_reached_the_recipient_is_deferred(transport: SmtpTransport) -> None:
    outcome = deliver_one(transport, make_parcel(address("erin", "all-down.test")))

    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason == "no mail server could be reached"


@pytest.fixture
def strict_transport(resolver: MxResolver, mx: MxServer, dns_server: DnsServer) -> SmtpTransport:
    """The outbound address policy as a deployed stack has it: MX hosts at public addresses only (every
    one of this zone's is inside)."""
    egress = strict(dns_server.address)
    return SmtpTransport(relay=None, resolver=resolver, egress=egress, mx_port=mx.port, helo_name=HELO, timeout=5.0)


@pytest.mark.parametrize(
    ("domain", "hosts"), [("two-mx.test", [f"mx.{DOMAIN}", f"backup.{DOMAIN}"]), ("implicit.test", ["implicit.test"])]
)
def test_a_domain_whose_every_mx_is_inside_bounces_as_unroutable_without_a_connection(
    strict_transport: SmtpTransport, mx: MxServer, domain: str, hosts: list[str]
) -> None:
    parcel = make_parcel(address("ivy", domain))

    outcome = deliver_one(strict_transport, parcel)

    assert (outcome.kind, outcome.bounce_type, outcome.bounce_class) == (
        OutcomeKind.BOUNCED,
        BounceType.HARD,
        BounceClass.HARD,
    )
    refusals = [
        f"{host} resolves to a loopback address; outbound connections go to public addresses only" for host in hosts
    ]
    assert outcome.reason == f"5.4.4 no MX host of {domain} may be connected to: {'; '.join(refusals)}"
    assert outcome.smtp_response is None  # no server was asked, so none is quoted
    assert [reply for reply in mx.rcpt_replies if reply.address == parcel.recipient] == []


def test_an_mx_inside_beside_hosts_without_an_address_defers(strict_transport: SmtpTransport) -> None:
    """Only the host inside is known to be unusable; the other may have an address tomorrow."""
    outcome = deliver_one(strict_transport, make_parcel(address("jill", "first-nameless.test")))

    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason == (
        f"no mail server could be reached (mx.{DOMAIN} resolves to a loopback address; "
        "outbound connections go to public addresses only)"
    )


def test_delivery_to_mx_hosts_needs_the_policy(resolver: MxResolver) -> None:
    with pytest.raises(ValueError, match="outbound address policy"):
        SmtpTransport(relay=None, resolver=resolver)
    SmtpTransport(relay=Relay(LOOPBACK, 25), resolver=resolver)  # a smart host is the operator's: not checked


def test_a_domain_without_mx_gets_mail_at_its_own_address(transport: SmtpTransport, mx: MxServer) -> None:
    parcel = make_parcel(address("frank", "implicit.test"))

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.data == {"mx": "implicit.test"}
    assert len(received_by(mx, parcel.recipient)) == 1


@pytest.mark.parametrize("domain", ["no-such-domain.test", "null.test"])
def test_a_domain_that_takes_no_mail_is_a_hard_bounce(transport: SmtpTransport, domain: str) -> None:
    outcome = deliver_one(transport, make_parcel(address("gina", domain)))

    assert outcome.kind is OutcomeKind.BOUNCED
    assert outcome.bounce_type is BounceType.HARD
    assert outcome.reason is not None
    assert domain in outcome.reason


def test_a_dns_failure_defers(mx: MxServer) -> None:
    with unanswered_nameserver() as nameserver:
        resolver = MxResolver(nameserver=nameserver, timeout=0.2)
        egress = peers_allowed(nameserver)
        transport = SmtpTransport(
            relay=None, resolver=resolver, egress=egress, mx_port=mx.port, helo_name=HELO, timeout=5.0
        )
        outcome = deliver_one(transport, make_parcel(address("hank")))

    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason is not None
    assert "DNS" in outcome.reason


def test_each_parcel_gets_its_own_outcome_in_order(transport: SmtpTransport) -> None:
    parcels = [make_parcel(address(local_part)) for local_part in ("ivan", "reject", "tempfail", "judy")]

    outcomes = list(transport.deliver(parcels))

    assert [outcome.kind for outcome in outcomes] == [
        OutcomeKind.DELIVERED,
        OutcomeKind.BOUNCED,
        OutcomeKind.DEFERRED,
        OutcomeKind.DELIVERED,
    ]


# --- Internationalized addresses -------------------------------------------------------------------


def test_an_internationalized_domain_is_sent_as_its_a_label(
    transport: SmtpTransport, mx: MxServer, dns_server: DnsServer
) -> None:
    tag = uuid.uuid4().hex[:10]
    parcel = make_parcel(f"anna+{tag}@bücher.test")

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    [received] = received_by(mx, f"anna+{tag}@xn--bcher-kva.test")
    assert not received.smtputf8  # an A-label is plain ASCII: no SMTPUTF8 needed
    assert Query("xn--bcher-kva.test", "MX", "udp") in dns_server.queries


def test_a_non_ascii_mailbox_bounces_where_smtputf8_is_not_offered(transport: SmtpTransport, mx: MxServer) -> None:
    parcels = [make_parcel(address("jörg")), make_parcel(address("kim"))]

    outcomes = list(transport.deliver(parcels))

    assert outcomes[0].kind is OutcomeKind.BOUNCED
    assert outcomes[0].bounce_type is BounceType.HARD
    assert outcomes[0].reason is not None
    assert "SMTPUTF8" in outcomes[0].reason
    assert outcomes[1].kind is OutcomeKind.DELIVERED  # the parcels after it still go out
    assert [reply.address for reply in mx.rcpt_replies if reply.address == parcels[0].recipient] == []


def test_a_non_ascii_mailbox_goes_out_over_smtputf8(resolver: MxResolver) -> None:
    parcel = make_parcel(address("jörg"))
    with MxServer(smtputf8=True) as server:
        transport = SmtpTransport(relay=Relay(LOOPBACK, server.port), resolver=resolver, timeout=5.0)
        outcome = deliver_one(transport, parcel)
        [received] = server.messages

    assert outcome.kind is OutcomeKind.DELIVERED
    assert received.rcpt_tos == [parcel.recipient]
    assert received.smtputf8


# --- DKIM ------------------------------------------------------------------------------------------


def test_a_signed_message_verifies_against_the_key_in_dns(
    transport: SmtpTransport, mx: MxServer, sending_domain: SendingDomain, dns_server: DnsServer
) -> None:
    parcel = make_parcel(address("kate"), domain=sending_domain)

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DELIVERED
    [received] = received_by(mx, parcel.recipient)
    assert received.raw.startswith(b"DKIM-Signature: ")
    assert received.raw.endswith(parcel.mime)
    signature = dkim.DKIM(received.raw)
    assert signature.verify(dnsfunc=dkim_txt_from(dns_server))
    assert signature.domain == DOMAIN.encode()
    assert signature.selector == SELECTOR.encode()
    signed = set(re.sub(rb"\s", b"", signature.signature_fields[b"h"]).split(b":"))
    assert {b"from", b"to", b"subject", b"date", b"message-id", b"list-unsubscribe"} <= signed
    assert Query(f"{SELECTOR}._domainkey.{DOMAIN}", "TXT", "udp") in dns_server.queries


@pytest.mark.parametrize(
    ("original", "tampered"),
    [
        (b"Subject: Your receipt", b"Subject: Your refund"),
        (b"Total: 12.00 EUR", b"Total: 99.00 EUR"),
    ],
    ids=["header", "body"],
)
def test_a_tampered_message_fails_verification(
    transport: SmtpTransport,
    mx: MxServer,
    sending_domain: SendingDomain,
    dns_server: DnsServer,
    original: bytes,
    tampered: bytes,
) -> None:
    parcel = make_parcel(address("liam"), domain=sending_domain)
    deliver_one(transport, parcel)
    [received] = received_by(mx, parcel.recipient)
    assert original in received.raw

    forged = received.raw.replace(original, tampered)

    assert dkim.verify(received.raw, dnsfunc=dkim_txt_from(dns_server))
    assert not dkim.verify(forged, dnsfunc=dkim_txt_from(dns_server))


def test_an_unusable_dkim_key_defers_and_sends_nothing(
    transport: SmtpTransport, mx: MxServer, sending_domain: SendingDomain
) -> None:
    broken = sending_domain.model_copy(update={"dkim_private_key": "-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END"})
    parcel = make_parcel(address("lena"), domain=broken)

    outcome = deliver_one(transport, parcel)

    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason is not None
    assert outcome.reason.startswith("DKIM signing failed")
    assert received_by(mx, parcel.recipient) == []


# --- Relay ------------------------------------------------------------------------------------------


class _DataAnswered250(SMTP):
    """aiosmtpd, except that DATA is answered 250 instead of 354 (RFC 5321 section 4.1.1.4): the
    client must not send the content, and nothing was accepted."""

    async def smtp_DATA(self, arg: str) -> None:
        self.event_handler.data_commands += 1
        await self.push("250 2.0.0 OK")


class _Data250Mx:
    """A real MX on 127.0.0.1 that takes MAIL and RCPT and answers DATA with 250."""

    def __init__(self) -> None:
        self.data_commands = 0
        self.messages: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # never reached: no 354
        self.messages.append(envelope.original_content or envelope.content)
        return "250 2.0.0 OK"


class _Data250Controller(_LoopbackController):
    def factory(self) -> SMTP:
        return _DataAnswered250(self.handler, **self.SMTP_kwargs)


@pytest.mark.parametrize("tls_optional", [False, True], ids=["delivery", "tls-rpt reports"])
def test_a_250_to_data_instead_of_354_is_a_protocol_failure_not_a_delivery(
    resolver: MxResolver, dns_server: DnsServer, tls_optional: bool
) -> None:
    """The message's content never went: deferred (retried later), never delivered."""
    peer = _Data250Mx()
    controller = _Data250Controller(peer, hostname=HOST, port=0, server_hostname="localhost")
    controller.start()
    try:
        transport = SmtpTransport(
            relay=None, resolver=resolver, egress=peers_allowed(dns_server.address), mx_port=controller.port,
            helo_name=HELO, timeout=5.0, tls_optional=tls_optional,
        )  # fmt: skip
        outcome = deliver_one(transport, make_parcel(address("alice")))
    finally:
        controller.stop()

    assert peer.data_commands == 1 and peer.messages == []
    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.reason == (
        f"SMTP protocol error: mx.{DOMAIN} answered DATA with 250 2.0.0 OK, not 354: the message was not sent"
    )
    assert outcome.smtp_response is None  # a reply that looks like a success is not shown as the server's verdict


def test_a_relay_gets_every_recipient_whatever_the_domain(
    resolver: MxResolver, relay_server: MxServer, dns_server: DnsServer
) -> None:
    relay = Relay.parse(f"{LOOPBACK}:{relay_server.port}")
    transport = SmtpTransport(relay=relay, resolver=resolver, helo_name=HELO, timeout=5.0)
    parcels = [make_parcel(address("mia", domain)) for domain in ("nowhere.invalid", "null.test", DOMAIN)]
    asked_before = len(dns_server.queries)

    outcomes = list(transport.deliver(parcels))

    assert [outcome.kind for outcome in outcomes] == [OutcomeKind.DELIVERED] * 3
    assert all(outcome.data == {"mx": LOOPBACK} for outcome in outcomes)
    for parcel in parcels:
        [received] = received_by(relay_server, parcel.recipient)
        assert not received.tls  # the relay offers no STARTTLS: plain SMTP
    assert len(dns_server.queries) == asked_before  # no MX lookups through a relay


def test_a_relays_refusal_is_the_outcome(resolver: MxResolver, relay_server: MxServer) -> None:
    transport = SmtpTransport(relay=Relay.parse(f"{LOOPBACK}:{relay_server.port}"), resolver=resolver, timeout=5.0)

    outcome = deliver_one(transport, make_parcel(address("reject", "nowhere.invalid")))

    assert outcome.kind is OutcomeKind.BOUNCED
    assert outcome.bounce_type is BounceType.HARD


def test_relay_parse() -> None:
    assert Relay.parse("smtp.example.test:587") == Relay("smtp.example.test", 587)
    assert Relay.parse(" 127.0.0.1:1025 ") == Relay(LOOPBACK, 1025)
    assert Relay.parse("") is None
    assert Relay.parse("   ") is None


def test_a_pool_address_leaves_from_the_private_address_that_carries_it(
    resolver: MxResolver, mx: MxServer, dns_server: DnsServer
) -> None:
    """On the relay host a pool's address is an Elastic IP, which no interface holds: the transport
    binds the private address carrying it (RELAY_SOURCE_ADDRESSES), and an unmapped one as it is."""
    bindings = {"203.0.113.7": "127.0.0.17"}
    transport = SmtpTransport(
        relay=None, resolver=resolver, egress=peers_allowed(dns_server.address), mx_port=mx.port, helo_name=HELO,
        timeout=5.0, local_address=lambda source: bindings.get(source, source),
    )  # fmt: skip
    mapped = replace(make_parcel(address("pool")), source_ip="203.0.113.7")
    unmapped = replace(make_parcel(address("pool")), source_ip="127.0.0.18")

    assert [outcome.kind for outcome in transport.deliver([mapped, unmapped])] == [OutcomeKind.DELIVERED] * 2

    [first], [second] = received_by(mx, mapped.recipient), received_by(mx, unmapped.recipient)
    assert (first.peer, second.peer) == ("127.0.0.17", "127.0.0.18")
