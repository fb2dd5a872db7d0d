"""Resend requests (both/neither modes, id bounds, the window, default status), the history's
filters, window, months and cursor, and how a delivery is shown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from postline.shared.errors import ValidationFailed
from postline.webhook_delivery.domain import (
    Attempt,
    AttemptResult,
    Delivery,
    DeliveryStatus,
    Target,
    resend_delivery_id,
    resend_floor,
)
from postline.webhook_delivery.history import (
    DeliveryFilters,
    HistoryCursor,
    decode_cursor,
    delivery_filters,
    encode_cursor,
    history_window,
    month_start_key,
    months_between,
    sort_key,
    split_sort_key,
)
from postline.webhook_delivery.models import delivery_view
from postline.webhook_resend.domain import ResendJob
from postline.webhook_resend.models import ResendRequest, resend_view

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ID = "whd_" + "a" * 32


def _filter(**fields: Any) -> dict[str, Any]:
    return {"endpoint_id": "wh_1", "since": (NOW - timedelta(days=1)).isoformat(), **fields}


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"endpoint_id": "wh_2"},
        {"delivery_ids": [ID], "filter": _filter()},
        {"delivery_ids": []},
        {"delivery_ids": [ID] * 101},
        {"delivery_ids": ["msg_123"]},
        {"filter": _filter(status=[])},
        {"filter": _filter(status=["retrying"])},
        {"filter": _filter(event=["duplicate"])},
        {"filter": {"since": NOW.isoformat()}},
        {"delivery_ids": [ID], "extra": 1},
    ],
)
def test_invalid_bodies_are_refused(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ResendRequest.model_validate(body)


def test_ids_are_deduplicated_in_order_and_100_is_the_most() -> None:
    other = "whd_" + "b" * 32
    assert ResendRequest.model_validate({"delivery_ids": [ID, other, ID]}).unique_ids() == [ID, other]
    assert len(ResendRequest.model_validate({"delivery_ids": [ID] * 100}).delivery_ids or []) == 100


def test_a_filter_defaults_to_failed_and_until_now() -> None:
    request = ResendRequest.model_validate({"filter": _filter()})
    assert request.filter is not None and request.filter.status == [DeliveryStatus.FAILED]
    since, until = request.window(now=NOW, retention_days=365)
    assert (since, until) == (NOW - timedelta(days=1), NOW)


def test_the_window_is_90_days_bounded_by_retention() -> None:
    assert resend_floor(NOW, 365) == NOW - timedelta(days=90)
    assert resend_floor(NOW, 30) == NOW - timedelta(days=30)
    old = ResendRequest.model_validate({"filter": _filter(since=(NOW - timedelta(days=31)).isoformat())})
    assert old.window(now=NOW, retention_days=365)[0] == NOW - timedelta(days=31)
    with pytest.raises(ValidationFailed, match="30 days"):
        old.window(now=NOW, retention_days=30)
    with pytest.raises(ValidationFailed, match="90 days"):
        ResendRequest.model_validate({"filter": _filter(since=(NOW - timedelta(days=91)).isoformat())}).window(
            now=NOW, retention_days=365
        )


@pytest.mark.parametrize(
    ("since", "until"),
    [
        (NOW - timedelta(hours=1), NOW - timedelta(hours=2)),
        (NOW - timedelta(hours=1), NOW - timedelta(hours=1)),
        (NOW + timedelta(hours=1), None),
    ],
)
def test_until_must_be_later_than_since(since: datetime, until: datetime | None) -> None:
    body = _filter(since=since.isoformat(), **({"until": until.isoformat()} if until else {}))
    with pytest.raises(ValidationFailed, match="until"):
        ResendRequest.model_validate({"filter": body}).window(now=NOW, retention_days=365)


def test_an_until_in_the_future_is_now() -> None:
    request = ResendRequest.model_validate({"filter": _filter(until=(NOW + timedelta(days=1)).isoformat())})
    assert request.window(now=NOW, retention_days=30)[1] == NOW


def _delivery() -> Delivery:
    return Delivery(
        id=ID,
        account_id="acct_1",
        endpoint_id="wh_1",
        url="https://hooks.example/in",
        event_id="evt_1",
        event_type="bounced",
        message_id="msg_1",
        body='{"secret":"payload"}',
        created_at=NOW,
        expires_at=0,
    )


def test_a_resend_copies_the_body_once_with_a_deterministic_id() -> None:
    source = _delivery().after(Attempt(number=1, at=NOW, result=AttemptResult.REFUSED, status_code=400, latency_ms=5))
    new_id = resend_delivery_id("rsd_1", source.id)
    assert new_id == resend_delivery_id("rsd_1", source.id) != resend_delivery_id("rsd_2", source.id)
    copy = source.resent(new_id, Target(endpoint_id="wh_2", url="https://other.example/"), NOW, 9)
    assert (copy.body, copy.manual, copy.resent_from, copy.endpoint_id) == (source.body, True, source.id, "wh_2")
    assert (copy.attempts, copy.status, copy.event_id) == ([], DeliveryStatus.PENDING, "evt_1")
    failed = copy.after(Attempt(number=1, at=NOW, result=AttemptResult.RETRYABLE, status_code=503, latency_ms=7))
    assert (failed.status, failed.next_attempt_at) == (DeliveryStatus.FAILED, None)  # never scheduled


def test_the_view_shows_attempts_but_never_the_body() -> None:
    delivery = _delivery().after(
        Attempt(number=1, at=NOW, result=AttemptResult.RETRYABLE, status_code=503, latency_ms=41)
    )
    view = delivery_view(delivery).model_dump(mode="json")
    assert "payload" not in str(view) and "body" not in view
    assert view["event"] == "bounced" and view["status"] == "retrying" and view["resent_from"] is None
    assert view["next_attempt_at"] == "2026-11-21T12:00:30Z"
    assert view["attempts"] == [
        {
            "number": 1,
            "at": "2026-11-21T12:00:00Z",
            "outcome": "retryable",
            "response_code": 503,
            "latency_ms": 41,
            "error": None,
        }
    ]


def test_a_job_view_says_its_mode() -> None:
    job = ResendJob(id="rsd_1", account_id="a", delivery_ids=[ID], created_at=NOW)
    view = resend_view(job).model_dump(mode="json")
    assert view == {
        "id": "rsd_1",
        "status": "queued",
        "endpoint_id": None,
        "mode": "delivery_ids",
        "matched": 0,
        "attempted": 0,
        "succeeded": 0,
        "failed": 0,
        "error_message": None,
        "created_at": "2026-11-21T12:00:00Z",
        "completed_at": None,
    }


def test_history_filters_window_and_months() -> None:
    with pytest.raises(ValidationFailed, match="status"):
        delivery_filters(status="lost")
    with pytest.raises(ValidationFailed, match="since"):
        delivery_filters(since=NOW, until=NOW - timedelta(seconds=1))
    clamped = history_window(DeliveryFilters(since=NOW - timedelta(days=400)), now=NOW, retention_days=30)
    assert clamped is not None and (clamped.since, clamped.until) == (NOW - timedelta(days=30), NOW)
    assert history_window(DeliveryFilters(since=NOW + timedelta(days=1)), now=NOW, retention_days=30) is None
    assert months_between(datetime(2025, 11, 30, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)) == [
        "2026-02",
        "2026-01",
        "2025-12",
        "2025-11",
    ]


def test_the_cursor_is_signed_and_bound_to_its_filters() -> None:
    def sign(text: str) -> str:
        return "k" * 8 + str(abs(hash(text)))

    filters = DeliveryFilters(status=DeliveryStatus.FAILED)
    fingerprint = filters.fingerprint("acct_1", "wh_1")
    cursor = HistoryCursor(fingerprint=fingerprint, since=NOW, until=NOW, at=NOW, delivery_id=ID)
    token = encode_cursor(cursor, sign)
    assert decode_cursor(token, sign, fingerprint=fingerprint) == cursor
    with pytest.raises(ValidationFailed, match="other filters"):
        decode_cursor(token, sign, fingerprint=DeliveryFilters().fingerprint("acct_1", "wh_1"))
    with pytest.raises(ValidationFailed, match="other filters"):
        decode_cursor(token, sign, fingerprint=filters.fingerprint("acct_1", "wh_2"))
    payload, _, mac = token.partition(".")
    with pytest.raises(ValidationFailed, match="not a cursor"):
        decode_cursor(payload[:-2] + "xx." + mac, sign, fingerprint=fingerprint)
    with pytest.raises(ValidationFailed, match="not a cursor"):
        decode_cursor("garbage", sign, fingerprint=fingerprint)


def test_a_sort_key_splits_back_and_a_month_start_sorts_between_months() -> None:
    moment = datetime(2026, 10, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert split_sort_key(sort_key(moment, ID)) == (moment, ID)
    start = month_start_key("2026-11")
    assert sort_key(moment, ID) < start < sort_key(datetime(2026, 11, 1, tzinfo=UTC), ID)
    assert split_sort_key(start) == (datetime(2026, 11, 1, tzinfo=UTC), "")
