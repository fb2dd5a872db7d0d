"""Times UTC cannot hold are bad input (400), not a crash: schemathesis found
`since: 0001-01-01T00:00:00+01:00` answered 500 on POST /v3/events/export."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from postline.events.query import event_filters
from postline.exports.models import EventExportRequest
from postline.shared.errors import ValidationFailed
from postline.shared.times import utc
from postline.webhook_delivery.history import DeliveryFilters
from postline.webhook_resend.models import ResendRequest

TOO_EARLY = "0001-01-01T00:00:00+01:00"


def test_utc_converts_aware_times_and_takes_naive_ones_as_utc() -> None:
    paris = timezone(timedelta(hours=1))
    assert utc(datetime(2026, 3, 1, 13, tzinfo=paris)) == datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert utc(datetime(2026, 3, 1, 12)) == datetime(2026, 3, 1, 12, tzinfo=UTC)
    with pytest.raises(ValueError, match="out of range"):
        utc(datetime.fromisoformat(TOO_EARLY))


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (EventExportRequest, {"since": TOO_EARLY, "until": "2026-03-01T00:00:00Z"}),
        (DeliveryFilters, {"since": TOO_EARLY}),
        (ResendRequest, {"filter": {"endpoint_id": "wh_1", "since": TOO_EARLY}}),
    ],
)
def test_request_models_refuse_a_time_out_of_range(model: type[BaseModel], body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="out of range"):
        model.model_validate(body)


def test_the_events_query_refuses_it_with_a_400() -> None:
    with pytest.raises(ValidationFailed) as refused:
        event_filters(since=TOO_EARLY)
    assert refused.value.status == 400
