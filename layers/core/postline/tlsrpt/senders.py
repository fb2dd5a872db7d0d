"""Where TLS-RPT reports go, and how (RFC 8460 sections 3 and 5).

- `DnsReportRecords`: the domain's `_smtp._tls` TXT record, through the resolver port sending uses.
- `HttpsReportPoster`: https: rua, a POST of the gzip'd report as `application/tlsrpt+gzip`, connected
  through the outbound address policy (postline/egress/guard.py: resolved by the relay's own DNS, a
  rua inside refused before anything is sent, the address it checked connected to), its certificate
  checked (no redirects followed).
- `MailReportSender`: mailto: rua, a multipart/report message (report-type=tlsrpt) with the report
  attached as `application/tlsrpt+gzip`, DKIM-signed by the reporting domain, delivered over SMTP
  by the relay itself.
"""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Callable
from datetime import date
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, make_msgid
from urllib.parse import urlsplit

from postline.delivery.outcomes import OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.ports import Transport
from postline.domains.domain import RecordType
from postline.domains.ports import RecordLookup
from postline.egress.guard import EgressGuard, EgressRefused, NoAddress
from postline.tlsrpt.domain import MEDIA_TYPE, attachment_name, mailto_address, parse_record
from postline.tlsrpt.ports import RecordUnavailable, ReportNotDelivered

RECORD_PREFIX_NAME = "_smtp._tls"


class DnsReportRecords:
    def __init__(self, lookup: RecordLookup) -> None:
        self._lookup = lookup

    def __call__(self, domain: str) -> tuple[str, ...]:
        answer = self._lookup.lookup(f"{RECORD_PREFIX_NAME}.{domain}", RecordType.TXT)
        if answer.error:
            raise RecordUnavailable(answer.error)
        return parse_record(answer.values)


class HttpsReportPoster:
    def __init__(self, egress: EgressGuard, *, cafile: str | None = None, timeout: float = 30.0) -> None:
        self._egress = egress
        self._context = ssl.create_default_context(cafile=cafile)
        self._timeout = timeout

    def send(self, uri: str, *, domain: str, day: date, report_id: str, body: bytes) -> None:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            raw = self._egress.connect(host, parts.port or 443, timeout=self._timeout)
        except EgressRefused as refused:
            raise ReportNotDelivered(str(refused)) from None
        except NoAddress as error:
            raise ReportNotDelivered(str(error)) from None
        except OSError as error:
            raise ReportNotDelivered(f"POST to {host} failed: {error}") from error
        try:
            with self._context.wrap_socket(raw, server_hostname=host) as tls:
                connection = http.client.HTTPSConnection(host, parts.port or 443, timeout=self._timeout)
                connection.sock = tls  # already connected to the address our DNS gave, TLS checked
                connection.request("POST", path, body=body, headers={"Content-Type": MEDIA_TYPE})
                status = connection.getresponse().status
        except (OSError, http.client.HTTPException) as error:  # ssl errors are OSErrors
            raise ReportNotDelivered(f"POST to {host} failed: {error}") from error
        if not 200 <= status < 300:
            raise ReportNotDelivered(f"{host} answered {status}")


class MailReportSender:
    """`sign`: the message with the reporting domain's DKIM signature (section 3: a receiver ignores
    a mailed report without one). `transport`: one that delivers whatever TLS the rua's MX offers
    (section 5.3), not the relay's MTA-STS-enforcing, session-counting one (wiring/tlsrpt.py report_transport)."""

    def __init__(self, transport: Transport, sender: str, submitter: str, sign: Callable[[bytes], bytes]) -> None:
        self._transport = transport
        self._sender = sender
        self._submitter = submitter
        self._sign = sign

    def message(self, recipient: str, *, domain: str, day: date, report_id: str, body: bytes) -> EmailMessage:
        """Section 5.3's message: Subject and TLS-Report-* headers, a readable part, the report attached."""
        message = EmailMessage()
        message["From"] = self._sender
        message["To"] = recipient
        message["Subject"] = f"Report Domain: {domain} Submitter: {self._submitter} Report-ID: <{report_id}>"
        message["Date"] = formatdate(usegmt=True)
        message["Message-ID"] = make_msgid(domain=self._submitter)
        message["TLS-Report-Domain"] = domain
        message["TLS-Report-Submitter"] = self._submitter
        message.set_content(
            f"This is an aggregate TLS report (RFC 8460) from {self._submitter} for {domain}, {day.isoformat()} UTC."
        )
        maintype, _, subtype = MEDIA_TYPE.partition("/")
        message.add_attachment(
            body, maintype=maintype, subtype=subtype, filename=attachment_name(self._submitter, domain, day)
        )
        message.set_type("multipart/report")
        message.set_param("report-type", "tlsrpt")
        return message

    def send(self, uri: str, *, domain: str, day: date, report_id: str, body: bytes) -> None:
        recipient = mailto_address(uri)
        message = self.message(recipient, domain=domain, day=day, report_id=report_id, body=body)
        mime = self._sign(message.as_bytes(policy=SMTP))  # CRLF line ends: the wire's, and what is signed
        parcel = Parcel(
            message_id=report_id,
            sender=self._sender.rpartition("<")[2].rstrip(">").strip() or self._sender,
            recipient=recipient,
            mime=mime,
            domain=None,
            test=False,
            send_outcomes=None,
            attempt=1,
        )
        outcome = next(iter(self._transport.deliver([parcel])))
        if outcome.kind not in (OutcomeKind.DELIVERED, OutcomeKind.ACCEPTED):
            raise ReportNotDelivered(outcome.smtp_response or outcome.reason or outcome.kind.value)
