"""Live delivery end to end: the runtime finds each recipient's MX in real DNS and speaks SMTP to it.

One `python -m devtools.local` child for the module, with SmtpRelay empty (no local sink: every
live message goes by MX lookup), DnsResolver pointing at devtools/local/dns_server.py and SmtpMxPort
at tests/peers/mx_server.py (STARTTLS offered, replies by local part: tempfail-once@ 451 then
250, reject@ 550 5.1.1, full@ 552 5.2.2, tempfail@ always 451, anything else 250).

The sending domain's DKIM key (dev.json's sending_domain) is published in that DNS once the
runtime is up, and the signature on what the MX received is checked by dkimpy asking the same
DNS server through dnspython. Events are read from the child's emulator (the events table's
by_message index), as a dashboard would; message status from GET /v3/messages/{id}.

With verify_before_send, recipients' domains are checked against the same DNS server before the
hand-over (MX, null MX, or the domain's own A/AAAA).

Each test's recipients carry a fresh +tag, so tests share one MX and tell their mail apart. The
runtime's clock moves forward for retries; tests do not depend on each other's clock.
"""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from email import message_from_bytes
from email.message import Message as EmailMessage
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import dkim
import dns.resolver
import pytest
from boto3.dynamodb.types import TypeDeserializer

from devtools.local.dns_server import MX, NULL_MX, TXT, A, DnsServer, Query
from postline.delivery.outcomes import RETRY_DELAYS_SECONDS
from tests.conftest import RuntimeProcess, Spawn
from tests.e2e.support import Api, run_cli
from tests.peers.mx_server import MxServer, Received
from tests.support import eventually

pytestmark = pytest.mark.e2e

RECIPIENT_DOMAIN = "example.test"
MX_HOST = f"mx.{RECIPIENT_DOMAIN}"
SENDER = "Sender <news@postline.test>"
NO_ROUTE_DOMAIN = "noroute.test"
TLS_REPORTS = f"tls-reports@{RECIPIENT_DOMAIN}"
WAIT_SECONDS = 10.0
_deserialize = TypeDeserializer().deserialize


@dataclass
class Stack:
    child: RuntimeProcess
    api: Api
    dns: DnsServer
    mx: MxServer
    dynamodb: Any
    events_table: str

    def send(self, *to: str, **fields: Any) -> str:
        body = {
            "from": SENDER,
            "to": list(to),
            "subject": "Your order",
            "text": "Order 42 is on its way.",
            "html": "<p>Order <b>42</b> is on its way.</p>",
            "headers": {"X-Order": "42"},
            **fields,
        }
        response = self.api.post("/v3/messages", json=body)
        assert response.status_code == 202, response.text
        message_id: str = response.json()["id"]
        return message_id

    def drain(self) -> None:
        response = self.api.post("/_local/drain", json={"timeout": 30})
        assert response.status_code == 200, response.text

    def advance(self, seconds: float) -> datetime:
        response = self.api.post("/_local/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def message(self, message_id: str) -> dict[str, Any]:
        response = self.api.get(f"/v3/messages/{message_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def events(self, message_id: str) -> list[dict[str, Any]]:
        """Every event of the message, oldest first, from the events table's by_message index."""
        items: list[dict[str, Any]] = []
        query: dict[str, Any] = {
            "TableName": self.events_table,
            "IndexName": "by_message",
            "KeyConditionExpression": "message_id = :id",
            "ExpressionAttributeValues": {":id": {"S": message_id}},
        }
        while True:
            page = self.dynamodb.query(**query)
            items += [{name: _deserialize(value) for name, value in item.items()} for item in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return sorted(items, key=lambda event: str(event["timestamp"]))

    def wait_for_events(self, message_id: str, done: Callable[[list[str]], bool]) -> list[dict[str, Any]]:
        """The message's events once `done(types)` holds (the index is read, not the table)."""

        def arrived() -> list[dict[str, Any]]:
            events = self.events(message_id)
            types = [event["type"] for event in events]
            if not done(types):
                raise AssertionError(f"events so far: {types}")
            return events

        return eventually(arrived, WAIT_SECONDS, waiting_for=f"the events of {message_id}")

    def received_by(self, recipient: str) -> list[Received]:
        return [m for m in self.mx.messages if recipient in m.rcpt_tos]

    def rcpt_replies(self, recipient: str) -> list[str]:
        return [r.reply for r in self.mx.rcpt_replies if r.address == recipient]


@pytest.fixture(scope="module")
def stack(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    state_dir: Path = tmp_path_factory.mktemp("mx-delivery-state")
    with DnsServer() as dns_server, MxServer(starttls=True) as mx:
        flags = [
            *("--parameter", "SmtpRelay="),
            *("--parameter", f"DnsResolver={dns_server.address}"),
            *("--parameter", f"SmtpMxPort={mx.port}"),
            *("--parameter", "OutboundTransport=smtp"),
        ]
        with spawn(state_dir, *flags) as child:
            domain = child.dev["sending_domain"]
            dns_server.add(domain["dkim_record"], TXT(domain["dkim_txt"]))
            dns_server.add(RECIPIENT_DOMAIN, MX(10, MX_HOST))
            dns_server.add(MX_HOST, A("127.0.0.1"))
            dns_server.add("nomail.test", NULL_MX)
            dns_server.add(NO_ROUTE_DOMAIN, TXT("v=spf1 -all"))  # exists, but has no MX, A or AAAA
            # TLS-RPT (RFC 8460): where the relay reports its sessions with the recipient domain.
            dns_server.add(f"_smtp._tls.{RECIPIENT_DOMAIN}", TXT(f"v=TLSRPTv1; rua=mailto:{TLS_REPORTS}"))
            aws = child.dev["aws"]
            dynamodb = boto3.client(
                "dynamodb",
                endpoint_url=aws["endpoint_url"],
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
            )
            yield Stack(
                child, child.api(child.dev["keys"]["live"]), dns_server, mx, dynamodb, aws["env"]["EVENTS_TABLE"]
            )
            assert child.stop() == 0, "".join(child.output)


def recipient(local_part: str, domain: str = RECIPIENT_DOMAIN) -> str:
    """An address no other test uses; the MX still decides its reply by `local_part`."""
    return f"{local_part}+{uuid.uuid4().hex[:10]}@{domain}"


def dkim_lookup(dns_server: DnsServer) -> Callable[..., bytes | None]:
    """dkimpy's DNS lookup, asking our DNS server through dnspython (TXT character-strings joined)."""

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        resolver = dns.resolver.Resolver(configure=False)
        host, _, port = dns_server.address.rpartition(":")
        resolver.nameservers, resolver.port, resolver.lifetime = [host], int(port), float(timeout)
        try:
            answer = resolver.resolve(name.decode().rstrip("."), "TXT")
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return None
        return b"".join(answer[0].strings)

    return lookup


def parsed(received: Received) -> EmailMessage:
    return message_from_bytes(received.raw)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]


# --- 250: delivered ------------------------------------------------------------------------------


def test_a_live_send_reaches_the_recipients_mx_signed_and_is_delivered(stack: Stack) -> None:
    to = recipient("alice")
    message_id = stack.send(to)
    stack.drain()

    [received] = stack.received_by(to)
    assert received.mail_from == f"bounces+{message_id}@pm-bounces.postline.test"  # the domain's return path
    assert received.rcpt_tos == [to]
    assert received.tls, "the MX offered STARTTLS: the runtime must have used it"
    mail = parsed(received)
    assert mail["X-Order"] == "42"
    assert mail["From"] == SENDER
    assert mail["To"] == to
    assert mail["Subject"] == "Your order"

    domain = stack.child.dev["sending_domain"]
    [signature_header] = mail.get_all("DKIM-Signature") or []
    tags = dict(part.strip().split("=", 1) for part in signature_header.split(";") if "=" in part)
    assert tags["d"] == domain["domain"]
    assert tags["s"] == domain["dkim_selector"]
    assert dkim.verify(received.raw, dnsfunc=dkim_lookup(stack.dns))
    # ...and the signature covers the content: one altered byte breaks it.
    forged = received.raw.replace(b"Order 42", b"Order 43", 1)
    assert forged != received.raw
    assert not dkim.verify(forged, dnsfunc=dkim_lookup(stack.dns))

    # The runtime found the MX through our DNS (not the local sink, not the system's resolver).
    queries = stack.dns.queries
    assert any(q.name == RECIPIENT_DOMAIN and q.type == "MX" for q in queries)
    assert any(q.name == MX_HOST and q.type == "A" for q in queries)
    mailbox = stack.api.get("/_local/mailbox")
    assert mailbox.status_code == 200, mailbox.text
    assert not [item for item in mailbox.json()["items"] if to in str(item)]

    view = stack.message(message_id)
    assert view["status"] == "delivered"
    assert view["delivered_at"] is not None
    assert view["headers"] == {"X-Order": "42"}

    events = stack.wait_for_events(message_id, lambda types: "delivered" in types)
    assert [event["type"] for event in events] == ["queued", "sent", "delivered"]
    assert all(event["recipient"] == to for event in events)
    delivered = of_type(events, "delivered")[0]
    assert str(delivered["data"]["smtp_response"]).startswith("250")
    assert delivered["data"].get("test") is None  # a live message
    assert all(event["headers"] == {"X-Order": "42"} for event in events)


def test_each_recipient_of_one_message_gets_its_own_copy_and_outcome(stack: Stack) -> None:
    good, bad = recipient("carol"), recipient("reject")
    message_id = stack.send(good, bad)
    stack.drain()

    [received] = stack.received_by(good)
    assert received.rcpt_tos == [good]
    assert dkim.verify(received.raw, dnsfunc=dkim_lookup(stack.dns))
    assert stack.received_by(bad) == []

    events = stack.wait_for_events(message_id, lambda types: {"delivered", "bounced"} <= set(types))
    by_recipient = {r: [e["type"] for e in events if e["recipient"] == r] for r in (good, bad)}
    assert by_recipient == {good: ["queued", "sent", "delivered"], bad: ["queued", "sent", "bounced"]}
    assert stack.message(message_id)["status"] == "delivered"


# --- 4xx: delayed, retried on the clock ----------------------------------------------------------


def test_a_4xx_is_delayed_and_delivered_by_the_retry_once_due(stack: Stack) -> None:
    to = recipient("tempfail-once")
    message_id = stack.send(to)
    stack.drain()

    assert stack.received_by(to) == []
    assert [reply[:3] for reply in stack.rcpt_replies(to)] == ["451"]
    events = stack.wait_for_events(message_id, lambda types: "delayed" in types)
    assert [event["type"] for event in events] == ["queued", "delayed"]
    delayed = events[1]["data"]
    assert delayed["retry_count"] == 1
    assert str(delayed["smtp_response"]).startswith("451")
    retry_at = datetime.fromisoformat(delayed["next_retry_at"])
    assert (retry_at - datetime.fromisoformat(events[1]["timestamp"])).total_seconds() == pytest.approx(
        RETRY_DELAYS_SECONDS[0], abs=1
    )
    assert stack.message(message_id)["status"] == "deferred"

    # Not due yet: draining alone does not retry.
    stack.drain()
    assert stack.rcpt_replies(to) == [stack.rcpt_replies(to)[0]]

    stack.advance(RETRY_DELAYS_SECONDS[0] + 1)
    stack.drain()

    [received] = stack.received_by(to)
    assert parsed(received)["X-Order"] == "42"
    assert dkim.verify(received.raw, dnsfunc=dkim_lookup(stack.dns))
    assert [reply[:3] for reply in stack.rcpt_replies(to)] == ["451", "250"]
    assert stack.message(message_id)["status"] == "delivered"
    events = stack.wait_for_events(message_id, lambda types: "delivered" in types)
    assert [event["type"] for event in events] == ["queued", "delayed", "sent", "delivered"]

    # Nothing is left to retry: more time and another drain send nothing twice.
    stack.advance(RETRY_DELAYS_SECONDS[1] + 1)
    stack.drain()
    assert len(stack.received_by(to)) == 1
    assert len(stack.events(message_id)) == 4


def test_retries_run_out_after_the_last_delay_and_the_recipient_fails(stack: Stack) -> None:
    to = recipient("tempfail")
    message_id = stack.send(to)
    stack.drain()
    for delay in RETRY_DELAYS_SECONDS:
        stack.advance(delay + 1)
        stack.drain()

    attempts = len(RETRY_DELAYS_SECONDS) + 1
    assert [reply[:3] for reply in stack.rcpt_replies(to)] == ["451"] * attempts
    assert stack.received_by(to) == []
    events = stack.wait_for_events(message_id, lambda types: "failed" in types)
    assert [event["type"] for event in events] == ["queued", *["delayed"] * (attempts - 1), "failed"]
    assert [event["data"]["retry_count"] for event in of_type(events, "delayed")] == list(range(1, attempts))
    assert events[-1]["data"]["retry_count"] == attempts
    assert stack.message(message_id)["status"] == "failed"

    stack.advance(max(RETRY_DELAYS_SECONDS) + 1)
    stack.drain()
    assert len(stack.rcpt_replies(to)) == attempts  # no attempt after the last


# --- 5xx: bounced ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local_part", "code", "bounce_type"),
    [("reject", "550", "hard"), ("full", "552", "soft")],
)
def test_a_5xx_bounces_with_the_mxs_reply(stack: Stack, local_part: str, code: str, bounce_type: str) -> None:
    to = recipient(local_part)
    message_id = stack.send(to)
    stack.drain()

    assert stack.received_by(to) == []
    assert [reply[:3] for reply in stack.rcpt_replies(to)] == [code]
    events = stack.wait_for_events(message_id, lambda types: "bounced" in types)
    assert [event["type"] for event in events] == ["queued", "sent", "bounced"]
    bounced = events[2]["data"]
    assert str(bounced["smtp_response"]).startswith(code)
    assert bounced["bounce_type"] == bounced["bounce_class"] == bounce_type
    assert stack.message(message_id)["status"] == "bounced"

    # A bounce is final: no retry however long one waits.
    stack.advance(RETRY_DELAYS_SECONDS[0] + 1)
    stack.drain()
    assert len(stack.rcpt_replies(to)) == 1


def test_after_a_hard_bounce_the_address_is_suppressed_and_never_tried_again(stack: Stack) -> None:
    to = recipient("reject")
    first = stack.send(to)
    stack.drain()
    stack.wait_for_events(first, lambda types: "bounced" in types)

    second = stack.send(to)
    stack.drain()
    assert len(stack.rcpt_replies(to)) == 1, "a suppressed address must not reach the MX"
    events = stack.wait_for_events(second, lambda types: "rejected" in types)
    assert sorted(event["type"] for event in events) == ["queued", "rejected"]  # both at acceptance
    assert stack.message(second)["status"] == "rejected"


def test_a_domain_with_a_null_mx_bounces_without_a_connection(stack: Stack) -> None:
    to = recipient("dora", "nomail.test")
    message_id = stack.send(to)
    stack.drain()

    events = stack.wait_for_events(message_id, lambda types: "bounced" in types)
    assert [event["type"] for event in events] == ["queued", "sent", "bounced"]
    assert events[2]["data"]["bounce_type"] == events[2]["data"]["bounce_class"] == "hard"
    assert Query("nomail.test", "MX", "udp") in stack.dns.queries
    assert stack.rcpt_replies(to) == []


# --- verify_before_send ---------------------------------------------------------------------------


def _verifying(stack: Stack) -> Stack:
    """The stack sending with a new live key of the dev account that has verify_before_send on."""
    created = stack.api.post("/v3/keys", json={"name": "verifying", "env": "live", "verify_before_send": True})
    assert created.status_code == 201, created.text
    return replace(stack, api=stack.api.with_key(created.json()["key"]))


def test_verify_before_send_rejects_recipients_whose_domain_takes_no_mail_and_delivers_the_rest(
    stack: Stack,
) -> None:
    verifying = _verifying(stack)
    good, no_route, null_mx = recipient("vera"), recipient("vera", NO_ROUTE_DOMAIN), recipient("vera", "nomail.test")
    message_id = verifying.send(good, no_route, null_mx)
    stack.drain()

    [received] = stack.received_by(good)
    assert received.rcpt_tos == [good]
    assert stack.rcpt_replies(no_route) == stack.rcpt_replies(null_mx) == []  # nothing reached an MX
    # The verdict came from our DNS server: the MX, then the implicit MX (A, AAAA) of the bare domain.
    asked = {(q.name, q.type) for q in stack.dns.queries}
    assert {(NO_ROUTE_DOMAIN, "MX"), (NO_ROUTE_DOMAIN, "A"), (NO_ROUTE_DOMAIN, "AAAA")} <= asked

    events = stack.wait_for_events(message_id, lambda types: types.count("rejected") == 2 and "delivered" in types)
    by_recipient = {r: [e["type"] for e in events if e["recipient"] == r] for r in (good, no_route, null_mx)}
    assert by_recipient == {
        good: ["queued", "sent", "delivered"],
        no_route: ["queued", "rejected"],
        null_mx: ["queued", "rejected"],
    }
    for event in of_type(events, "rejected"):
        assert event["data"]["reason"] == "failed_verification"
        assert event["data"]["verification"]["result"] == "invalid"
        assert "test" not in event["data"] and "routed" not in event["data"]
    reasons = {e["recipient"]: e["data"]["verification"]["reason"] for e in of_type(events, "rejected")}
    assert "no MX and no A or AAAA" in reasons[no_route] and "null MX" in reasons[null_mx]
    assert stack.message(message_id)["status"] == "delivered"


def test_with_verify_before_send_a_message_with_no_good_recipient_is_rejected(stack: Stack) -> None:
    verifying = _verifying(stack)
    to = recipient("nobody", "missing.test")  # not in the zone at all: NXDOMAIN
    message_id = verifying.send(to)
    stack.drain()
    events = stack.wait_for_events(message_id, lambda types: "rejected" in types)
    assert [event["type"] for event in events] == ["queued", "rejected"]
    assert "does not exist" in events[1]["data"]["verification"]["reason"]
    assert stack.message(message_id)["status"] == "rejected"


# --- a job that overtakes its message ----------------------------------------------------------


def test_every_send_is_delivered_by_the_drain_that_follows_it(stack: Stack) -> None:
    """The API queues a job before it stores the message; an idle dispatcher often takes the job in
    between (about one send in three here). It must wait for the message, not hand the job back to
    the queue's 180 s visibility timeout (which drain rightly counts as due later)."""
    late: list[str] = []
    for _ in range(10):
        to = recipient("prompt")
        message_id = stack.send(to)
        stack.drain()
        if not stack.received_by(to):
            late.append(message_id)
    assert late == []


def test_the_relay_reports_a_days_tls_sessions_to_the_domains_rua_once(stack: Stack) -> None:
    """TLS-RPT (RFC 8460): the live sends of a day are counted per recipient domain; `postline tlsrpt
    run` puts the report job on the relay queue, and the relay mails the report to the rua published
    at _smtp._tls, by MX lookup like any delivery. Running it again sends nothing more."""
    mailbox = TLS_REPORTS  # published at _smtp._tls.example.test from the start (the relay caches it)
    now = stack.advance(0)
    stack.advance(86_400 - (now.hour * 3600 + now.minute * 60 + now.second) + 60)  # a day no test sent on
    day = stack.advance(0).date()
    for _ in range(2):
        stack.send(recipient("tls"))
    stack.drain()
    stack.advance(86_400)  # the day is over: now it is reported

    aws = stack.child.dev["aws"]
    operator = SimpleNamespace(
        env={
            **aws["env"],
            "AWS_ENDPOINT_URL": aws["endpoint_url"],
            "AWS_DEFAULT_REGION": aws["region"],
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
        }
    )
    # The reporting domain's DKIM key (RFC 8460 section 3): made and printed by the operator's command,
    # published in DNS, as the README's deploy section says.
    [record] = run_cli(operator, "tlsrpt", "dkim", "show")["records"]
    assert record["key"] == "active" and record["value"].startswith("v=DKIM1; k=rsa; s=tlsrpt; p=")
    stack.dns.add(record["name"], TXT(record["value"]))
    for _ in range(2):  # the second run finds the report sent
        queued = run_cli(operator, "tlsrpt", "run", "--day", day.isoformat())
        assert queued["kind"] == "tls_reports" and queued["day"] == day.isoformat()
        stack.drain()

    # The runtime's daily schedule may have reported earlier days (other tests' sends) meanwhile: this
    # day's report is the one that counts, and there is exactly one of it.
    reports = []
    for received in stack.mx.messages:
        if mailbox not in received.rcpt_tos:
            continue
        report_mail = parsed(received)
        assert report_mail["TLS-Report-Domain"] == RECIPIENT_DOMAIN
        assert dkim.verify(received.raw, dnsfunc=dkim_lookup(stack.dns), tlsrpt="strict")
        assert record["name"].endswith(f"._domainkey.{report_mail['TLS-Report-Submitter']}")
        assert report_mail.get_content_type() == "multipart/report"
        [attachment] = [part for part in report_mail.walk() if part.get_content_type() == "application/tlsrpt+gzip"]
        payload = attachment.get_payload(decode=True)
        assert isinstance(payload, bytes)
        reports.append(json.loads(gzip.decompress(payload)))
    [report] = [r for r in reports if r["date-range"]["start-datetime"].startswith(day.isoformat())]
    assert report["date-range"] == {
        "start-datetime": f"{day.isoformat()}T00:00:00Z",
        "end-datetime": f"{day.isoformat()}T23:59:59Z",
    }
    assert report["policies"] == [
        {
            "policy": {"policy-type": "no-policy-found", "policy-domain": RECIPIENT_DOMAIN},
            "summary": {"total-successful-session-count": 2, "total-failure-session-count": 0},
        }
    ]
