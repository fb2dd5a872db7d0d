"""The uploads area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ExportFiles, Resources
from postline.wiring import accounts, shared, tracking
from postline.wiring.registry import built_once, client, clock, presigning_s3, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.uploads.files import S3UploadFiles
    from postline.uploads.service import UploadService
    from postline.uploads.store import DynamoTrackingHosts, DynamoUploadStore


@built_once()
def upload_store() -> DynamoUploadStore:
    from postline.uploads.store import DynamoUploadStore

    return DynamoUploadStore(client("dynamodb"), settings(Resources).table)


@built_once()
def upload_files() -> S3UploadFiles:
    from postline.uploads.files import S3UploadFiles

    return S3UploadFiles(presigning_s3(), settings(ExportFiles).bucket)


@built_once()
def tracking_hosts() -> DynamoTrackingHosts:
    from postline.uploads.store import DynamoTrackingHosts

    return DynamoTrackingHosts(client("dynamodb"), settings(Resources).table)


def upload_service() -> UploadService:
    from postline.uploads.service import UploadService

    return UploadService(
        uploads=upload_store(),
        files=upload_files(),
        hosts=tracking_hosts(),
        accounts=accounts.account_store(),
        secret=tracking.tracking_secret(),
        ids=shared.ids(),
        clock=clock(),
    )
