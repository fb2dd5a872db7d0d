"""Resending webhook deliveries (POST /v3/webhooks/deliveries/resend): the request, the job, its views.

A resend job selects recorded deliveries (by id, or by a filter over one endpoint's history) and
makes one MANUAL delivery of each: the same body, a single attempt, never scheduled, never counted
against the endpoint's failure streak (the interface's rules). It runs asynchronously because an attempt may
take 30 s; its counters say how far it got.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import ConfigDict, StringConstraints

from postline.shared.base import Model
from postline.webhook_delivery.domain import DeliveryStatus

MAX_RESEND_IDS = 100
MAX_FILTER_MATCHES = 10_000  # past it a filter job stops with an error and resends nothing

DeliveryId = Annotated[str, StringConstraints(pattern=r"^whd_[0-9a-f]{32}$")]
EndpointId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
# A filter selects deliveries that are over; one still retrying may yet succeed by itself.
FinalStatus = Literal[DeliveryStatus.FAILED, DeliveryStatus.SUCCEEDED, DeliveryStatus.CANCELLED]


class _Strict(Model):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResendStatus(StrEnum):
    QUEUED = "queued"  # waiting for the worker to select the deliveries
    RUNNING = "running"  # `matched` known; attempts under way
    COMPLETED = "completed"  # every attempt made (or the job stopped: see error_message)


class StoredFilter(Model):
    """A filter as the job runs it: the window fixed when it was accepted."""

    endpoint_id: str
    since: datetime
    until: datetime
    status: list[DeliveryStatus]
    event: list[str] | None


class ResendJob(Model):
    id: str  # rsd_...
    account_id: str
    status: ResendStatus = ResendStatus.QUEUED
    endpoint_id: str | None = None  # the destination; None: each delivery's own target
    delivery_ids: list[str] | None = None
    filter: StoredFilter | None = None
    matched: int = 0
    attempted: int = 0
    succeeded: int = 0
    failed: int = 0
    error_message: str | None = None
    created_at: datetime
    completed_at: datetime | None = None


class ResendMessage(Model):
    """What the resend queue carries: a job to resolve, or (delivery_id) one resend to attempt."""

    account_id: str
    job_id: str
    delivery_id: str | None = None


def too_many_matches_message(limit: int) -> str:
    return f"The filter matched more than {limit:,} deliveries; nothing was resent. Narrow since/until or status."
