"""The relay area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import boto3
from botocore.config import Config

from postline.config import RelayQueue
from postline.wiring import delivery, tlsrpt
from postline.wiring.registry import BOTO_CONFIG, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.relay.worker import RelayWorker


def relay_worker(worker_id: str) -> RelayWorker:
    """The SMTP relay task's loop: its queue, long-polled, into a dispatcher that delivers."""
    from postline.relay.worker import LONG_POLL_SECONDS, RelayWorker

    relay = settings(RelayQueue)
    # The long poll holds a receive open for up to 20 s: longer than the clients' read timeout.
    sqs = boto3.session.Session().client("sqs", config=BOTO_CONFIG.merge(Config(read_timeout=LONG_POLL_SECONDS + 10)))
    return RelayWorker(
        sqs,
        relay.url,
        relay.arn,
        lambda: delivery.dispatcher(worker_id, hand_over=False),
        reports=lambda: tlsrpt.tls_report_service(worker_id),
    )
