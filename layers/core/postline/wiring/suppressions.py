"""The suppressions area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ExportFiles, Jobs, Resources, SuppressionJobQueue, Suppressions
from postline.wiring import audit, exports, keys, shared, usage
from postline.wiring.registry import built_once, bulk_client, client, clock, presigning_s3, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.suppressions.export_service import SuppressionExportService
    from postline.suppressions.import_service import SuppressionImportService
    from postline.suppressions.service import SuppressionService
    from postline.suppressions.store import DynamoSuppressions


def erased_hashes(account_id: str, addresses: list[str]) -> list[str]:
    """The keyed hash each erased address's objection is kept under (data_removals/domain.py), in
    order: the platform pepper, read on first use, so what never sends never reads it."""
    from postline.data_removals.domain import erasure_hash_input

    return keys.hasher().hash_many([erasure_hash_input(account_id, address) for address in addresses])


@built_once()
def suppressions() -> DynamoSuppressions:
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(
        client("dynamodb"), settings(Suppressions).table, settings(Resources).table, erased_hashes=erased_hashes
    )


@built_once()
def send_suppressions() -> DynamoSuppressions:
    """The send path's check (`suppressed`): keys this code builds, up to 25,000 for a 5,000 batch, so
    on the bulk client (botocore's walk of each key against the API model skipped; DynamoDB still
    validates each request), eight reads at a time."""
    from postline.shared.parallel import MAX_WORKERS
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(
        bulk_client("dynamodb"),
        settings(Suppressions).table,
        settings(Resources).table,
        workers=MAX_WORKERS,
        erased_hashes=erased_hashes,
    )


def suppression_service() -> SuppressionService:
    from postline.suppressions.service import SuppressionService

    return SuppressionService(
        store=suppressions(), window=usage.counter_store(), audit=audit.audit_store(), ids=shared.ids(), clock=clock()
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
        window=usage.counter_store(),
        audit=audit.audit_store(),
        ids=shared.ids(),
        clock=clock(),
    )


@built_once()
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
        files=exports.export_files(),
        store=suppressions(),
        audit=audit.audit_store(),
        ids=shared.ids(),
        clock=clock(),
    )


@built_once()
def complaint_lists() -> DynamoSuppressions:
    """The suppression lists, read only (verification's known complainers): it writes nothing, so it
    has no audit table (the API's suppressions() has)."""
    from postline.suppressions.store import DynamoSuppressions

    return DynamoSuppressions(client("dynamodb"), settings(Suppressions).table, audit_table="")
