"""The data_removals area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import (
    ContentBucket,
    Counters,
    DataRemovalQueue,
    Events,
    ExportFiles,
    Idempotency,
    Jobs,
    Messages,
    Resources,
    WebhookDeliveries,
)
from postline.wiring import keys, shared, signing_keys, subaccounts, suppressions
from postline.wiring.registry import client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.data_removals.ports import Holding
    from postline.data_removals.service import DataRemovalService, DataRemovalWorker
    from postline.data_removals.store import DynamoRemovalJobs, SqsRemovalQueue


def removal_jobs() -> DynamoRemovalJobs:
    from postline.data_removals.store import DynamoRemovalJobs

    return DynamoRemovalJobs(client("dynamodb"), settings(Jobs).table, settings(Resources).table)


def removal_queue() -> SqsRemovalQueue:
    from postline.data_removals.store import SqsRemovalQueue

    return SqsRemovalQueue(client("sqs"), settings(DataRemovalQueue).url)


def data_removal_service() -> DataRemovalService:
    from postline.data_removals.service import DataRemovalService
    from postline.data_removals.store import PepperedAddressHasher, SubaccountOrganisation

    return DataRemovalService(
        jobs=removal_jobs(),
        queue=removal_queue(),
        hasher=PepperedAddressHasher(keys.hasher()),
        organisation=SubaccountOrganisation(subaccounts.subaccount_store()),
        ids=shared.ids(),
        clock=clock(),
    )


def data_removal_worker() -> DataRemovalWorker:
    from postline.data_removals.holdings import (
        DeliveriesHolding,
        FilesHolding,
        MessagesHolding,
        RecordsHolding,
        ReplaysHolding,
        SuppressionsHolding,
        UploadDownloads,
        VerificationsHolding,
    )
    from postline.data_removals.service import DataRemovalWorker

    db, s3 = client("dynamodb"), client("s3")
    resources, jobs = settings(Resources).table, settings(Jobs).table
    holdings: dict[str, Holding] = {
        "messages": MessagesHolding(
            db, s3, events=settings(Events).table, messages=settings(Messages).table,
            counters=settings(Counters).table, content_bucket=settings(ContentBucket).bucket,
            resources=resources, deliveries=settings(WebhookDeliveries).table, clock=clock(),
        ),
        "deliveries": DeliveriesHolding(
            db, resources=resources, deliveries=settings(WebhookDeliveries).table, clock=clock()
        ),
        "verifications": VerificationsHolding(db, counters=settings(Counters).table, jobs=jobs),
        "files": FilesHolding(s3, bucket=settings(ExportFiles).bucket),
        "suppressions": SuppressionsHolding(suppressions.suppressions()),
        "records": RecordsHolding(db, resources=resources, jobs=jobs),
        "replays": ReplaysHolding(db, table=settings(Idempotency).table, messages=settings(Messages).table),
        "uploads": UploadDownloads(),
    }  # fmt: skip
    return DataRemovalWorker(
        jobs=removal_jobs(),
        queue=removal_queue(),
        holdings=holdings,
        signer=signing_keys.signing_key_service(),
        ids=shared.ids(),
        clock=clock(),
    )
