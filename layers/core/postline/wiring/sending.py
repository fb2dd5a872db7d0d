"""The sending area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ContentBucket, ContentKey, Events, Idempotency, Messages, SendQueue
from postline.wiring import accounts, domains, ip_pools, keys, lists, shared, suppressions, templates, usage, webhooks
from postline.wiring.registry import built_once, bulk_client, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.lists.send_service import ListSendService
    from postline.sending.idempotency import PowertoolsIdempotency
    from postline.sending.outbox import Outbox
    from postline.sending.queue import SqsDispatchQueue
    from postline.sending.service import SendService
    from postline.sending.store import DynamoMessageStore
    from postline.sending.vault import KmsVault


@built_once()
def message_store() -> DynamoMessageStore:
    from postline.sending.store import DynamoMessageStore

    # Every call of the message store skips botocore's walk of each attribute (a batch writes its
    # messages and events 25 to a BatchWriteItem): the store builds every request itself, and
    # DynamoDB still validates each one.
    return DynamoMessageStore(bulk_client("dynamodb"), settings(Messages).table, settings(Events).table)


@built_once()
def vault() -> KmsVault:
    from postline.sending.vault import KmsVault

    return KmsVault(client("kms"), client("s3"), settings(ContentKey).key_id, settings(ContentBucket).bucket)


@built_once()
def dispatch_queue() -> SqsDispatchQueue:
    from postline.sending.queue import SqsDispatchQueue

    return SqsDispatchQueue(shared.delayed_queue(settings(SendQueue).url, settings(SendQueue).arn))


def outbox() -> Outbox:
    """The messages table's stream consumer that queues the jobs of messages stored to go out now."""
    from postline.sending.outbox import Outbox

    return Outbox(dispatch_queue(), clock())


@built_once()
def idempotency() -> PowertoolsIdempotency:
    from postline.sending.idempotency import PowertoolsIdempotency

    return PowertoolsIdempotency(client("dynamodb"), settings(Idempotency).table)


def send_service() -> SendService:
    from postline.sending.service import SendService

    return SendService(
        messages=message_store(),
        vault=vault(),
        queue=dispatch_queue(),
        quotas=usage.pooled_quotas(),
        suppressions=suppressions.send_suppressions(),
        domains=domains.organisation_domains(),
        templates=templates.template_store(),
        accounts=accounts.account_store(),
        check_webhook_url=webhooks.url_guard().check_without_dns,
        idempotency=idempotency(),
        ids=shared.ids(),
        clock=clock(),
        meter=shared.meter(),
        lists=lists.lists_store(),
        list_sends=lists.list_send_jobs(),
        list_queue=lists.list_job_queue(),
        ip_pools=ip_pools.source_picker(),
    )


def list_send_service() -> ListSendService:
    """The list worker's fan-out of list sends, and GET /v3/lists/{id}/sends/{send_id}."""
    from postline.lists import sends
    from postline.lists.send_service import ListSendService, StoredPrincipals

    return ListSendService(
        jobs=lists.list_send_jobs(),
        lists=lists.lists_store(),
        sender=send_service(),
        principals=StoredPrincipals(keys=keys.key_store(), accounts=accounts.account_store()),
        queue=lists.list_job_queue(),
        clock=clock(),
        page_members=sends.PAGE_MEMBERS,  # read when built (the crash harness makes pages small)
        pages_per_run=sends.PARALLEL_PAGES_PER_RUN,
        parallel_pages=sends.PARALLEL_PAGES,
        fanout_min_pages=sends.FANOUT_MIN_PAGES,
    )
