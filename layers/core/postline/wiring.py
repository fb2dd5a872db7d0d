"""The one place where clients, stores and services are built. Lazily: nothing runs at import.

Handlers call these accessors; tests and the embedded runtime replace pieces with `override`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import cache, lru_cache
from typing import Any

import boto3
from botocore.config import Config

from postline.adapters.clock import SystemClock
from postline.adapters.console_jwt import JwksTokenVerifier
from postline.adapters.counters import DynamoCounterStore
from postline.adapters.dispatch_queue import SqsDispatchQueue
from postline.adapters.domains import DynamoSendingDomains
from postline.adapters.events import DynamoEventStore
from postline.adapters.exports import S3ExportFiles, SqsExportQueue
from postline.adapters.jobs import DynamoExportJobs
from postline.adapters.messages import DynamoMessageStore
from postline.adapters.mx import MxResolver
from postline.adapters.notifier import OwnerNotifier
from postline.adapters.resend_jobs import DynamoResendJobs, SqsResendQueue
from postline.adapters.resources import ResourceStore
from postline.adapters.retry_workflow import StepFunctionsRetry
from postline.adapters.secrets import PepperedHasher
from postline.adapters.signing_keys import DynamoSigningKeys
from postline.adapters.suppressions import DynamoSuppressions
from postline.adapters.transports.ses import SesTransport
from postline.adapters.transports.simulator import SimulatorTransport
from postline.adapters.transports.smtp import Relay, SmtpTransport
from postline.adapters.url_guard import ResolvingUrlGuard
from postline.adapters.vault import KmsVault
from postline.adapters.webhook_deliveries import DynamoDeliveryStore
from postline.adapters.webhook_http import WebhookHttp
from postline.adapters.webhooks import DynamoWebhookEndpoints
from postline.config import Settings
from postline.domain.accounts import PLAN_LIMITS, Plan
from postline.domain.messages import Message
from postline.domain.tracking import LinkMaker
from postline.ids import RandomIds
from postline.services.accounts import OperatorService
from postline.services.audit import AuditService
from postline.services.auth import Authenticator
from postline.services.dispatch import Dispatcher
from postline.services.events import EventService
from postline.services.exports import ExportService
from postline.services.feedback import FeedbackService
from postline.services.keys import KeyService
from postline.services.ports import Clock, Transport
from postline.services.sending import SendService
from postline.services.signing_keys import SigningKeyService
from postline.services.templates import TemplateService
from postline.services.tracking import TrackingService
from postline.services.usage import UsageService
from postline.services.verification import Verifier
from postline.services.webhook_delivery import WebhookDeliverer
from postline.services.webhook_history import DeliveryHistoryService
from postline.services.webhook_resend import WebhookResendService
from postline.services.webhooks import WebhookService

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
    """Forget every built client and service (settings changed, e.g. a test's own tables)."""
    for accessor in (
        settings,
        client,
        resource_store,
        counter_store,
        hasher,
        ids,
        console_verifier,
        message_store,
        event_store,
        suppressions,
        vault,
        dispatch_queue,
        sending_domains,
        tracking_secret,
        mx_resolver,
        transports,
        signing_keys,
        webhook_deliveries,
        webhook_http,
        webhook_endpoints,
        url_guard,
        export_jobs,
        export_files,
        resend_jobs,
    ):
        accessor.cache_clear()
    _retention.cache_clear()


@cache
def settings() -> Settings:
    return Settings.from_env()


@cache
def client(service: str) -> Any:
    # AWS_ENDPOINT_URL (moto, LocalStack) is honoured by boto3 itself; nothing here changes per target.
    return boto3.session.Session().client(service, config=_BOTO_CONFIG)


@cache
def resource_store() -> ResourceStore:
    return ResourceStore(client("dynamodb"), settings().resources_table)


@cache
def counter_store() -> DynamoCounterStore:
    return DynamoCounterStore(client("dynamodb"), settings().counters_table)


@cache
def hasher() -> PepperedHasher:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings().key_hash_secret_id
    # Cached for five minutes per container, so a key check costs no Secrets Manager call.
    return PepperedHasher(lambda: str(provider.get(secret_id, max_age=300)))


@cache
def ids() -> RandomIds:
    return RandomIds()


@cache
def console_verifier() -> JwksTokenVerifier:
    config = settings()
    return JwksTokenVerifier(
        config.console_jwks, audience=config.console_jwt_audience, issuer=config.console_jwt_issuer
    )


def authenticator() -> Authenticator:
    store = resource_store()
    return Authenticator(
        keys=store,
        accounts=store,
        counters=counter_store(),
        hasher=hasher(),
        clock=_clock,
        console=console_verifier(),
        ip_rate_limit=settings().ip_rate_limit_per_minute,
    )


def key_service() -> KeyService:
    return KeyService(keys=resource_store(), hasher=hasher(), ids=ids(), clock=_clock)


def audit_service() -> AuditService:
    return AuditService(audit=resource_store())


def usage_service() -> UsageService:
    return UsageService(counters=counter_store(), clock=_clock)


def operator_service() -> OperatorService:
    store = resource_store()
    return OperatorService(accounts=store, keys=store, key_service=key_service(), ids=ids(), clock=_clock)


# -- sending ------------------------------------------------------------------------------------


@cache
def message_store() -> DynamoMessageStore:
    config = settings()
    return DynamoMessageStore(client("dynamodb"), config.messages_table, config.events_table)


@cache
def event_store() -> DynamoEventStore:
    return DynamoEventStore(client("dynamodb"), settings().events_table)


@cache
def suppressions() -> DynamoSuppressions:
    return DynamoSuppressions(client("dynamodb"), settings().suppressions_table)


@cache
def vault() -> KmsVault:
    config = settings()
    return KmsVault(client("kms"), client("s3"), config.content_key_id, config.content_bucket)


@cache
def dispatch_queue() -> SqsDispatchQueue:
    config = settings()
    return SqsDispatchQueue(
        client("sqs"),
        client("scheduler"),
        queue_url=config.send_queue_url,
        queue_arn=config.send_queue_arn,
        scheduler_role_arn=config.scheduler_role_arn,
        clock=_clock,
        max_delay_seconds=config.queue_max_delay_seconds,
    )


@cache
def sending_domains() -> DynamoSendingDomains:
    config = settings()
    return DynamoSendingDomains(client("dynamodb"), config.resources_table, client("kms"), config.content_key_id)


@cache
def tracking_secret() -> Callable[[], bytes]:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    provider = SecretsProvider(boto3_client=client("secretsmanager"))
    secret_id = settings().tracking_secret_id
    return lambda: str(provider.get(secret_id, max_age=300)).encode()


@cache
def mx_resolver() -> MxResolver:
    return MxResolver(settings().dns_resolver)


@cache
def transports() -> dict[str, Transport]:
    config = settings()
    return {
        "test": SimulatorTransport(),
        "smtp": SmtpTransport(
            relay=Relay.parse(config.smtp_relay),
            resolver=mx_resolver(),
            mx_port=config.smtp_mx_port,
            helo_name=config.smtp_helo_name,
        ),
        "ses": SesTransport(client("sesv2"), config.ses_configuration_set or None),
    }


def transport_for(message: Message) -> Transport:
    """Test messages never leave the machine; live ones take the configured transport."""
    return transports()["test" if message.test else settings().outbound_transport]


@lru_cache(maxsize=1024)
def _retention(account_id: str) -> int:
    account = resource_store().get_account(account_id)
    return account.limits.retention_days if account else PLAN_LIMITS[Plan.FREE].retention_days


def retention_days(account_id: str) -> int:
    return _retention(account_id)


def links() -> LinkMaker | None:
    base_url = settings().public_base_url
    return LinkMaker(base_url, tracking_secret()()) if base_url else None


def send_service() -> SendService:
    store = resource_store()
    return SendService(
        messages=message_store(),
        vault=vault(),
        queue=dispatch_queue(),
        quotas=counter_store(),
        suppressions=suppressions(),
        domains=sending_domains(),
        templates=store,
        accounts=store,
        check_webhook_url=url_guard().check_without_dns,
        ids=ids(),
        clock=_clock,
    )


def template_service() -> TemplateService:
    return TemplateService(templates=resource_store(), ids=ids(), clock=_clock)


# -- webhooks -----------------------------------------------------------------------------------


@cache
def webhook_endpoints() -> DynamoWebhookEndpoints:
    config = settings()
    return DynamoWebhookEndpoints(client("dynamodb"), config.resources_table, client("kms"), config.content_key_id)


@cache
def url_guard() -> ResolvingUrlGuard:
    return ResolvingUrlGuard(allow_private=settings().allow_private_webhook_urls)


def webhook_service() -> WebhookService:
    return WebhookService(endpoints=webhook_endpoints(), guard=url_guard(), ids=ids(), clock=_clock)


def dispatcher(worker_id: str) -> Dispatcher:
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
        clock=_clock,
        worker_id=worker_id,
    )


def tracking_service() -> TrackingService:
    return TrackingService(
        messages=message_store(),
        events=event_store(),
        suppressions=suppressions(),
        secret=tracking_secret(),
        retention_days=retention_days,
        clock=_clock,
    )


def event_service() -> EventService:
    return EventService(
        events=event_store(), hasher=hasher(), clock=_clock, budget_ms=settings().events_query_budget_ms
    )


@cache
def export_jobs() -> DynamoExportJobs:
    return DynamoExportJobs(client("dynamodb"), settings().jobs_table)


@cache
def export_files() -> S3ExportFiles:
    # Its own client: presigned URLs must be SigV4 (botocore may presign S3 with SigV2 otherwise).
    s3 = boto3.session.Session().client("s3", config=_BOTO_CONFIG.merge(Config(signature_version="s3v4")))
    return S3ExportFiles(s3, settings().exports_bucket)


def export_service() -> ExportService:
    return ExportService(
        jobs=export_jobs(),
        queue=SqsExportQueue(client("sqs"), settings().export_queue_url),
        files=export_files(),
        events=event_store(),
        audit=resource_store(),
        ids=ids(),
        clock=_clock,
    )


def feedback_service() -> FeedbackService:
    return FeedbackService(messages=message_store(), suppressions=suppressions(), retention_days=retention_days)


# -- webhooks -----------------------------------------------------------------------------------


@cache
def signing_keys() -> DynamoSigningKeys:
    config = settings()
    return DynamoSigningKeys(client("dynamodb"), config.resources_table, client("kms"), config.content_key_id)


@cache
def webhook_deliveries() -> DynamoDeliveryStore:
    return DynamoDeliveryStore(client("dynamodb"), settings().webhook_deliveries_table)


@cache
def webhook_http() -> WebhookHttp:
    # Cached (it holds connection pools and tokens), so it is given the process's clock as it is
    # at each call, not the one installed when it was built.
    return WebhookHttp(_CurrentClock(), url_guard().vet, ca_bundle=settings().webhook_ca_bundle or None)


def webhook_deliverer() -> WebhookDeliverer:
    config = settings()
    return WebhookDeliverer(
        deliveries=webhook_deliveries(),
        endpoints=webhook_endpoints(),
        signer=signing_keys(),
        client=webhook_http(),
        workflow=StepFunctionsRetry(client("stepfunctions"), config.webhook_retry_state_machine_arn),
        notifier=OwnerNotifier(
            resource_store(), config.notifications_from, ses=client("sesv2"), relay=Relay.parse(config.smtp_relay)
        ),
        retention_days=retention_days,
        clock=_clock,
    )


def signing_key_service() -> SigningKeyService:
    return SigningKeyService(signing_keys(), _clock)


def delivery_history_service() -> DeliveryHistoryService:
    return DeliveryHistoryService(
        deliveries=webhook_deliveries(), endpoints=webhook_endpoints(), hasher=hasher(), clock=_clock
    )


@cache
def resend_jobs() -> DynamoResendJobs:
    return DynamoResendJobs(client("dynamodb"), settings().jobs_table)


def webhook_resend_service() -> WebhookResendService:
    return WebhookResendService(
        jobs=resend_jobs(),
        queue=SqsResendQueue(client("sqs"), settings().resend_queue_url),
        deliveries=webhook_deliveries(),
        endpoints=webhook_endpoints(),
        audit=resource_store(),
        ids=ids(),
        retention_days=retention_days,
        resend_attempt=lambda delivery_id: webhook_deliverer().resend_attempt(delivery_id),  # the worker's only
        clock=_clock,
    )
