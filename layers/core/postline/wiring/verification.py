"""The verification area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters, ExportFiles, Jobs, Outbound, Resources, VerificationChecks, VerifyQueue
from postline.wiring import accounts, shared, signing_keys, suppressions, webhook_delivery, webhooks
from postline.wiring.registry import built_once, client, clock, presigning_s3, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.shared.csv_files import S3CsvFiles
    from postline.verification.activity import ActivityRecorder
    from postline.verification.bulk_completion import BulkCompletion
    from postline.verification.bulk_service import BulkVerificationService
    from postline.verification.ports import DomainFacts, MailboxProber, MailRoutes
    from postline.verification.proof_service import ProofService, ProofVerifier
    from postline.verification.rdap import RdapRegistrations
    from postline.verification.service import CachedDomainFacts, CachedRoutes, ValidationService
    from postline.verification.smtp_probe import SmtpMailboxProber
    from postline.verification.store import DynamoActivity


@built_once()
def mailbox_prober() -> MailboxProber:
    from postline.verification.smtp_probe import NoMailboxProber, RelayMailboxProber

    checks = settings(VerificationChecks)
    if checks.smtp_probe == "direct":
        return direct_mailbox_prober()
    return RelayMailboxProber(checks.relay_probe) if checks.smtp_probe == "relay" else NoMailboxProber()


@built_once()
def direct_mailbox_prober() -> SmtpMailboxProber:
    """The SMTP dialogue itself: what the relay task's probe endpoint runs (and "direct" mode)."""
    from postline.verification.smtp_probe import SmtpMailboxProber

    outbound = settings(Outbound)
    return SmtpMailboxProber(shared.egress_guard(), port=outbound.smtp_mx_port, helo_name=outbound.smtp_helo_name)


@built_once()
def registrations() -> RdapRegistrations:
    from postline.verification.rdap import RdapRegistrations

    checks = settings(VerificationChecks)
    return RdapRegistrations(checks.rdap_base_url, ca_bundle=checks.rdap_ca_bundle)


@built_once()
def verification_activity() -> DynamoActivity:
    from postline.verification.store import DynamoActivity

    return DynamoActivity(client("dynamodb"), settings(Counters).table)


def activity_recorder() -> ActivityRecorder:
    from postline.events.store import StreamRecords
    from postline.verification.activity import ActivityRecorder

    return ActivityRecorder(
        stream=StreamRecords(), counters=verification_activity(), clock=clock(), meter=shared.meter()
    )


@built_once()
def bulk_routes() -> CachedRoutes:
    """The bulk worker's DNS: each domain once per process for five minutes."""
    from postline.verification.service import CachedRoutes

    return CachedRoutes(shared.mx_resolver())


@built_once()
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
        routes=routes or shared.mx_resolver(),
        prober=mailbox_prober(),
        registrations=registrations(),
        facts=facts or DynamoDomainFacts(client("dynamodb"), table),
        credits=DynamoVerificationCounters(client("dynamodb"), table),
        activity=verification_activity(),
        complaints=suppressions.complaint_lists(),
        ids=shared.ids(),
        clock=clock(),
    )


def _verify_credits(account_id: str) -> int | None:
    from postline.accounts.domain import PLAN_LIMITS, Plan

    account = accounts.account_store().get_account(account_id)
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
        check_webhook_url=lambda url: webhooks.url_guard().check_without_dns(url),  # built when a POST names one
        completion=bulk_completion,
        proofs=proof_service,
        files=csv_files,
        ids=shared.ids(),
        clock=clock(),
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
        suppressions=suppressions.suppressions(),
        deliverer=webhook_delivery.webhook_deliverer,
        retention_days=accounts.retention_days,
        clock=clock(),
    )


def proof_service() -> ProofService:
    """Bulk jobs' signed result files: written by the worker, presigned for the GET."""
    from postline.verification.proof_service import ProofService
    from postline.verification.proof_store import DynamoProofRegistry, S3ResultFiles

    return ProofService(
        files=S3ResultFiles(presigning_s3(), settings(ExportFiles).bucket),
        registry=DynamoProofRegistry(client("dynamodb"), settings(Resources).table),
        signer=signing_keys.signing_key_service,
        clock=clock(),
    )


def proof_verifier() -> ProofVerifier:
    from postline.verification.proof_service import ProofVerifier
    from postline.verification.proof_store import DynamoProofRegistry

    return ProofVerifier(DynamoProofRegistry(client("dynamodb"), settings(Resources).table))
