"""The one place where clients, stores and services are built. Lazily: nothing runs at import.

Handlers call these accessors. Clients and stores (they hold connections and caches) are built
once per process by the accessors marked `@_built_once`, which also registers them, so `reset()`
forgets every one of them (the embedded runtime and the tests call it after changing the
environment); services are cheap and built per call. The embedded runtime installs its movable
clock with `set_clock`.

Accessors read their settings with `settings(Group)` (postline/config.py). Each function loads
the groups it declares as it is imported (`require`), and each accessor remembers the groups its
build read, so the embedded runtime can hold an invocation to its function's declaration
(`settings_scope`) even when the accessor was built, and cached, by another function.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import lru_cache, wraps
from typing import TYPE_CHECKING, Any, TypeVar

import boto3
from botocore.config import Config

from postline.config import (
    Console,
    ContentBucket,
    ContentKey,
    Counters,
    Dns,
    DomainRecords,
    Egress,
    Events,
    EventsQuery,
    ExportFiles,
    ExportQueue,
    Idempotency,
    Jobs,
    KeyPepper,
    ListJobQueue,
    Messages,
    MetricsQuery,
    Notifications,
    Outbound,
    PublicUrl,
    RelayQueue,
    ResendQueue,
    Resources,
    SendQueue,
    SettingsError,
    SettingsGroup,
    SourceRate,
    SuppressionJobQueue,
    Suppressions,
    TlsReports,
    TrackingSecret,
    VerificationChecks,
    VerifyQueue,
    WebhookDeliveries,
    WebhookRetry,
    WebhookTls,
    WebhookUrls,
)
from postline.deployment import function_settings
from postline.shared.clock import SystemClock
from postline.shared.ports import Clock, Meter

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.accounts.service import OperatorService
    from postline.accounts.store import DynamoAccountStore
    from postline.audit.service import AuditService
    from postline.audit.store import DynamoAuditStore
    from postline.auth.console_jwt import JwksTokenVerifier
    from postline.auth.service import Authenticator
    from postline.delivery.feedback import FeedbackService
    from postline.delivery.mx import MxResolver
    from postline.delivery.ports import Transport
    from postline.delivery.service import Dispatcher
    from postline.domains.dns import DnsRecordLookup
    from postline.domains.ports import DkimKeys, RecordLookup
    from postline.domains.service import DomainService
    from postline.domains.store import DynamoSendingDomains
    from postline.egress.models import EgressAddresses
    from postline.events.service import EventService
    from postline.events.store import DynamoEventStore
    from postline.exports.files import S3ExportFiles
    from postline.exports.service import ExportService
    from postline.exports.store import DynamoExportJobs
    from postline.keys.hasher import PepperedHasher
    from postline.keys.service import KeyService
    from postline.keys.store import DynamoKeyStore
    from postline.lists.job_queue import SqsListJobQueue
    from postline.lists.send_service import ListSendService
    from postline.lists.send_store import DynamoListSends
    from postline.lists.service import ListService
    from postline.lists.store import DynamoLists
    from postline.metrics.packing import PackingService
    from postline.metrics.service import MetricsService, RollupService
    from postline.metrics.store import DynamoRollups
    from postline.relay.worker import RelayWorker
    from postline.retention.service import RetentionService
    from postline.sending.domain import Message
    from postline.sending.idempotency import PowertoolsIdempotency
    from postline.sending.queue import DelayedQueue, SqsDispatchQueue
    from postline.sending.service import SendService
    from postline.sending.store import DynamoMessageStore
    from postline.sending.vault import KmsVault
    from postline.shared.csv_files import S3CsvFiles
    from postline.shared.ids import RandomIds
    from postline.signing_keys.service import SigningKeyService
    from postline.signing_keys.store import DynamoSigningKeys
    from postline.smtp.service import SubmissionService
    from postline.smtp.store import DynamoSubmissionCounters
    from postline.suppressions.export_service import SuppressionExportService
    from postline.suppressions.import_service import SuppressionImportService
    from postline.suppressions.service import SuppressionService
    from postline.suppressions.store import DynamoSuppressions
    from postline.templates.service import TemplateService
    from postline.templates.store import DynamoTemplateStore
    from postline.tlsrpt.keys import DynamoReportKeys
    from postline.tlsrpt.service import CachedReportRecords, ReportKeyService, TlsReportService, TlsSessionRecorder
    from postline.tlsrpt.store import DynamoTlsReports
    from postline.tracking.domain import LinkMaker
    from postline.tracking.service import TrackingService
    from postline.usage.service import UsageService
    from postline.usage.store import DynamoCounterStore
    from postline.verification.activity import ActivityRecorder
    from postline.verification.bulk_completion import BulkCompletion
    from postline.verification.bulk_service import BulkVerificationService
    from postline.verification.ports import DomainFacts, MailboxProber, MailRoutes
    from postline.verification.proof_service import ProofService, ProofVerifier
    from postline.verification.rdap import RdapRegistrations
    from postline.verification.service import CachedDomainFacts, CachedRoutes, ValidationService
    from postline.verification.smtp_probe import SmtpMailboxProber
    from postline.verification.store import DynamoActivity
    from postline.webhook_delivery.http_client import WebhookHttp
    from postline.webhook_delivery.service import WebhookDeliverer
    from postline.webhook_delivery.store import DynamoDeliveryStore
    from postline.webhook_history.service import DeliveryHistoryService
    from postline.webhook_resend.service import WebhookResendService
    from postline.webhook_resend.store import DynamoResendJobs
    from postline.webhooks.service import WebhookService
    from postline.webhooks.store import DynamoWebhookEndpoints
    from postline.webhooks.url_guard import ResolvingUrlGuard

_F = TypeVar("_F", bound=Callable[..., Any])
_G = TypeVar("_G", bound=SettingsGroup)
Groups = tuple[type[SettingsGroup], ...]
_BUILT: list[Any] = []  # every cached accessor, for reset()
_reads: ContextVar[set[type[SettingsGroup]] | None] = ContextVar("settings_reads", default=None)
_allowed: ContextVar[frozenset[type[SettingsGroup]] | None] = ContextVar("settings_allowed", default=None)


def _note(groups: Iterable[type[SettingsGroup]]) -> None:
    """Records settings groups as read by what is being built, or by the current invocation."""
    groups = frozenset(groups)
    allowed = _allowed.get()
    if allowed is not None and not groups <= allowed:
        names = ", ".join(sorted(group.__name__ for group in groups - allowed))
        raise SettingsError(f"this function reads {names} but does not declare it (postline/deployment.py)")
    reads = _reads.get()
    if reads is not None:
        reads.update(groups)


def _built_once(maxsize: int | None = None) -> Callable[[_F], _F]:
    """Caches what the accessor builds (per argument), registers it with reset(), and notes the
    settings groups its build read each time it is called."""

    def register(accessor: _F) -> _F:
        read: set[type[SettingsGroup]] = set()

        @lru_cache(maxsize=maxsize)
        def build(*args: Any) -> Any:
            token = _reads.set(set())
            try:
                value = accessor(*args)
                read.update(_reads.get() or ())
            finally:
                _reads.reset(token)
            return value

        @wraps(accessor)
        def call(*args: Any) -> Any:
            value = build(*args)
            _note(read)
            return value

        call.cache_clear = build.cache_clear  # type: ignore[attr-defined]
        _BUILT.append(call)
        return call  # type: ignore[return-value]

    return register


_BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=10)
_clock: Clock = SystemClock()


def set_clock(clock: Clock) -> None:
    """The embedded runtime installs its movable clock here."""
    global _clock  # the single process-wide clock is the point
    _clock = clock


class _CurrentClock:
    def now(self) -> datetime:
        return _clock.now()


def clock() -> Clock:
    return _clock


def reset() -> None:
    """Forget every built client and store (settings changed, e.g. a test's own tables)."""
    for accessor in _BUILT:
        accessor.cache_clear()


@_built_once()
def _loaded(group: type[SettingsGroup]) -> SettingsGroup:
    return group.from_env(os.environ)


def settings(group: type[_G]) -> _G:
    """The group's values from the environment; a missing variable raises SettingsError."""
    _note((group,))
    value = _loaded(group)
    assert isinstance(value, group)
    return value


def require(*groups: type[SettingsGroup]) -> Groups:
    """Loads every group now: at import, a function's missing variable fails its cold start."""
    for group in groups:
        settings(group)
    return groups


def cold_start(module_file: str) -> Groups:
    """The groups the function of `module_file` (its __file__) declares, loaded now. Called by
    every handler right after its imports: in a Lambda's init the garbage collector goes back on
    (postline/__init__.py), after the objects the imports made are frozen: they live as long as the
    container, and without the freeze the first collection walks all of them (~40 ms)."""
    try:
        return require(*function_settings(module_file))
    finally:
        if not gc.isenabled():
            gc.freeze()
            gc.enable()


@contextmanager
def settings_scope(groups: Iterable[type[SettingsGroup]]) -> Iterator[None]:
    """Within it, reading a group outside `groups` raises SettingsError, as a function whose
    environment lacks the group's variables would in AWS. The embedded runtime wraps each
    invocation in its function's declaration; in Lambda nothing needs to."""
    token = _allowed.set(frozenset(groups))
    try:
        yield
    finally:
        _allowed.reset(token)


@_built_once()
def client(service: str) -> Any:
    # AWS_ENDPOINT_URL (moto, LocalStack) is honoured by boto3 itself; nothing here changes per target.
    return boto3.session.Session().client(service, config=_BOTO_CONFIG)


@_built_once()
def bulk_client(service: str) -> Any:
    """A client for bulk writes of items this code builds (the import worker's): botocore's check
    of each request against the API model, which walks every attribute of every item (a fifth of
    the import worker's time, profiled), is skipped; DynamoDB still validates each request."""
    return boto3.session.Session().client(service, config=_BOTO_CONFIG.merge(Config(parameter_validation=False)))


@_built_once()
def account_store() -> DynamoAccountStore:
    from postline.accounts.store import DynamoAccountStore

    return DynamoAccountStore(client("dynamodb"), settings(Resources).table)


@_built_once()
def key_store() -> DynamoKeyStore:
    from postline.keys.store import DynamoKeyStore

    return DynamoKeyStore(client("dynamodb"), settings(Resources).table)


@_built_once()
def audit_store() -> DynamoAuditStore:
    from postline.audit.store import DynamoAuditStore

    return DynamoAuditStore(client("dynamodb"), settings(Resources).table)


@_built_once()
def template_store() -> DynamoTemplateStore:
    from postline.templates.store import DynamoTemplateStore

    return DynamoTemplateStore(client("dynamodb"), settings(Resources).table)


@_built_once()
def counter_store() -> DynamoCounterStore:
    from postline.usage.store import DynamoCounterStore

    return DynamoCounterStore(client("dynamodb"), settings(Counters).table)


@_built_once()
def hasher() -> PepperedHasher:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    from postline.keys.hasher import PepperedHasher

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings(KeyPepper).secret_id
    # Cached for five minutes per container, so a key check costs no Secrets Manager call.
    return PepperedHasher(lambda: str(provider.get(secret_id, max_age=300)))


def meter() -> Meter:
    """The Meter port's adapter, whose counts the functions' `@metrics.log_metrics` publish. Imported
    at the first call: observability builds the service's Powertools Logger, which the CLI and the
    embedded runtime (they import wiring before they set up logging) must not get at import."""
    from postline.observability import meter as emf_meter

    return emf_meter


@_built_once()
def ids() -> RandomIds:
    from postline.shared.ids import RandomIds

    return RandomIds()


@_built_once()
def console_verifier() -> JwksTokenVerifier:
    from postline.auth.console_jwt import JwksTokenVerifier

    console = settings(Console)
    return JwksTokenVerifier(console.jwks, audience=console.audience, issuer=console.issuer)


def authenticator() -> Authenticator:
    from postline.auth.service import Authenticator

    return Authenticator(
        keys=key_store(),
        accounts=account_store(),
        counters=counter_store(),
        hasher=hasher(),
        clock=_clock,
        console=console_verifier(),
        meter=meter(),
        ip_rate_limit=settings(SourceRate).per_minute,
    )


def key_service() -> KeyService:
    from postline.keys.service import KeyService

    return KeyService(keys=key_store(), hasher=hasher(), ids=ids(), clock=_clock)


def audit_service() -> AuditService:
    from postline.audit.service import AuditService

    return AuditService(audit=audit_store())


@_built_once()
def rollups() -> DynamoRollups:
    from postline.metrics.store import DynamoRollups

    return DynamoRollups(client("dynamodb"), settings(Counters).table)


def rollup_service() -> RollupService:
    from postline.events.store import StreamRecords
    from postline.metrics.service import RollupService

    return RollupService(stream=StreamRecords(), rollups=rollups(), clock=_clock)


def packing_service() -> PackingService:
    from postline.metrics.packing import PackingService

    return PackingService(store=rollups(), clock=_clock)


def metrics_service() -> MetricsService:
    from postline.metrics.service import MetricsService

    return MetricsService(rollups=rollups(), clock=_clock, budget_ms=settings(MetricsQuery).budget_ms)


def usage_service() -> UsageService:
    from postline.usage.service import UsageService

    return UsageService(counters=counter_store(), clock=_clock)


def operator_service() -> OperatorService:
    from postline.accounts.service import OperatorService

    return OperatorService(
        accounts=account_store(), keys=key_store(), key_service=key_service(), ids=ids(), clock=_clock
    )


# -- sending ------------------------------------------------------------------------------------


@_built_once()
def message_store() -> DynamoMessageStore:
    from postline.sending.store import DynamoMessageStore

    # A batch's messages and events, 25 to a BatchWriteItem: botocore's walk of every attribute
    # was a fifth of a batch's CPU in the handler (DynamoDB still validates each request).
    return DynamoMessageStore(bulk_client("dynamodb"), settings(Messages).table, settings(Events).table)


@_built_once()
def event_store() -> DynamoEventStore:
    from postline.events.store import DynamoEventStore

    return DynamoEventStore(client("dynamodb"), settings(Events).table)


@_built_once()
def suppressions() -> DynamoSuppressions:
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(client("dynamodb"), settings(Suppressions).table, settings(Resources).table)


@_built_once()
def vault() -> KmsVault:
    from postline.sending.vault import KmsVault

    return KmsVault(client("kms"), client("s3"), settings(ContentKey).key_id, settings(ContentBucket).bucket)


@_built_once()
def dispatch_queue() -> SqsDispatchQueue:
    from postline.sending.queue import SqsDispatchQueue

    return SqsDispatchQueue(_delayed_queue(settings(SendQueue).url, settings(SendQueue).arn))


def _delayed_queue(url: str, arn: str) -> DelayedQueue:
    """A queue whose long waits are EventBridge Scheduler schedules (the send queue's settings)."""
    from postline.sending.queue import DelayedQueue

    queue = settings(SendQueue)
    return DelayedQueue(
        client("sqs"),
        client("scheduler"),
        queue_url=url,
        queue_arn=arn,
        scheduler_role_arn=queue.scheduler_role_arn,
        clock=_clock,
        max_delay_seconds=queue.max_delay_seconds,
    )


@_built_once()
def sending_domains() -> DynamoSendingDomains:
    from postline.domains.store import DynamoSendingDomains

    return DynamoSendingDomains(
        client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id
    )


@_built_once()
def record_lookup() -> DnsRecordLookup:
    from postline.domains.dns import DnsRecordLookup

    return DnsRecordLookup(settings(Dns).resolver)


def domain_service(*, keys: DkimKeys | None = None, lookup: RecordLookup | None = None) -> DomainService:
    """keys, lookup: the embedded runtime's seeded domain keeps its key and checks its own DNS."""
    from postline.delivery.transports.smtp import Relay
    from postline.domains.dkim_keys import RsaDkimKeys
    from postline.domains.domain import DnsSettings
    from postline.domains.service import DomainService
    from postline.domains.ses import SesIdentities
    from postline.webhook_delivery.notifier import OwnerNotifier

    records, notifications = settings(DomainRecords), settings(Notifications)
    return DomainService(
        domains=sending_domains(),
        lookup=lookup or record_lookup(),
        keys=keys or RsaDkimKeys(),
        notices=OwnerNotifier(
            account_store(), notifications.sender, ses=client("sesv2"), relay=Relay.parse(notifications.smtp_relay)
        ),
        settings=DnsSettings(
            spf_include=records.spf_include, bounce_mx=records.bounce_mx, tracking_host=records.tracking_host
        ),
        identities=SesIdentities(client("sesv2")) if settings(Outbound).transport == "ses" else None,
        ids=ids(),
        clock=_clock,
    )


@_built_once()
def tracking_secret() -> Callable[[], bytes]:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings(TrackingSecret).secret_id
    return lambda: str(provider.get(secret_id, max_age=300)).encode()


@_built_once()
def mx_resolver() -> MxResolver:
    from postline.delivery.mx import MxResolver

    return MxResolver(settings(Dns).resolver)


@_built_once()
def transports() -> dict[str, Transport]:
    from postline.delivery.mta_sts import HttpsPolicyFetcher, MtaStsPolicies
    from postline.delivery.transports.ses import SesTransport
    from postline.delivery.transports.simulator import SimulatorTransport
    from postline.delivery.transports.smtp import Relay, SmtpTransport
    from postline.shared.resolver import dns_resolver

    outbound = settings(Outbound)
    resolver = mx_resolver()
    return {
        "test": SimulatorTransport(),
        "smtp": SmtpTransport(
            relay=Relay.parse(outbound.smtp_relay),
            resolver=resolver,
            mx_port=outbound.smtp_mx_port,
            helo_name=outbound.smtp_helo_name,
            # Recipient domains' MTA-STS policies (RFC 8461), cached for the relay task's life.
            mta_sts=MtaStsPolicies(dns_resolver(settings(Dns).resolver, 5.0), HttpsPolicyFetcher(resolver.address)),
            # Each MX session's TLS outcome, counted for the domains' TLS-RPT reports (RFC 8460).
            tls_sessions=tls_sessions(),
        ),
        "ses": SesTransport(client("sesv2"), outbound.ses_configuration_set or None),
    }


@_built_once()
def tls_sessions() -> TlsSessionRecorder:
    """This process's TLS session counts, buffered and written every few hundred sessions or seconds
    (the relay task closes it on SIGTERM)."""
    from postline.tlsrpt.service import TlsSessionRecorder

    return TlsSessionRecorder(tls_report_store(), _CurrentClock())


@_built_once()
def tls_report_store() -> DynamoTlsReports:
    from postline.tlsrpt.store import DynamoTlsReports

    return DynamoTlsReports(client("dynamodb"), settings(Counters).table)


@_built_once()
def tls_report_records() -> CachedReportRecords:
    """Recipient domains' `_smtp._tls` records, through the resolver port sending uses, cached."""
    from postline.tlsrpt.senders import DnsReportRecords
    from postline.tlsrpt.service import CachedReportRecords

    return CachedReportRecords(DnsReportRecords(record_lookup()))


@_built_once()
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
        records=record_lookup(),
        clock=_clock,
        domain=settings(TlsReports).submitter,
    )


@_built_once()
def report_transport() -> Transport:
    """Mailed TLS-RPT reports' SMTP (RFC 8460 section 5.3): delivered whatever the rua domain's TLS
    does, so no MTA-STS enforcement and plain text after a failed STARTTLS, and never counted in
    the next report (no tls_sessions)."""
    from postline.delivery.transports.smtp import Relay, SmtpTransport

    outbound = settings(Outbound)
    return SmtpTransport(
        relay=Relay.parse(outbound.smtp_relay),
        resolver=mx_resolver(),
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
            "https": HttpsReportPoster(mx_resolver().address),
            "mailto": MailReportSender(
                report_transport(), reports.contact, reports.submitter, report_key_service().sign
            ),
        },
        identity=ReporterIdentity(reports.organization, reports.contact, reports.submitter, settings(Egress).ip),
        clock=_clock,
        owner=owner,
        sessions=tls_sessions(),  # this process's counts are written before a report is built
    )


def queue_tls_reports(day: date | None = None) -> dict[str, Any]:
    """Puts a TLS-RPT run on the relay queue, the job the daily schedule puts there (`postline tlsrpt run`)."""
    from postline.tlsrpt.models import TlsReportJob

    job = TlsReportJob(day=day) if day is not None else TlsReportJob(scheduled_at=_clock.now())
    sent = client("sqs").send_message(QueueUrl=settings(RelayQueue).url, MessageBody=job.model_dump_json())
    return {"queued": sent["MessageId"], **job.model_dump(mode="json")}


def transport_for(message: Message) -> Transport:
    """Test messages never leave the machine; live ones take the configured transport."""
    return transports()["test" if message.test else settings(Outbound).transport]


@_built_once(maxsize=1024)
def retention_days(account_id: str) -> int:
    """The history window new items' TTL is set from (retention/domain.py): the plan's, with a
    downgrade's grace or an organisation's window when longer."""
    from postline.accounts.domain import PLAN_LIMITS, Plan
    from postline.retention.domain import retention_days as window

    account = account_store().get_account(account_id)
    return window(account, _clock.now()) if account else PLAN_LIMITS[Plan.FREE].retention_days


def retention_service() -> RetentionService:
    from postline.retention.service import RetentionService
    from postline.retention.store import DynamoRetentionStore

    store = DynamoRetentionStore(
        client("dynamodb"),
        client("s3"),
        resources=settings(Resources).table,
        counters=settings(Counters).table,
        events=settings(Events).table,
        messages=settings(Messages).table,
        deliveries=settings(WebhookDeliveries).table,
        content_bucket=settings(ContentBucket).bucket,
    )
    return RetentionService(store, _clock)


def links() -> LinkMaker | None:
    from postline.tracking.domain import LinkMaker

    base_url = settings(PublicUrl).base_url
    return LinkMaker(base_url, tracking_secret()()) if base_url else None


@_built_once()
def idempotency() -> PowertoolsIdempotency:
    from postline.sending.idempotency import PowertoolsIdempotency

    return PowertoolsIdempotency(client("dynamodb"), settings(Idempotency).table)


def send_service() -> SendService:
    from postline.sending.service import SendService

    return SendService(
        messages=message_store(),
        vault=vault(),
        queue=dispatch_queue(),
        quotas=counter_store(),
        suppressions=suppressions(),
        domains=sending_domains(),
        templates=template_store(),
        accounts=account_store(),
        check_webhook_url=url_guard().check_without_dns,
        idempotency=idempotency(),
        ids=ids(),
        clock=_clock,
        meter=meter(),
        lists=lists_store(),
        list_sends=list_send_jobs(),
        list_queue=list_job_queue(),
    )


@_built_once()
def submission_counters() -> DynamoSubmissionCounters:
    from postline.smtp.store import DynamoSubmissionCounters

    return DynamoSubmissionCounters(client("dynamodb"), settings(Counters).table, counter_store())


def submission_service(*, auth_failures_per_minute: int | None = None) -> SubmissionService:
    """The SMTP submission task's use cases: POST /v3/messages' auth rule and send service."""
    from postline.auth.service import RouteRule
    from postline.http.routes import find_route
    from postline.smtp.domain import AUTH_FAILURES_PER_MINUTE
    from postline.smtp.service import SubmissionService

    send = find_route("POST", "/v3/messages")
    assert send is not None
    return SubmissionService(
        authenticator=authenticator(),
        sender=send_service(),
        rule=RouteRule(send.access, send.live_only),
        counters=submission_counters(),
        clock=_clock,
        auth_failures_per_minute=auth_failures_per_minute or AUTH_FAILURES_PER_MINUTE,
    )


def template_service() -> TemplateService:
    from postline.templates.service import TemplateService

    return TemplateService(templates=template_store(), ids=ids(), clock=_clock)


# -- webhooks -----------------------------------------------------------------------------------


@_built_once()
def webhook_endpoints() -> DynamoWebhookEndpoints:
    from postline.webhooks.store import DynamoWebhookEndpoints

    return DynamoWebhookEndpoints(
        client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id
    )


@_built_once()
def url_guard() -> ResolvingUrlGuard:
    from postline.webhooks.url_guard import ResolvingUrlGuard

    return ResolvingUrlGuard(allow_private=settings(WebhookUrls).allow_private)


def webhook_service() -> WebhookService:
    from postline.webhooks.service import WebhookService

    return WebhookService(endpoints=webhook_endpoints(), guard=url_guard(), ids=ids(), clock=_clock)


@_built_once()
def relay_queue() -> SqsDispatchQueue:
    """The relay task's queue, for hand-overs (immediate: never a delay, so never a schedule)."""
    from postline.sending.queue import SqsDispatchQueue

    relay = settings(RelayQueue)
    return SqsDispatchQueue(_delayed_queue(relay.url, relay.arn))


def dispatcher(worker_id: str, *, hand_over: bool = True) -> Dispatcher:
    """The dispatcher Lambda's (hand_over: live SMTP jobs go to the relay task) or the relay task's
    (hand_over=False: it delivers them itself, postline/relay)."""
    from postline.delivery.service import Dispatcher
    from postline.verification.service import Verifier

    relay = relay_queue() if hand_over and settings(Outbound).transport == "smtp" else None

    return Dispatcher(
        messages=message_store(),
        vault=vault(),
        queue=dispatch_queue(),
        domains=sending_domains(),
        suppressions=suppressions(),
        transport_for=transport_for,
        verifier=Verifier(mx_resolver()),
        links=links(),
        retention_days=retention_days,
        quotas=counter_store(),
        clock=_clock,
        meter=meter(),
        worker_id=worker_id,
        relay=relay,
    )


def relay_worker(worker_id: str) -> RelayWorker:
    """The SMTP relay task's loop: its queue, long-polled, into a dispatcher that delivers."""
    from postline.relay.worker import LONG_POLL_SECONDS, RelayWorker

    relay = settings(RelayQueue)
    # The long poll holds a receive open for up to 20 s: longer than the clients' read timeout.
    sqs = boto3.session.Session().client("sqs", config=_BOTO_CONFIG.merge(Config(read_timeout=LONG_POLL_SECONDS + 10)))
    return RelayWorker(
        sqs,
        relay.url,
        relay.arn,
        lambda: dispatcher(worker_id, hand_over=False),
        reports=lambda: tls_report_service(worker_id),
    )


def tracking_service() -> TrackingService:
    from postline.tracking.service import TrackingService

    return TrackingService(
        messages=message_store(),
        events=event_store(),
        suppressions=suppressions(),
        secret=tracking_secret(),
        retention_days=retention_days,
        clock=_clock,
        lists=lists_store(),
        ids=ids(),
    )


def event_service() -> EventService:
    from postline.events.count_store import DynamoEventCounts
    from postline.events.service import EventService

    return EventService(
        events=event_store(),
        hasher=hasher(),
        clock=_clock,
        budget_ms=settings(EventsQuery).budget_ms,
        counts=DynamoEventCounts(client("dynamodb"), settings(Counters).table),
    )


@_built_once()
def export_jobs() -> DynamoExportJobs:
    from postline.exports.store import DynamoExportJobs

    return DynamoExportJobs(client("dynamodb"), settings(Jobs).table)


@_built_once()
def presigning_s3() -> Any:
    """S3 for the files users download or upload with presigned URLs: those must be SigV4 (botocore
    may presign S3 with SigV2 otherwise)."""
    return boto3.session.Session().client("s3", config=_BOTO_CONFIG.merge(Config(signature_version="s3v4")))


@_built_once()
def export_files() -> S3ExportFiles:
    from postline.exports.files import S3ExportFiles

    return S3ExportFiles(presigning_s3(), settings(ExportFiles).bucket)


def export_service() -> ExportService:
    from postline.exports.files import SqsExportQueue
    from postline.exports.service import ExportService

    return ExportService(
        jobs=export_jobs(),
        queue=SqsExportQueue(client("sqs"), settings(ExportQueue).url),
        files=export_files(),
        events=event_store(),
        audit=audit_store(),
        ids=ids(),
        clock=_clock,
    )


def suppression_service() -> SuppressionService:
    from postline.suppressions.service import SuppressionService

    return SuppressionService(
        store=suppressions(), window=counter_store(), audit=audit_store(), ids=ids(), clock=_clock
    )


@_built_once()
def lists_store() -> DynamoLists:
    from postline.lists.store import DynamoLists

    return DynamoLists(client("dynamodb"), settings(Resources).table)


@_built_once()
def list_job_queue() -> SqsListJobQueue:
    from postline.lists.job_queue import SqsListJobQueue

    queue = settings(ListJobQueue)
    return SqsListJobQueue(client("sqs"), queue.url, lambda: _delayed_queue(queue.url, queue.arn))


@_built_once()
def list_send_jobs() -> DynamoListSends:
    from postline.lists.send_store import DynamoListSends

    return DynamoListSends(client("dynamodb"), settings(Jobs).table)


@_built_once()
def audited_list_send_jobs() -> DynamoListSends:
    """The list routes' list sends: a cancel writes its audit entry (the resources table) in the
    same transaction as its status move."""
    from postline.lists.send_store import DynamoListSends

    return DynamoListSends(client("dynamodb"), settings(Jobs).table, settings(Resources).table)


def list_send_service() -> ListSendService:
    """The list worker's fan-out of list sends, and GET /v3/lists/{id}/sends/{send_id}."""
    from postline.lists.send_service import ListSendService, StoredPrincipals

    return ListSendService(
        jobs=list_send_jobs(),
        lists=lists_store(),
        sender=send_service(),
        principals=StoredPrincipals(keys=key_store(), accounts=account_store()),
        queue=list_job_queue(),
        clock=_clock,
    )


def list_service() -> ListService:
    from postline.lists.service import ListService

    return ListService(
        store=lists_store(),
        queue=list_job_queue(),
        sends=audited_list_send_jobs(),
        audit=audit_store(),
        ids=ids(),
        clock=_clock,
    )


def suppression_import_service() -> SuppressionImportService:
    from postline.suppressions.import_files import S3ImportFiles
    from postline.suppressions.import_service import SuppressionImportService
    from postline.suppressions.import_store import DynamoSuppressionImports
    from postline.suppressions.job_queue import SqsSuppressionJobQueue

    return SuppressionImportService(
        jobs=DynamoSuppressionImports(client("dynamodb"), settings(Jobs).table),
        files=S3ImportFiles(presigning_s3(), settings(ExportFiles).bucket),
        queue=SqsSuppressionJobQueue(client("sqs"), settings(SuppressionJobQueue).url),
        store=import_suppressions(),
        window=counter_store(),
        audit=audit_store(),
        ids=ids(),
        clock=_clock,
    )


@_built_once()
def import_suppressions() -> DynamoSuppressions:
    """The import worker's lists: a chunk's batch reads and writes eight at a time."""
    from postline.shared.parallel import MAX_WORKERS
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(
        bulk_client("dynamodb"), settings(Suppressions).table, settings(Resources).table, workers=MAX_WORKERS
    )


def suppression_export_service() -> SuppressionExportService:
    from postline.suppressions.export_service import SuppressionExportService
    from postline.suppressions.export_store import DynamoSuppressionExports
    from postline.suppressions.job_queue import SqsSuppressionJobQueue

    return SuppressionExportService(
        jobs=DynamoSuppressionExports(client("dynamodb"), settings(Jobs).table),
        queue=SqsSuppressionJobQueue(client("sqs"), settings(SuppressionJobQueue).url),
        files=export_files(),
        store=suppressions(),
        audit=audit_store(),
        ids=ids(),
        clock=_clock,
    )


def feedback_service() -> FeedbackService:
    from postline.delivery.feedback import FeedbackService

    return FeedbackService(
        messages=message_store(), suppressions=suppressions(), retention_days=retention_days, meter=meter()
    )


# -- webhooks -----------------------------------------------------------------------------------


@_built_once()
def signing_keys() -> DynamoSigningKeys:
    from postline.signing_keys.store import DynamoSigningKeys

    return DynamoSigningKeys(client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id)


@_built_once()
def webhook_deliveries() -> DynamoDeliveryStore:
    from postline.webhook_delivery.store import DynamoDeliveryStore

    return DynamoDeliveryStore(client("dynamodb"), settings(WebhookDeliveries).table)


@_built_once()
def webhook_http() -> WebhookHttp:
    # Cached (it holds connection pools and tokens), so it is given the process's clock as it is
    # at each call, not the one installed when it was built.
    from postline.webhook_delivery.http_client import WebhookHttp

    return WebhookHttp(_CurrentClock(), url_guard().vet, ca_bundle=settings(WebhookTls).ca_bundle or None)


def webhook_deliverer() -> WebhookDeliverer:
    from postline.delivery.transports.smtp import Relay
    from postline.events.store import StreamRecords
    from postline.webhook_delivery.notifier import OwnerNotifier
    from postline.webhook_delivery.service import WebhookDeliverer
    from postline.webhook_delivery.workflow import StepFunctionsRetry

    notifications = settings(Notifications)
    return WebhookDeliverer(
        stream=StreamRecords(),
        deliveries=webhook_deliveries(),
        endpoints=webhook_endpoints(),
        signer=signing_key_service(),
        client=webhook_http(),
        workflow=StepFunctionsRetry(client("stepfunctions"), lambda: settings(WebhookRetry).state_machine_arn),
        notifier=OwnerNotifier(
            account_store(), notifications.sender, ses=client("sesv2"), relay=Relay.parse(notifications.smtp_relay)
        ),
        retention_days=retention_days,
        clock=_clock,
        meter=meter(),
    )


def egress_addresses() -> EgressAddresses:
    """GET /.well-known/svc/egress: the static source address of relayed mail and webhook calls."""
    from postline.egress.models import egress_addresses as view

    return view(settings(Egress).ip)


def signing_key_service() -> SigningKeyService:
    from postline.signing_keys.service import SigningKeyService

    return SigningKeyService(signing_keys(), ids(), _clock)


def delivery_history_service() -> DeliveryHistoryService:
    from postline.webhook_history.service import DeliveryHistoryService

    return DeliveryHistoryService(
        deliveries=webhook_deliveries(), endpoints=webhook_endpoints(), hasher=hasher(), clock=_clock
    )


@_built_once()
def resend_jobs() -> DynamoResendJobs:
    from postline.webhook_resend.store import DynamoResendJobs

    return DynamoResendJobs(client("dynamodb"), settings(Jobs).table)


def webhook_resend_service() -> WebhookResendService:
    from postline.webhook_resend.service import WebhookResendService
    from postline.webhook_resend.store import SqsResendQueue

    return WebhookResendService(
        jobs=resend_jobs(),
        queue=SqsResendQueue(client("sqs"), settings(ResendQueue).url),
        deliveries=webhook_deliveries(),
        endpoints=webhook_endpoints(),
        audit=audit_store(),
        ids=ids(),
        retention_days=retention_days,
        resend_attempt=lambda delivery_id: webhook_deliverer().resend_attempt(delivery_id),  # the worker's only
        clock=_clock,
    )


# -- verification -------------------------------------------------------------------------------


@_built_once()
def mailbox_prober() -> MailboxProber:
    from postline.verification.smtp_probe import NoMailboxProber, RelayMailboxProber

    checks = settings(VerificationChecks)
    if checks.smtp_probe == "direct":
        return direct_mailbox_prober()
    return RelayMailboxProber(checks.relay_probe) if checks.smtp_probe == "relay" else NoMailboxProber()


@_built_once()
def direct_mailbox_prober() -> SmtpMailboxProber:
    """The SMTP dialogue itself: what the relay task's probe endpoint runs (and "direct" mode)."""
    from postline.verification.smtp_probe import SmtpMailboxProber

    outbound = settings(Outbound)
    return SmtpMailboxProber(mx_resolver(), port=outbound.smtp_mx_port, helo_name=outbound.smtp_helo_name)


@_built_once()
def registrations() -> RdapRegistrations:
    from postline.verification.rdap import RdapRegistrations

    checks = settings(VerificationChecks)
    return RdapRegistrations(checks.rdap_base_url, ca_bundle=checks.rdap_ca_bundle)


@_built_once()
def verification_activity() -> DynamoActivity:
    from postline.verification.store import DynamoActivity

    return DynamoActivity(client("dynamodb"), settings(Counters).table)


def activity_recorder() -> ActivityRecorder:
    from postline.events.store import StreamRecords
    from postline.verification.activity import ActivityRecorder

    return ActivityRecorder(stream=StreamRecords(), counters=verification_activity(), clock=_clock, meter=meter())


@_built_once()
def bulk_routes() -> CachedRoutes:
    """The bulk worker's DNS: each domain once per process for five minutes."""
    from postline.verification.service import CachedRoutes

    return CachedRoutes(mx_resolver())


@_built_once()
def bulk_domain_facts() -> CachedDomainFacts:
    """The bulk worker's per-domain facts (catch-all, registration): each domain once per process
    for five minutes."""
    from postline.verification.service import CachedDomainFacts
    from postline.verification.store import DynamoDomainFacts

    return CachedDomainFacts(DynamoDomainFacts(client("dynamodb"), settings(Counters).table))


def validation_service(routes: MailRoutes | None = None, facts: DomainFacts | None = None) -> ValidationService:
    from postline.verification.service import ValidationService
    from postline.verification.store import DynamoDomainFacts, DynamoVerificationCounters

    table = settings(Counters).table
    return ValidationService(
        routes=routes or mx_resolver(),
        prober=mailbox_prober(),
        registrations=registrations(),
        facts=facts or DynamoDomainFacts(client("dynamodb"), table),
        credits=DynamoVerificationCounters(client("dynamodb"), table),
        activity=verification_activity(),
        complaints=complaint_lists(),
        ids=ids(),
        clock=_clock,
    )


@_built_once()
def complaint_lists() -> DynamoSuppressions:
    """The suppression lists, read only (verification's known complainers): it writes nothing, so it
    has no audit table (the API's suppressions() has)."""
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(client("dynamodb"), settings(Suppressions).table, audit_table="")


def _verify_credits(account_id: str) -> int | None:
    from postline.accounts.domain import PLAN_LIMITS, Plan

    account = account_store().get_account(account_id)
    return account.limits.verify_credits if account else PLAN_LIMITS[Plan.FREE].verify_credits


def bulk_verification_service() -> BulkVerificationService:
    from postline.verification.bulk_service import BulkVerificationService
    from postline.verification.bulk_store import DynamoBulkJobs, SqsBulkQueue
    from postline.verification.store import DynamoVerificationCounters

    table = settings(Counters).table
    return BulkVerificationService(
        jobs=DynamoBulkJobs(client("dynamodb"), settings(Jobs).table, table),
        queue=SqsBulkQueue(client("sqs"), settings(VerifyQueue).url),
        credits=DynamoVerificationCounters(client("dynamodb"), table),
        checker=lambda: validation_service(bulk_routes(), bulk_domain_facts()),
        verify_limit=_verify_credits,
        check_webhook_url=lambda url: url_guard().check_without_dns(url),  # built when a POST names one
        completion=bulk_completion,
        proofs=proof_service,
        files=csv_files,
        ids=ids(),
        clock=_clock,
    )


def csv_files() -> S3CsvFiles:
    """Uploaded CSV files (imports/): bulk verification jobs' lists."""
    from postline.shared.csv_files import S3CsvFiles

    return S3CsvFiles(presigning_s3(), settings(ExportFiles).bucket)


def bulk_completion() -> BulkCompletion:
    """The bulk worker's: a completed job's suppress and webhook_url (the API never builds it)."""
    from postline.verification.bulk_completion import BulkCompletion
    from postline.verification.bulk_store import DynamoBulkJobs

    return BulkCompletion(
        jobs=DynamoBulkJobs(client("dynamodb"), settings(Jobs).table, settings(Counters).table),
        suppressions=suppressions(),
        deliverer=webhook_deliverer,
        retention_days=retention_days,
        clock=_clock,
    )


def proof_service() -> ProofService:
    """Bulk jobs' signed result files: written by the worker, presigned for the GET."""
    from postline.verification.proof_service import ProofService
    from postline.verification.proof_store import DynamoProofRegistry, S3ResultFiles

    return ProofService(
        files=S3ResultFiles(presigning_s3(), settings(ExportFiles).bucket),
        registry=DynamoProofRegistry(client("dynamodb"), settings(Resources).table),
        signer=signing_key_service,
        clock=_clock,
    )


def proof_verifier() -> ProofVerifier:
    from postline.verification.proof_service import ProofVerifier
    from postline.verification.proof_store import DynamoProofRegistry

    return ProofVerifier(DynamoProofRegistry(client("dynamodb"), settings(Resources).table))
