"""SMTP submission end to end on the embedded runtime, with clients nobody here wrote: the standard
library's smtplib and aiosmtplib. STARTTLS trusts the runtime's generated certificate; messages go
through the same send service as POST /v3/messages, to the local mail sink (live, verified domain)
or the simulator (test keys), with their events and per-message webhooks (Ed25519, PyNaCl).
"""

from __future__ import annotations

import asyncio
import base64
import json
import smtplib
import socket
import ssl
import threading
import time
from email import policy
from email.message import EmailMessage
from typing import Any, cast

import aiosmtplib
import pytest

from devtools.local.runtime import Runtime
from devtools.local.smtp_tls import KEY_FILE, server_context
from postline import wiring
from postline.accounts.domain import AccountStatus, Plan
from postline.deployment import SMTP_SETTINGS
from postline.keys.access import Environment, Scope
from postline.sending.store import BODY_SK
from postline.sending.vault import INLINE_LIMIT
from postline.shared.dynamo import from_attrs, key
from postline.smtp import domain as limits
from postline.smtp.server import SubmissionServer
from postline.smtp.service import Login, SubmissionService
from postline.wiring import events as events_root
from postline.wiring import operator
from postline.wiring import sending as sending_root
from postline.wiring import smtp as smtp_root
from tests.e2e.sending_support import (
    Sender,
    drain,
    events_of,
    has_types,
    mail_for,
    parse,
    recipient,
    simulator,
    types_of,
    unverified_sender,
    verified_sender,
)
from tests.e2e.support import make_account, make_key
from tests.e2e.test_webhook_delivery import ed25519_valid
from tests.peers.webhook_receiver import Receiver
from tests.support import eventually

pytestmark = pytest.mark.e2e
MB = 1024 * 1024


@pytest.fixture
def sender(runtime: Runtime) -> Sender:
    return verified_sender(runtime)


def address(runtime: Runtime) -> tuple[str, int]:
    host, port = runtime.smtp.rsplit(":", 1)
    return host, int(port)


def tls(runtime: Runtime) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(runtime.smtp_certificate))


def client(runtime: Runtime, *, starttls: bool = True, source: str | None = None) -> smtplib.SMTP:
    host, port = address(runtime)
    smtp = smtplib.SMTP(host, port, timeout=60, source_address=(source, 0) if source else None)
    if starttls:
        smtp.starttls(context=tls(runtime))
    return smtp


def mail(sender: str, *to: str, bcc: str | None = None, **headers: str | list[str]) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to)
    if bcc:
        message["Bcc"] = bcc
    message["Subject"] = "Over SMTP"
    for name, value in headers.items():
        for one in value if isinstance(value, list) else [value]:
            message[name.replace("_", "-")] = one
    message.set_content("Hello over SMTP.\n")
    return message


def wire(message: EmailMessage) -> bytes:
    """The message as it travels: CRLF line ends (smtplib sends bytes as given)."""
    return message.as_bytes(policy=policy.SMTP)


def queued_id(reply: tuple[int, bytes]) -> str:
    code, text = reply
    assert code == 250, reply
    prefix = b"2.0.0 Ok: queued as "
    assert text.startswith(prefix), text
    return text[len(prefix) :].decode()


def submit(smtp: smtplib.SMTP, message: EmailMessage, recipients: list[str]) -> str:
    """One message through MAIL, RCPT and DATA; the message id from the 250 reply."""
    smtp.mail(str(message["From"]).split("<")[-1].rstrip(">"))
    for rcpt in recipients:
        code, text = smtp.rcpt(rcpt)
        assert code == 250, text
    return queued_id(smtp.data(wire(message)))


# -- STARTTLS, AUTH and a message delivered -----------------------------------------------------


def test_starttls_auth_plain_delivers_through_the_send_service_without_bcc_or_svc_headers(
    runtime: Runtime, sender: Sender
) -> None:
    to, hidden = recipient("to"), recipient("bcc")
    message = mail(
        sender.address,
        to,
        bcc=hidden,
        X_Svc_Tag=["welcome", "smtp"],
        X_Svc_Variables=json.dumps({"order": "A-1"}),
        X_Campaign="spring",
    )
    with client(runtime) as smtp:
        assert "STARTTLS" not in smtp.esmtp_features or smtp.sock is not None
        smtp.ehlo()
        assert smtp.has_extn("size") and int(smtp.esmtp_features["size"]) == 20 * MB
        smtp.login("api", sender.account.live_key)  # smtplib picks PLAIN among what EHLO offers
        message_id = submit(smtp, message, [to, hidden])
    drain(runtime)
    copies = mail_for(runtime, message_id)
    assert sorted(copy["rcpt_tos"][0] for copy in copies) == sorted([to, hidden])
    for copy in copies:
        delivered = parse(copy)
        assert "Bcc" not in delivered and hidden not in copy["raw"].split("\r\n\r\n", 1)[0]
        assert not [name for name in delivered if name.lower().startswith("x-svc-")]
        assert delivered["X-Campaign"] == "spring"
        assert delivered["DKIM-Signature"] and delivered["Message-ID"] and delivered["Date"]
        assert delivered.get_content().strip() == "Hello over SMTP."
    events = events_of(message_id, until=has_types("queued", "queued", "delivered", "delivered"))
    queued = [event for event in events if event.type.value == "queued"]
    assert {tuple(event.tags) for event in queued} == {("welcome", "smtp")}
    assert all(event.metadata == {"order": "A-1"} for event in queued)
    view = sender.live.get(f"/v3/messages/{message_id}").json()
    assert view["headers"] == {"X-Campaign": "spring"} and view["tags"] == ["welcome", "smtp"]


def test_aiosmtplib_auth_login_with_starttls(runtime: Runtime, sender: Sender) -> None:
    to = recipient()

    async def run() -> tuple[int, str]:
        host, port = address(runtime)
        smtp = aiosmtplib.SMTP(hostname=host, port=port, start_tls=True, tls_context=tls(runtime))
        async with smtp:
            await smtp.ehlo()  # aiosmtplib does not greet again after STARTTLS by itself
            await smtp.auth_login("api", sender.account.live_key)
            _, reply = await smtp.send_message(mail(sender.address, to))
            return reply[to] if isinstance(reply, dict) and to in reply else (250, str(reply))

    code, text = asyncio.run(run())
    assert code == 250 and "queued as msg_" in text, text


def test_a_test_key_reaches_the_simulator(runtime: Runtime, sender: Sender) -> None:
    to = simulator("bounce")
    with client(runtime) as smtp:
        smtp.login("api", sender.account.test_key)
        message_id = submit(smtp, mail(sender.address, to), [to])
    drain(runtime)
    events = events_of(message_id, until=has_types("queued", "bounced"))
    assert all(event.data.get("test") is True for event in events)
    assert mail_for(runtime, message_id) == []


def test_suppressions_and_the_sending_domain_are_checked_as_for_an_api_send(runtime: Runtime, sender: Sender) -> None:
    """Same service, same screening: accepted, then rejected with the API's reasons, nothing delivered."""
    gone = recipient("gone")
    added = sender.live.post("/v3/suppressions", json={"type": "bounces", "email": gone, "reason": "mailbox removed"})
    assert added.status_code == 201, added.text
    unverified = unverified_sender(runtime)
    to = recipient()
    with client(runtime) as smtp:
        smtp.login("api", sender.account.live_key)
        suppressed = submit(smtp, mail(sender.address, gone), [gone])
    with client(runtime) as smtp:
        smtp.login("api", unverified.account.live_key)
        from_unverified = submit(smtp, mail(unverified.address, to), [to])
    for message_id, reason in (
        (suppressed, "all_recipients_suppressed"),
        (from_unverified, "domain_not_verified"),
    ):
        found = events_of(message_id, until=has_types("queued", "rejected"))
        assert types_of(found) == ["queued", "rejected"] and found[-1].data == {"reason": reason}, message_id
    drain(runtime)
    assert mail_for(runtime, suppressed) == [] and mail_for(runtime, from_unverified) == []


# -- keys the API would refuse ------------------------------------------------------------------


def test_read_only_and_revoked_keys_are_refused_with_a_reason(runtime: Runtime, sender: Sender) -> None:
    read_only = make_key(sender.id, scope=Scope.READ_ONLY)
    with client(runtime) as smtp, pytest.raises(smtplib.SMTPAuthenticationError) as refused:
        smtp.login("api", read_only)
    assert refused.value.smtp_code == 535 and b"read_only" in refused.value.smtp_error

    revoked = operator.operator_service().create_key(sender.id, name="gone", env=Environment.LIVE)
    with client(runtime) as smtp:
        smtp.login("api", revoked.key)
    assert sender.live.delete(f"/v3/keys/{revoked.id}").status_code in (200, 204)
    with client(runtime) as smtp, pytest.raises(smtplib.SMTPAuthenticationError) as refused:
        smtp.login("api", revoked.key)
    assert refused.value.smtp_code == 535


def test_an_account_suspended_mid_session_sends_nothing_more(runtime: Runtime) -> None:
    account = make_account()
    to = simulator("delivered")
    with client(runtime) as smtp:
        smtp.login("api", account.test_key)
        assert submit(smtp, mail("hello@example.com", to), [to]).startswith("msg_")
        operator.operator_service().set_status(account.id, AccountStatus.SUSPENDED)
        smtp.mail("hello@example.com")
        smtp.rcpt(to)
        code, text = smtp.data(wire(mail("hello@example.com", to)))
        assert (code, text[:5]) == (550, b"5.7.1") and b"suspended" in text


def test_the_operators_sending_pause_holds_live_submissions_only(runtime: Runtime) -> None:
    owner = unverified_sender(runtime)  # live sends are rejected before send: nothing is delivered
    to = simulator("delivered")
    operator.operator_service().set_sending_paused(owner.id, True)
    try:
        with client(runtime) as smtp:
            smtp.login("api", owner.account.live_key)
            smtp.mail(owner.address)
            smtp.rcpt(to)
            code, text = smtp.data(wire(mail(owner.address, to)))
            assert (code, text[:5]) == (451, b"4.3.0") and b"paused" in text, text
        with client(runtime) as smtp:
            smtp.login("api", owner.account.test_key)
            assert submit(smtp, mail(owner.address, to), [to]).startswith("msg_")
    finally:
        operator.operator_service().set_sending_paused(owner.id, False)
    with client(runtime) as smtp:
        smtp.login("api", owner.account.live_key)
        assert submit(smtp, mail(owner.address, to), [to]).startswith("msg_")


def test_auth_before_starttls_is_refused_off_loopback(runtime: Runtime, sender: Sender) -> None:
    """Only loopback may AUTH in clear; a server that does not trust loopback shows the rule."""
    with _server(runtime, trust_loopback=False) as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.ehlo()
        assert not smtp.has_extn("auth")  # not offered before TLS
        code, _ = smtp.docmd("AUTH", "PLAIN " + _plain(sender.account.live_key))
        assert code == 538
        smtp.starttls(context=tls(runtime))
        smtp.login("api", sender.account.live_key)
        assert smtp.noop()[0] == 250


def test_implicit_tls_as_on_port_465(runtime: Runtime, sender: Sender) -> None:
    to = simulator("delivered")
    with (
        _server(runtime, trust_loopback=False, implicit_tls=True) as port,
        smtplib.SMTP_SSL("127.0.0.1", port, timeout=30, context=tls(runtime)) as smtp,
    ):
        smtp.ehlo()
        assert smtp.has_extn("auth") and not smtp.has_extn("starttls")
        smtp.login("api", sender.account.test_key)
        assert submit(smtp, mail(sender.address, to), [to]).startswith("msg_")


# -- limits -------------------------------------------------------------------------------------


def test_size_is_advertised_and_a_21_mb_message_is_refused_19_mb_accepted(runtime: Runtime, sender: Sender) -> None:
    to = recipient()
    big = mail(sender.address, to)
    big.add_attachment(b"\0" * int(14.3 * MB), maintype="application", subtype="octet-stream", filename="19mb.bin")
    assert 19 * MB < len(wire(big)) < 20 * MB
    with client(runtime) as smtp:
        smtp.login("api", sender.account.test_key)
        too_big_mail = mail(sender.address, to)
        too_big_mail.add_attachment(b"\0" * int(15.6 * MB), maintype="application", subtype="zip", filename="a.zip")
        refused = wire(too_big_mail)
        assert 21 * MB < len(refused) < 22 * MB
        with pytest.raises(smtplib.SMTPSenderRefused) as too_big:  # SIZE=... in MAIL FROM
            smtp.sendmail(sender.address, [to], refused)
        assert too_big.value.smtp_code == 552
        smtp.rset()
        smtp.mail(sender.address)  # without SIZE: counted while it arrives
        smtp.rcpt(to)
        assert smtp.data(refused)[0] == 552
        message_id = submit(smtp, big, [to])
    # Stored once, in S3, sealed by the message's own data key (as an API send's content), compressed
    # first (the 14 MB of zeros take a few hundred KB); opened, it is the whole message.
    s3, bucket = wiring.client("s3"), runtime.env["CONTENT_BUCKET"]
    (stored,) = s3.list_objects_v2(Bucket=bucket, Prefix=f"content/{message_id}").get("Contents", [])
    sealed = s3.get_object(Bucket=bucket, Key=stored["Key"])["Body"].read()
    assert INLINE_LIMIT < len(sealed) < MB and b"19mb.bin" not in sealed and b"Over SMTP" not in sealed
    body = wiring.client("dynamodb").get_item(
        TableName=runtime.env["MESSAGES_TABLE"], Key=key(f"MSG#{message_id}", BODY_SK), ConsistentRead=True
    )["Item"]
    opened = sending_root.vault().open(message_id, from_attrs(body)["sealed"])
    assert len(opened.model_dump_json()) > 19 * MB


def test_the_1001st_recipient_is_refused(runtime: Runtime, sender: Sender) -> None:
    with client(runtime) as smtp:
        smtp.login("api", sender.account.test_key)
        smtp.mail(sender.address)
        for index in range(1000):
            code, _ = smtp.rcpt(f"r{index}@example.com")
            assert code == 250
        code, text = smtp.rcpt("one-too-many@example.com")
        assert (code, text[:5]) == (452, b"4.5.3")
        assert smtp.rset()[0] == 250


def test_a_burst_past_the_rate_gets_452_then_passes_in_the_next_second(runtime: Runtime) -> None:
    account = make_account(plan=Plan.FREE)
    with client(runtime) as smtp:
        smtp.login("api", account.test_key)
        for _ in range(3):  # a burst that straddled two seconds (a loaded machine) proves nothing: again
            _next_second(runtime)
            second = int(runtime.clock.now().timestamp())
            codes = []
            for _ in range(11):
                codes.append(smtp.docmd("MAIL", "FROM:<a@example.com>"))
                smtp.rset()
            if int(runtime.clock.now().timestamp()) == second:
                break
        assert [code for code, _ in codes[:10]] == [250] * 10
        assert codes[10][0] == 452 and codes[10][1].startswith(b"4.7.0")
        _next_second(runtime)
        assert smtp.docmd("MAIL", "FROM:<a@example.com>")[0] == 250


def test_the_sixth_connection_on_free_gets_421_and_a_freed_seat_is_reusable(runtime: Runtime) -> None:
    account = make_account(plan=Plan.FREE)
    held = []
    try:
        for _ in range(5):
            smtp = client(runtime)
            smtp.login("api", account.test_key)
            held.append(smtp)
        sixth = client(runtime)
        sixth.ehlo()
        # docmd, as smtplib's login() goes on to try LOGIN on the connection the 421 closed
        code, text = sixth.docmd("AUTH", "PLAIN " + _plain(account.test_key))
        assert (code, text[:5]) == (421, b"4.7.0")
        sixth.close()
        held.pop().quit()
        time.sleep(0.3)  # the seat is given back as the connection ends
        again = client(runtime)
        again.login("api", account.test_key)
        held.append(again)
    finally:
        for smtp in held:
            smtp.close()


def test_failed_auth_is_limited_per_source_address(runtime: Runtime) -> None:
    with _server(runtime, trust_loopback=True, auth_failures=2) as port:
        for source in ("127.0.0.3", "127.0.0.4"):  # loopback addresses of their own: windows of their own
            minute = int(runtime.clock.now().timestamp()) // 60
            codes = []
            for _ in range(3):
                with smtplib.SMTP("127.0.0.1", port, timeout=30, source_address=(source, 0)) as smtp:
                    smtp.ehlo()
                    codes.append(smtp.docmd("AUTH", "PLAIN " + _plain("pk_live_not-a-key"))[0])
            if int(runtime.clock.now().timestamp()) // 60 == minute:
                break  # else the window turned over meanwhile: again from another address
        assert codes == [535, 535, 421]


def test_lines_longer_than_1000_characters_are_refused(runtime: Runtime, sender: Sender) -> None:
    to = recipient()
    with client(runtime) as smtp:
        smtp.login("api", sender.account.test_key)
        code, text = smtp.docmd("NOOP " + "x" * 1_100)
        assert code == 500 and b"too long" in text
        smtp.mail(sender.address)
        smtp.rcpt(to)
        long_line = f"From: {sender.address}\r\nTo: {to}\r\nSubject: long\r\n\r\n{'y' * 1_100}\r\n"
        code, text = smtp.data(long_line.encode())
        assert code == 500 and b"too long" in text.lower(), text
        assert submit(smtp, mail(sender.address, to), [to]).startswith("msg_")  # the connection goes on


def test_an_idle_connection_is_closed(runtime: Runtime) -> None:
    with (
        _server(runtime, trust_loopback=True, idle_timeout=1) as port,
        smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp,
    ):
        assert smtp.noop()[0] == 250
        time.sleep(2.5)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            smtp.noop()


def test_a_command_repeated_past_its_limit_closes_the_connection(runtime: Runtime) -> None:
    with (
        _server(runtime, trust_loopback=True, command_call_limit=3) as port,
        smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp,
    ):
        assert [smtp.noop()[0] for _ in range(3)] == [250, 250, 250]
        assert smtp.noop() == (421, b"4.7.0 NOOP sent too many times")
        with pytest.raises(smtplib.SMTPServerDisconnected):
            smtp.noop()


def test_a_keys_ip_allowlist_applies_to_the_clients_address(runtime: Runtime, sender: Sender) -> None:
    key = make_key(sender.id, env=Environment.TEST, allowlist=["127.0.0.5/32"])
    with client(runtime, source="127.0.0.6") as smtp, pytest.raises(smtplib.SMTPAuthenticationError) as refused:
        smtp.login("api", key)
    assert refused.value.smtp_code == 535 and b"127.0.0.6" in refused.value.smtp_error
    to = simulator("delivered")
    with client(runtime, source="127.0.0.5") as smtp:
        smtp.login("api", key)
        assert submit(smtp, mail(sender.address, to), [to]).startswith("msg_")


def test_seats_and_the_rate_are_shared_by_every_submission_task(runtime: Runtime) -> None:
    """Two servers on the same tables, as two tasks behind the NLB: one account's limits, not two."""
    account = make_account(plan=Plan.FREE)
    held: list[smtplib.SMTP] = []
    with _server(runtime, trust_loopback=True) as port:

        def connect(task: int) -> smtplib.SMTP:
            return client(runtime) if task == 0 else smtplib.SMTP("127.0.0.1", port, timeout=60)

        try:
            for index in range(5):
                smtp = connect(index % 2)
                smtp.login("api", account.test_key)
                held.append(smtp)
            for task in (0, 1):
                with connect(task) as sixth:
                    sixth.ehlo()
                    assert sixth.docmd("AUTH", "PLAIN " + _plain(account.test_key))[0] == 421, task
            for _ in range(3):  # as in the burst test: a burst that straddled two seconds proves nothing
                _next_second(runtime)
                second = int(runtime.clock.now().timestamp())
                codes = []
                for index in range(11):
                    smtp = held[index % 2]
                    codes.append(smtp.docmd("MAIL", "FROM:<a@example.com>")[0])
                    smtp.rset()
                if int(runtime.clock.now().timestamp()) == second:
                    break
            assert codes == [250] * 10 + [452]
        finally:
            for smtp in held:
                smtp.close()


@pytest.mark.parametrize("bare", ["\n", "\r"], ids=["bare-lf", "bare-cr"])
def test_bare_line_end_smuggling_stays_inside_the_message(runtime: Runtime, sender: Sender, bare: str) -> None:
    to, smuggled = recipient(), recipient("smuggled")
    smuggling = f"body{bare}.{bare}MAIL FROM:<{sender.address}>{bare}RCPT TO:<{smuggled}>{bare}DATA{bare}"
    payload = (
        f"From: {sender.address}\r\nTo: {to}\r\nSubject: smuggle\r\n\r\n{smuggling}Subject: smuggled{bare}{bare}"
        "hi\r\n.\r\n"
    )
    host, port = address(runtime)
    with socket.create_connection((host, port), timeout=30) as raw:
        reader = raw.makefile("rb")
        reader.readline()

        def command(line: str) -> bytes:
            raw.sendall(line.encode() + b"\r\n")
            reply = reader.readline()
            while reply[3:4] == b"-":
                reply = reader.readline()
            return reply

        command("EHLO client")
        assert command("AUTH PLAIN " + _plain(sender.account.live_key)).startswith(b"235")
        assert command(f"MAIL FROM:<{sender.address}>").startswith(b"250")
        assert command(f"RCPT TO:<{to}>").startswith(b"250")
        assert command("DATA").startswith(b"354")
        raw.sendall(payload.encode())
        reply = reader.readline()
        assert reply.startswith(b"250 2.0.0 Ok: queued as msg_"), reply
        command("QUIT")
    message_id = reply.split()[-1].decode()
    drain(runtime)
    (copy,) = mail_for(runtime, message_id)
    assert copy["rcpt_tos"] == [to] and f"RCPT TO:<{smuggled}>" in copy["raw"]


# -- X-Svc headers: webhook and idempotency -----------------------------------------------------


def test_x_svc_webhook_gets_every_event_signed_and_idempotency_key_replays(runtime: Runtime, sender: Sender) -> None:
    to = simulator("delivered")
    with Receiver() as receiver:
        message = mail(
            sender.address,
            to,
            X_Svc_Webhook=receiver.url,
            X_Svc_Idempotency_Key="order-7",
            X_Svc_Tag=["hook", "smtp"],
            X_Svc_Variables=json.dumps({"order": "7"}),
            X_Order="7",
        )
        with client(runtime) as smtp:
            smtp.login("api", sender.account.test_key)
            first = submit(smtp, message, [to])
            again = submit(smtp, message, [to])  # a resubmission after a dropped connection
            message.replace_header("Subject", "Another message")
            smtp.mail(sender.address)
            smtp.rcpt(to)
            code, text = smtp.data(wire(message))  # the key again, with another message
            assert (code, text[:5]) == (550, b"5.6.0"), text
        assert again == first
        drain(runtime)
        received = receiver.wait_for(3)
        payloads = [json.loads(request.body) for request in received]
        assert {p["event"] for p in payloads} >= {"queued", "sent", "delivered"}
        assert all(p["message_id"] == first and p["headers"] == {"X-Order": "7"} for p in payloads)
        assert all(p["tags"] == ["hook", "smtp"] and p["variables"] == {"order": "7"} for p in payloads)
        assert all(ed25519_valid(runtime, request) for request in received)
    assert len(events_root.event_store().for_message(first)) == len(
        [e for e in events_of(first, until=has_types("delivered"))]
    )


def test_invalid_svc_headers_are_refused_permanently(runtime: Runtime, sender: Sender) -> None:
    to = recipient()
    with client(runtime) as smtp:
        smtp.login("api", sender.account.test_key)
        for header, value in (
            ("X_Svc_Variables", "not json"),
            ("X_Svc_Webhook", "ftp://example.com/hook"),
            ("X_Svc_Bogus", "1"),
        ):
            smtp.mail(sender.address)
            smtp.rcpt(to)
            code, text = smtp.data(wire(mail(sender.address, to, **{header: value})))
            assert code == 550 and text.startswith(b"5.6.0"), (header, text)


# -- helpers ------------------------------------------------------------------------------------


def _plain(password: str) -> str:
    return base64.b64encode(f"\0api\0{password}".encode()).decode()


def _next_second(runtime: Runtime) -> None:
    """Waits for the start of a fresh second on the runtime's clock, so a burst fits in one window."""
    fraction = runtime.clock.now().timestamp() % 1
    time.sleep(1 - fraction + 0.02)


class _server:
    """A second submission server on the runtime's stack, with other settings."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        trust_loopback: bool,
        auth_failures: int | None = None,
        implicit_tls: bool = False,
        idle_timeout: float = limits.IDLE_TIMEOUT_SECONDS,
        command_call_limit: int = limits.COMMAND_CALL_LIMIT,
    ) -> None:
        def service() -> SubmissionService:
            return smtp_root.submission_service(auth_failures_per_minute=auth_failures)

        context = server_context(runtime.smtp_certificate, runtime.smtp_certificate.parent / KEY_FILE)
        self._server = SubmissionServer(
            service,
            port=0,
            tls=context,
            implicit_tls=implicit_tls,
            trust_loopback=trust_loopback,
            scope=lambda: wiring.settings_scope(SMTP_SETTINGS),
            idle_timeout=idle_timeout,
            command_call_limit=command_call_limit,
        )

    def __enter__(self) -> int:
        self._server.start()
        return self._server.port

    def __exit__(self, *exc: Any) -> None:
        self._server.stop()


def test_a_failing_store_answers_451_and_tells_nothing_of_it() -> None:
    class Failing:
        def login(self, password: str, source_ip: str | None) -> Login:
            return Login(cast(Any, object()), "235 2.7.0 Authentication successful")

        def open(self, principal: Any, connection_id: str) -> None:
            return None

        def close(self, principal: Any, connection_id: str) -> None:
            return None

        def start_message(self, principal: Any) -> str | None:
            raise RuntimeError("the counters table is unreachable: secret detail")

    server = SubmissionServer(lambda: cast(SubmissionService, Failing()), port=0, trust_loopback=True)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as smtp:
            smtp.login("api", "anything")
            code, text = smtp.docmd("MAIL", "FROM:<a@example.com>")
            assert (code, text[:5]) == (451, b"4.3.0") and b"secret" not in text
            assert smtp.noop()[0] == 250  # the connection goes on
    finally:
        server.stop()


def test_past_the_processing_budget_a_message_waits_with_451() -> None:
    release = threading.Event()

    class Slow:
        def login(self, password: str, source_ip: str | None) -> Login:
            return Login(cast(Any, object()), "235 2.7.0 Authentication successful")

        def __getattr__(self, name: str) -> Any:  # open, close, renew, start_message
            return lambda *args: None

        def submit(self, password: str, source_ip: str | None, recipients: list[str], raw: bytes) -> str:
            release.wait(30)
            return "250 2.0.0 Ok: queued as msg_slow"

    server = SubmissionServer(lambda: cast(SubmissionService, Slow()), port=0, trust_loopback=True, processing_budget=1)
    server.start()
    replies: list[tuple[int, bytes]] = []
    try:
        with (
            smtplib.SMTP("127.0.0.1", server.port, timeout=30) as first,
            smtplib.SMTP("127.0.0.1", server.port, timeout=30) as second,
        ):
            for smtp in (first, second):
                smtp.login("api", "anything")
                smtp.mail("a@example.com")
                smtp.rcpt("b@example.com")
            one = threading.Thread(target=lambda: replies.append(first.data(b"Subject: 1\r\n\r\nx\r\n")))
            one.start()
            eventually(lambda: server.processing or None, 10, waiting_for="the first message in progress")
            code, text = second.data(b"Subject: 2\r\n\r\ny\r\n")
            assert (code, text[:5]) == (451, b"4.3.1")
            release.set()
            one.join(30)
            assert replies == [(250, b"2.0.0 Ok: queued as msg_slow")]
    finally:
        release.set()
        server.stop()
