"""POST /v3/webhooks/deliveries/resend and its job: the request and the job's view."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from postline.events.query import PublicEventType
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed
from postline.shared.times import UtcDatetime
from postline.webhook_delivery.domain import DeliveryStatus, resend_floor
from postline.webhook_resend.domain import (
    MAX_RESEND_IDS,
    DeliveryId,
    EndpointId,
    FinalStatus,
    ResendJob,
    ResendStatus,
    _Strict,
)


class ResendFilter(_Strict):
    """One endpoint's original deliveries (not earlier resends) in a window, by status and type."""

    endpoint_id: EndpointId = Field(description="The endpoint whose history is searched (wh_...).")
    since: UtcDatetime = Field(description="Deliveries created at or after (ISO 8601); within the resend window.")
    until: UtcDatetime | None = Field(default=None, description="Deliveries created at or before; default now.")
    status: list[FinalStatus] = Field(
        default_factory=lambda: [DeliveryStatus.FAILED],  # type: ignore[arg-type]
        min_length=1,
        max_length=3,
        description='Statuses to resend; default ["failed"].',
    )
    event: list[PublicEventType] | None = Field(
        default=None, min_length=1, max_length=11, description="Event types to resend; default all."
    )


class ResendRequest(_Strict):
    """Exactly one of delivery_ids and filter; endpoint_id optionally sends everything elsewhere."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={
            "oneOf": [{"required": ["delivery_ids"]}, {"required": ["filter"]}],
            "examples": [
                {"delivery_ids": ["whd_3f1c0a9e5b7d4e2f8a6c1b0d9e7f5a3c"]},
                {
                    "filter": {"endpoint_id": "wh_0193a1b2c3d4e5f6a7b8c9d0", "since": "2026-11-20T00:00:00Z"},
                    "endpoint_id": "wh_0193a1b2c3d4e5f6a7b8c9ff",
                },
            ],
        },
    )

    delivery_ids: list[DeliveryId] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_RESEND_IDS,
        description="1-100 deliveries (whd_...) of this account created within the resend window.",
    )
    filter: ResendFilter | None = Field(default=None, description="Resend what matches (at most 10,000).")
    endpoint_id: EndpointId | None = Field(
        default=None,
        description="Destination endpoint (enabled, of this account); default each delivery's own endpoint, "
        "or its message's webhook_url.",
    )

    @model_validator(mode="after")
    def _exactly_one_mode(self) -> ResendRequest:
        if (self.delivery_ids is None) == (self.filter is None):
            raise ValueError("give exactly one of delivery_ids and filter")
        return self

    def unique_ids(self) -> list[str]:
        return list(dict.fromkeys(self.delivery_ids or []))

    def window(self, *, now: datetime, retention_days: int) -> tuple[datetime, datetime]:
        """The filter's [since, until], checked against the resend window; until defaults to now."""
        assert self.filter is not None
        floor = resend_floor(now, retention_days)
        since = self.filter.since
        until = min(self.filter.until or now, now)
        if since < floor:
            raise ValidationFailed(
                f"filter.since: deliveries can be resent for {(now - floor).days} days; "
                f"since must be at or after {floor.isoformat()}"
            )
        if until <= since:
            raise ValidationFailed("filter.until: must be later than since (and since not in the future)")
        return since, until


class ResendJobView(Model):
    """GET /v3/webhooks/deliveries/resend/{id}, and the 202 of the POST."""

    id: str = Field(examples=["rsd_0193a1b2c3d4a1b2c3d4e5f6a7b8"])
    status: ResendStatus = Field(description="queued, running (matched known), completed.")
    endpoint_id: str | None = Field(description="The destination endpoint; null: each delivery's own.")
    mode: Literal["delivery_ids", "filter"]
    matched: int = Field(description="Deliveries selected; known once running.")
    attempted: int = Field(description="Resends whose single attempt is over; the job completes at matched.")
    succeeded: int
    failed: int
    error_message: str | None = Field(description="Why the job stopped early, e.g. over 10,000 matches.")
    created_at: datetime
    completed_at: datetime | None


def resend_view(job: ResendJob) -> ResendJobView:
    return ResendJobView(
        id=job.id,
        status=job.status,
        endpoint_id=job.endpoint_id,
        mode="filter" if job.filter is not None else "delivery_ids",
        matched=job.matched,
        attempted=job.attempted,
        succeeded=job.succeeded,
        failed=job.failed,
        error_message=job.error_message,
        created_at=job.created_at,
        completed_at=job.completed_at,
    )
