"""Delivery outcomes: the retry schedule, SMTP replies, and the simulator's draw (a test key's test_outcomes)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from postline.delivery.outcomes import (
    MAX_ATTEMPTS,
    RETRY_DELAYS_SECONDS,
    BounceClass,
    BounceType,
    OutcomeKind,
    classify_bounce,
    classify_smtp,
    enhanced_code,
    next_retry_at,
    retry_delay,
    simulate,
)
from postline.keys.domain import SEND_OUTCOMES
from postline.shared.addresses import SIMULATOR_DOMAIN

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
# Chi-square critical value for 2 degrees of freedom at p = 0.001.
CHI_SQUARE_2DF_P001 = 13.816


def at_simulator(local: str) -> str:
    return f"{local}@{SIMULATOR_DOMAIN}"


# --- retry schedule -----------------------------------------------------------------------------


def test_the_retry_schedule_backs_off_from_a_minute_to_eight_hours() -> None:
    assert [retry_delay(attempt) for attempt in range(1, MAX_ATTEMPTS)] == [60, 300, 900, 1_800, 3_600, 7_200, 28_800]


def test_there_are_eight_attempts_in_all() -> None:
    assert MAX_ATTEMPTS == len(RETRY_DELAYS_SECONDS) + 1 == 8


def test_retry_delays_only_grow() -> None:
    assert list(RETRY_DELAYS_SECONDS) == sorted(set(RETRY_DELAYS_SECONDS))


@pytest.mark.parametrize("attempt", [MAX_ATTEMPTS, MAX_ATTEMPTS + 1, 0, -1])
def test_no_retry_after_the_last_attempt_or_before_the_first(attempt: int) -> None:
    assert retry_delay(attempt) is None
    assert next_retry_at(NOW, attempt) is None


@pytest.mark.parametrize("attempt", range(1, MAX_ATTEMPTS))
def test_next_retry_is_now_plus_the_delay(attempt: int) -> None:
    assert next_retry_at(NOW, attempt) == NOW + timedelta(seconds=RETRY_DELAYS_SECONDS[attempt - 1])


# --- SMTP replies -------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [250, 251, 200, 299])
def test_2xx_is_delivered(code: int) -> None:
    outcome = classify_smtp(code, "2.0.0 OK")
    assert outcome.kind is OutcomeKind.DELIVERED
    assert outcome.bounce_type is None
    assert outcome.smtp_response == f"{code} 2.0.0 OK"


@pytest.mark.parametrize(
    ("code", "text"), [(421, "4.7.0 Try later"), (450, "4.2.1 Busy"), (452, "4.2.2 Full"), (499, "")]
)
def test_4xx_is_deferred(code: int, text: str) -> None:
    outcome = classify_smtp(code, text)
    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.bounce_type is None
    assert outcome.reason == "temporary failure"


@pytest.mark.parametrize(
    "text", ["5.2.2 Mailbox full", "5.2.1 Mailbox disabled", "5.7.1 Message rejected by policy", "5.3.4 Too big"]
)
def test_5xx_with_a_mailbox_full_or_policy_subcode_is_a_soft_bounce(text: str) -> None:
    outcome = classify_smtp(552, text)
    assert (outcome.kind, outcome.bounce_type) == (OutcomeKind.BOUNCED, BounceType.SOFT)


@pytest.mark.parametrize(
    ("code", "text"), [(550, "5.1.1 User unknown"), (550, "No such user"), (554, "5.0.0 Rejected"), (553, "")]
)
def test_other_5xx_is_a_hard_bounce(code: int, text: str) -> None:
    outcome = classify_smtp(code, text)
    assert (outcome.kind, outcome.bounce_type) == (OutcomeKind.BOUNCED, BounceType.HARD)
    assert outcome.reason == "recipient rejected"


def test_the_smtp_response_joins_code_and_text() -> None:
    assert classify_smtp(550, "5.1.1 User unknown").smtp_response == "550 5.1.1 User unknown"
    assert classify_smtp(250, "").smtp_response == "250"


# --- the simulator: addresses -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "kind", "bounce_type"),
    [
        ("delivered", OutcomeKind.DELIVERED, None),
        ("bounce", OutcomeKind.BOUNCED, BounceType.HARD),
        ("soft_bounce", OutcomeKind.BOUNCED, BounceType.SOFT),
        ("complaint", OutcomeKind.COMPLAINED, None),
        ("ooto", OutcomeKind.DELIVERED, None),
        ("suppressionlist", OutcomeKind.BOUNCED, BounceType.HARD),
    ],
)
def test_simulator_addresses_decide_the_outcome(local: str, kind: OutcomeKind, bounce_type: BounceType | None) -> None:
    outcome = simulate("msg_1", at_simulator(local), None, 1)
    assert (outcome.kind, outcome.bounce_type) == (kind, bounce_type)


def test_the_ooto_address_is_delivered_with_an_auto_reply() -> None:
    assert simulate("msg_1", at_simulator("ooto"), None, 1).data == {"auto_reply": "ooto"}


def test_the_complaint_address_is_an_abuse_complaint() -> None:
    assert simulate("msg_1", at_simulator("complaint"), None, 1).data == {"complaint_type": "abuse"}


def test_the_suppressionlist_address_bounces_as_suppressed() -> None:
    assert simulate("msg_1", at_simulator("suppressionlist"), None, 1).reason == "suppressed"


def test_the_soft_bounce_address_answers_mailbox_full() -> None:
    outcome = simulate("msg_1", at_simulator("soft_bounce"), None, 1)
    assert outcome.smtp_response is not None
    assert outcome.smtp_response.startswith("552 5.2.2")


def test_the_delayed_address_defers_the_first_attempt() -> None:
    outcome = simulate("msg_1", at_simulator("delayed"), None, 1)
    assert outcome.kind is OutcomeKind.DEFERRED
    assert outcome.smtp_response is not None
    assert outcome.smtp_response.startswith("4")


@pytest.mark.parametrize("attempt", range(2, MAX_ATTEMPTS + 1))
def test_the_delayed_address_delivers_on_a_later_attempt(attempt: int) -> None:
    assert simulate("msg_1", at_simulator("delayed"), None, attempt).kind is OutcomeKind.DELIVERED


def test_simulator_addresses_ignore_case() -> None:
    assert simulate("msg_1", "BOUNCE@Simulator.Postline.DEV", None, 1).kind is OutcomeKind.BOUNCED


def test_simulator_addresses_win_over_the_key_weights() -> None:
    outcome = simulate("msg_1", at_simulator("delivered"), {"bounce": 1.0}, 1)
    assert outcome.kind is OutcomeKind.DELIVERED


def test_an_unknown_simulator_address_is_delivered() -> None:
    assert simulate("msg_1", at_simulator("anyone"), None, 1).kind is OutcomeKind.DELIVERED


# --- the simulator: the key's weights -----------------------------------------------------------


def test_without_weights_every_send_is_delivered() -> None:
    kinds = {simulate(f"msg_{n}", "ann@example.com", None, 1).kind for n in range(200)}
    assert kinds == {OutcomeKind.DELIVERED}


@pytest.mark.parametrize("outcome", SEND_OUTCOMES)
def test_a_single_weight_always_draws_its_outcome(outcome: str) -> None:
    expected = simulate("msg_1", at_simulator(outcome), None, 1)
    for n in range(50):
        assert simulate(f"msg_{n}", "ann@example.com", {outcome: 1.0}, 1) == expected


def test_the_draw_is_the_same_for_the_same_message_and_recipient() -> None:
    weights = {"delivered": 1.0, "bounce": 1.0, "soft_bounce": 1.0, "complaint": 1.0}
    for n in range(100):
        first = simulate(f"msg_{n}", "ann@example.com", weights, 1)
        assert simulate(f"msg_{n}", "ann@example.com", dict(weights), 1) == first


def test_a_retried_attempt_draws_the_same_outcome() -> None:
    weights = {"delivered": 1.0, "bounce": 1.0, "complaint": 1.0}
    for n in range(100):
        assert simulate(f"msg_{n}", "ann@example.com", weights, 1) == simulate(
            f"msg_{n}", "ann@example.com", weights, 3
        )


def test_different_recipients_of_one_message_draw_independently() -> None:
    weights = {"delivered": 1.0, "bounce": 1.0}
    kinds = {simulate("msg_1", f"r{n}@example.com", weights, 1).kind for n in range(100)}
    assert kinds == {OutcomeKind.DELIVERED, OutcomeKind.BOUNCED}


def test_a_drawn_delay_defers_once_then_delivers() -> None:
    weights = {"delayed": 1.0}
    assert simulate("msg_1", "ann@example.com", weights, 1).kind is OutcomeKind.DEFERRED
    assert simulate("msg_1", "ann@example.com", weights, 2).kind is OutcomeKind.DELIVERED


def test_zero_weights_are_never_drawn() -> None:
    weights = {"delivered": 1.0, "bounce": 0.0, "soft_bounce": 0.0, "complaint": 0.0, "delayed": 0.0}
    kinds = Counter(simulate(f"msg_{n}", "ann@example.com", weights, 1).kind for n in range(5_000))
    assert kinds == {OutcomeKind.DELIVERED: 5_000}


def test_draws_follow_the_weights() -> None:
    weights = {"delivered": 0.7, "bounce": 0.2, "complaint": 0.1}
    draws = 20_000
    observed = Counter(simulate(f"msg_{n:08d}", "ann@example.com", weights, 1).kind for n in range(draws))
    expected = {
        OutcomeKind.DELIVERED: 0.7 * draws,
        OutcomeKind.BOUNCED: 0.2 * draws,
        OutcomeKind.COMPLAINED: 0.1 * draws,
    }
    assert set(observed) == set(expected)
    chi_square = sum((observed[kind] - count) ** 2 / count for kind, count in expected.items())
    assert chi_square < CHI_SQUARE_2DF_P001, (observed, chi_square)


def test_weights_are_relative() -> None:
    scaled = {"delivered": 7.0, "bounce": 2.0, "complaint": 1.0}
    unit = {"delivered": 0.7, "bounce": 0.2, "complaint": 0.1}
    for n in range(500):
        assert simulate(f"msg_{n}", "ann@example.com", scaled, 1) == simulate(f"msg_{n}", "ann@example.com", unit, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("550 5.1.1 User unknown", BounceClass.HARD),
        ("550 5.1.2 Bad destination system address", BounceClass.HARD),
        ("550 5.1.10 Recipient address has null MX", BounceClass.HARD),
        ("554 5.4.4 Unable to route", BounceClass.HARD),
        ("552 5.2.2 Mailbox full", BounceClass.SOFT),
        ("554 5.7.1 Message rejected as spam", BounceClass.SOFT),
        ("552 5.3.4 Message too big", BounceClass.SOFT),
        ("550 5.6.0 Undefined content error", BounceClass.UNDETERMINED),
        ("550 5.0.0 Rejected", BounceClass.UNDETERMINED),
        ("554 5.5.1 Invalid command", BounceClass.UNDETERMINED),
        ("451 4.7.1 Greylisted", BounceClass.SOFT),
        ("550 No such user", BounceClass.UNDETERMINED),
        ("smtp; 550 5.1.1 <ada@example.com>... user unknown", BounceClass.HARD),
        ("550 see 10.5.1.1 for details", BounceClass.UNDETERMINED),  # not a status code: part of another number
        (None, BounceClass.UNDETERMINED),
    ],
)
def test_bounces_are_classified_from_the_rfc_3463_enhanced_status_code(text: str | None, expected: BounceClass) -> None:
    assert classify_bounce(text) is expected


def test_the_classification_travels_with_a_5xx_outcome() -> None:
    assert classify_smtp(550, "5.1.1 User unknown").bounce_class is BounceClass.HARD
    assert classify_smtp(552, "5.2.2 Mailbox full").bounce_class is BounceClass.SOFT
    assert classify_smtp(553, "").bounce_class is BounceClass.UNDETERMINED
    assert enhanced_code("550 5.1.1 User unknown") == "5.1.1" and enhanced_code("550 nope") is None
