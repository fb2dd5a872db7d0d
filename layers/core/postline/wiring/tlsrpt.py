"""The tlsrpt area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from postline.config import ContentKey, Counters, Egress, Outbound, RelayQueue, Resources, TlsReports
from postline.wiring import domains, shared
from postline.wiring.registry import CurrentClock, built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.delivery.ports import Transport
    from postline.tlsrpt.keys import DynamoReportKeys
    from postline.tlsrpt.service import CachedReportRecords, ReportKeyService, TlsReportService, TlsSessionRecorder
    from postline.tlsrpt.store import DynamoTlsReports


@built_once()
def tls_sessions() -> TlsSessionRecorder:
    """This process's TLS session counts, buffered and written every few hundred sessions or seconds
    (the relay task closes it on SIGTERM)."""
    from postline.tlsrpt.service import TlsSessionRecorder

    return TlsSessionRecorder(tls_report_store(), CurrentClock())


@built_once()
def tls_report_store() -> DynamoTlsReports:
    from postline.tlsrpt.store import DynamoTlsReports

    return DynamoTlsReports(client("dynamodb"), settings(Counters).table)


@built_once()
def tls_report_records() -> CachedReportRecords:
    """Recipient domains' `_smtp._tls` records, through the resolver port sending uses, cached."""
    from postline.tlsrpt.senders import DnsReportRecords
    from postline.tlsrpt.service import CachedReportRecords

    return CachedReportRecords(DnsReportRecords(domains.record_lookup()))


@built_once()
def report_keys() -> DynamoReportKeys:
    from postline.tlsrpt.keys import DynamoReportKeys

    return DynamoReportKeys(client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id)


def report_key_service() -> ReportKeyService:
    """The reporting domain's DKIM key (the submitter of TLSRPT_CONTACT): signs mailed reports."""
    from postline.domains.dkim_keys import RsaDkimKeys
    from postline.tlsrpt.service import ReportKeyService

    return ReportKeyService(
        store=report_keys(),
        keys=RsaDkimKeys(),
        records=domains.record_lookup(),
        clock=clock(),
        domain=settings(TlsReports).submitter,
    )


@built_once()
def report_transport() -> Transport:
    """Mailed TLS-RPT reports' SMTP (RFC 8460 section 5.3): delivered whatever the rua domain's TLS
    does, so no MTA-STS enforcement and plain text after a failed STARTTLS, and never counted in
    the next report (no tls_sessions)."""
    from postline.delivery.transports.smtp import Relay, SmtpTransport

    outbound = settings(Outbound)
    return SmtpTransport(
        relay=Relay.parse(outbound.smtp_relay),
        resolver=shared.mx_resolver(),
        egress=shared.egress_guard(),
        mx_port=outbound.smtp_mx_port,
        helo_name=outbound.smtp_helo_name,
        tls_optional=True,
    )


def tls_report_service(owner: str = "relay") -> TlsReportService:
    """The relay task's daily TLS-RPT run: https: rua POSTed, mailto: rua DKIM-signed over SMTP."""
    from postline.tlsrpt.senders import HttpsReportPoster, MailReportSender
    from postline.tlsrpt.service import ReporterIdentity, TlsReportService

    reports = settings(TlsReports)
    return TlsReportService(
        store=tls_report_store(),
        records=tls_report_records(),
        senders={
            "https": HttpsReportPoster(shared.egress_guard()),
            "mailto": MailReportSender(
                report_transport(), reports.contact, reports.submitter, report_key_service().sign
            ),
        },
        identity=ReporterIdentity(reports.organization, reports.contact, reports.submitter, settings(Egress).ip),
        clock=clock(),
        owner=owner,
        sessions=tls_sessions(),  # this process's counts are written before a report is built
    )


def queue_tls_reports(day: date | None = None) -> dict[str, Any]:
    """Puts a TLS-RPT run on the relay queue, the job the daily schedule puts there (`postline tlsrpt run`)."""
    from postline.tlsrpt.models import TlsReportJob

    job = TlsReportJob(day=day) if day is not None else TlsReportJob(scheduled_at=clock().now())
    sent = client("sqs").send_message(QueueUrl=settings(RelayQueue).url, MessageBody=job.model_dump_json())
    return {"queued": sent["MessageId"], **job.model_dump(mode="json")}
