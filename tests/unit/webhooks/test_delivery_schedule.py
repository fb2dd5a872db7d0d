"""The 7-attempt schedule, its +24 h step, outcomes, signatures and the auto-disable rule."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime, timedelta

import pytest
import stripe
from nacl.signing import SigningKey

from postline.webhook_delivery.domain import (
    Attempt,
    AttemptResult,
    Delivery,
    DeliveryStatus,
    Target,
    auto_disables,
    classify,
    delivery_id,
    ed25519_header,
    hmac_header,
    next_attempt_at,
    signed_content,
)

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
OFFSETS = [timedelta(0), timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1),
           timedelta(hours=6), timedelta(hours=12)]  # fmt: skip


def run(results: list[AttemptResult]) -> list[datetime | None]:
    """The due times the schedule gives after each attempt, each attempt made exactly when due."""
    attempts: list[Attempt] = []
    at = T0
    dues: list[datetime | None] = []
    for number, result in enumerate(results, start=1):
        attempts.append(Attempt(number=number, at=at, result=result, latency_ms=5))
        due = next_attempt_at(attempts)
        dues.append(due)
        if due is None:
            break
        at = due
    return dues


def test_seven_attempts_at_the_spec_offsets_then_over() -> None:
    dues = run([AttemptResult.RETRYABLE] * 7)
    assert len(dues) == 7 and dues[-1] is None
    expected, at = [], T0
    for offset in OFFSETS[1:]:
        at += offset
        expected.append(at)
    assert dues[:-1] == expected
    assert expected[-1] - T0 == timedelta(hours=19, minutes=12, seconds=30)


def test_a_cut_short_attempt_earns_one_more_attempt_24_hours_later() -> None:
    results = [AttemptResult.RETRYABLE, AttemptResult.CUT_SHORT] + [AttemptResult.RETRYABLE] * 6
    dues = run(results)
    assert len(dues) == 8 and dues[-1] is None
    seventh = T0 + sum(OFFSETS[1:], timedelta())
    assert dues[6] == seventh + timedelta(hours=24)
    assert dues[6] - T0 < timedelta(hours=44)  # "up to about 44 hours after the event"


@pytest.mark.parametrize("result", [AttemptResult.SUCCEEDED, AttemptResult.REFUSED])
def test_success_or_refusal_ends_the_schedule(result: AttemptResult) -> None:
    assert run([AttemptResult.RETRYABLE, result]) == [T0 + timedelta(seconds=30), None]


@pytest.mark.parametrize(
    ("status", "cut_short", "expected"),
    [
        (200, False, AttemptResult.SUCCEEDED),
        (204, False, AttemptResult.SUCCEEDED),
        (299, False, AttemptResult.SUCCEEDED),
        (301, False, AttemptResult.RETRYABLE),
        (400, False, AttemptResult.REFUSED),
        (404, False, AttemptResult.REFUSED),
        (410, False, AttemptResult.REFUSED),
        (429, False, AttemptResult.RETRYABLE),
        (500, False, AttemptResult.RETRYABLE),
        (503, False, AttemptResult.RETRYABLE),
        (None, False, AttemptResult.RETRYABLE),
        (None, True, AttemptResult.CUT_SHORT),
    ],
)
def test_classify(status: int | None, cut_short: bool, expected: AttemptResult) -> None:
    assert classify(status, cut_short=cut_short) is expected


def delivery(**changes: object) -> Delivery:
    base = Delivery(
        id="whd_1",
        account_id="acct",
        endpoint_id="wh_1",
        url="https://hooks.example/in",
        event_id="evt_1",
        event_type="delivered",
        message_id="msg_1",
        body="{}",
        created_at=T0,
        expires_at=0,
    )
    return base.model_copy(update=changes)


def test_a_delivery_moves_through_its_statuses() -> None:
    first = delivery().after(Attempt(number=1, at=T0, result=AttemptResult.RETRYABLE, status_code=503, latency_ms=3))
    assert first.status is DeliveryStatus.RETRYING and first.next_attempt_at == T0 + timedelta(seconds=30)
    done = first.after(Attempt(number=2, at=T0, result=AttemptResult.SUCCEEDED, status_code=200, latency_ms=3))
    assert done.status is DeliveryStatus.SUCCEEDED and done.next_attempt_at is None


def test_a_manual_resend_is_one_attempt_never_scheduled() -> None:
    failed = delivery(manual=True).after(Attempt(number=1, at=T0, result=AttemptResult.RETRYABLE, latency_ms=1))
    assert failed.status is DeliveryStatus.FAILED and failed.next_attempt_at is None


def test_delivery_ids_are_deterministic_per_event_and_target() -> None:
    a = Target(endpoint_id="wh_1", url="https://a.example")
    b = Target(endpoint_id=None, url="https://a.example")
    assert delivery_id("evt_1", a) == delivery_id("evt_1", a)
    assert len({delivery_id("evt_1", a), delivery_id("evt_1", b), delivery_id("evt_2", a)}) == 3


def test_hmac_header_verifies_with_stripes_verifier_for_each_valid_secret() -> None:
    body = '{"event":"delivered"}'
    now = int(datetime.now(UTC).timestamp())
    header = hmac_header(now, body, ["whsec_new_secret", "whsec_old_secret"])
    for secret in ("whsec_new_secret", "whsec_old_secret"):
        assert stripe.WebhookSignature.verify_header(body, header, secret, tolerance=300)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(body, header, "whsec_other", tolerance=300)
    expected = hmac.new(b"whsec_new_secret", f"{now}.{body}".encode(), hashlib.sha256).hexdigest()
    assert header.split(",")[1] == f"v1={expected}"


def test_ed25519_header_verifies_with_pynacl() -> None:
    key = SigningKey.generate()
    body = '{"event":"opened"}'
    signature = key.sign(signed_content(1_800_000_000, body)).signature
    header = ed25519_header(1_800_000_000, signature, "kid-1")
    parts = dict(part.split("=", 1) for part in header.split(","))
    assert parts["t"] == "1800000000" and parts["kid"] == "kid-1"
    key.verify_key.verify(f"{parts['t']}.{body}".encode(), base64.b64decode(parts["v1"]))


def test_auto_disable_needs_twenty_failures_and_72_hours() -> None:
    assert not auto_disables(19, T0, T0 + timedelta(hours=100))
    assert not auto_disables(20, T0, T0 + timedelta(hours=71, minutes=59))
    assert auto_disables(20, T0, T0 + timedelta(hours=72))
    assert not auto_disables(25, None, T0)
