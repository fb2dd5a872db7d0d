"""The exports area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ExportFiles, ExportQueue, Jobs
from postline.wiring import audit, events, shared
from postline.wiring.registry import built_once, client, clock, presigning_s3, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.exports.files import S3ExportFiles
    from postline.exports.service import ExportService
    from postline.exports.store import DynamoExportJobs


@built_once()
def export_jobs() -> DynamoExportJobs:
    from postline.exports.store import DynamoExportJobs

    return DynamoExportJobs(client("dynamodb"), settings(Jobs).table)


@built_once()
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
        events=events.event_store(),
        audit=audit.audit_store(),
        ids=shared.ids(),
        clock=clock(),
    )
