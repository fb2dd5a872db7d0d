"""The lists area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Jobs, ListJobQueue, Resources
from postline.wiring import audit, shared
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.lists.job_queue import SqsListJobQueue
    from postline.lists.send_store import DynamoListSends
    from postline.lists.service import ListService
    from postline.lists.store import DynamoLists


@built_once()
def lists_store() -> DynamoLists:
    from postline.lists.store import DynamoLists

    return DynamoLists(client("dynamodb"), settings(Resources).table)


@built_once()
def list_job_queue() -> SqsListJobQueue:
    from postline.lists.job_queue import SqsListJobQueue

    queue = settings(ListJobQueue)
    return SqsListJobQueue(client("sqs"), queue.url, lambda: shared.delayed_queue(queue.url, queue.arn))


@built_once()
def list_send_jobs() -> DynamoListSends:
    from postline.lists.send_store import DynamoListSends

    return DynamoListSends(client("dynamodb"), settings(Jobs).table)


@built_once()
def audited_list_send_jobs() -> DynamoListSends:
    """The list routes' list sends: a cancel writes its audit entry (the resources table) in the
    same transaction as its status move."""
    from postline.lists.send_store import DynamoListSends

    return DynamoListSends(client("dynamodb"), settings(Jobs).table, settings(Resources).table)


def list_service() -> ListService:
    from postline.lists.service import ListService

    return ListService(
        store=lists_store(),
        queue=list_job_queue(),
        sends=audited_list_send_jobs(),
        audit=audit.audit_store(),
        ids=shared.ids(),
        clock=clock(),
    )
