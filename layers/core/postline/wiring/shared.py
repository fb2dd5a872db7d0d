"""The shared kernel's adapters every root builds on: ids, the meter, MX lookups, delayed queues and
the outbound address policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Dns, EgressPolicy, SendQueue
from postline.shared.ports import Meter
from postline.wiring.registry import built_once, bulk_client, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.egress.guard import EgressGuard
    from postline.shared.delayed_queue import DelayedQueue
    from postline.shared.ids import RandomIds
    from postline.shared.mx import MxResolver


@built_once()
def ids() -> RandomIds:
    from postline.shared.ids import RandomIds

    return RandomIds()


def meter() -> Meter:
    """The Meter port's adapter, whose counts the functions' `@metrics.log_metrics` publish. Imported
    at the first call: observability builds the service's Powertools Logger, which the CLI and the
    embedded runtime (they import wiring before they set up logging) must not get at import."""
    from postline.observability import meter as emf_meter

    return emf_meter


@built_once()
def mx_resolver() -> MxResolver:
    from postline.shared.mx import MxResolver

    return MxResolver(settings(Dns).resolver)


def delayed_queue(url: str, arn: str) -> DelayedQueue:
    """A queue whose long waits are EventBridge Scheduler schedules (the send queue's settings). Its
    SQS batches are sent as built (bulk_client: a 5,000 batch's 500 SendMessageBatch calls)."""
    from postline.shared.delayed_queue import DelayedQueue

    queue = settings(SendQueue)
    return DelayedQueue(
        bulk_client("sqs"),
        client("scheduler"),
        queue_url=url,
        queue_arn=arn,
        scheduler_role_arn=queue.scheduler_role_arn,
        clock=clock(),
        max_delay_seconds=queue.max_delay_seconds,
    )


@built_once()
def egress_guard() -> EgressGuard:
    """The outbound address policy for hosts customers' DNS names (MX hosts, mta-sts.<domain>, https
    rua), resolved through the relay's DNS; webhooks apply it through webhooks.url_guard()."""
    from postline.egress.guard import EgressGuard, dns_resolve

    return EgressGuard(allow_private=settings(EgressPolicy).allow_private, resolve=dns_resolve(settings(Dns).resolver))
