"""Simulator weights of a test key (its test_outcomes)."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from postline.keys.domain import SEND_OUTCOMES, VERIFY_OUTCOMES, TestOutcomes


def test_defaults_deliver_every_send_and_validate_every_address() -> None:
    assert TestOutcomes().model_dump() == {"send": {"delivered": 1.0}, "verify": {"valid": 1.0}}


def test_defaults_are_not_shared_between_instances() -> None:
    first, second = TestOutcomes(), TestOutcomes()
    first.send["bounce"] = 2.0
    assert second.send == {"delivered": 1.0}


@pytest.mark.parametrize("outcome", SEND_OUTCOMES)
def test_every_send_outcome_is_accepted(outcome: str) -> None:
    assert TestOutcomes(send={outcome: 1}).send == {outcome: 1.0}


@pytest.mark.parametrize("outcome", VERIFY_OUTCOMES)
def test_every_verify_outcome_is_accepted(outcome: str) -> None:
    assert TestOutcomes(verify={outcome: 1}).verify == {outcome: 1.0}


def test_weights_are_relative_and_may_include_zeros() -> None:
    outcomes = TestOutcomes(send={"delivered": 9, "bounce": 1, "complaint": 0}, verify={"valid": 0.5, "invalid": 0.5})
    assert outcomes.send == {"delivered": 9.0, "bounce": 1.0, "complaint": 0.0}
    assert outcomes.verify == {"valid": 0.5, "invalid": 0.5}


@pytest.mark.parametrize(
    ("field", "weights", "message"),
    [
        ("send", {"opened": 1.0}, "unknown send outcome"),
        ("send", {"delivered": 1.0, "valid": 1.0}, "unknown send outcome"),  # a verify name in send
        ("verify", {"delivered": 1.0}, "unknown verify outcome"),  # a send name in verify
        ("verify", {"VALID": 1.0}, "unknown verify outcome"),  # names are case-sensitive
    ],
)
def test_unknown_outcome_names_are_refused(field: str, weights: dict[str, float], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        TestOutcomes.model_validate({field: weights})


@pytest.mark.parametrize("field", ["send", "verify"])
@pytest.mark.parametrize("bad", [-1.0, -0.001, math.nan, math.inf, -math.inf])
def test_negative_and_non_finite_weights_are_refused(field: str, bad: float) -> None:
    name = "delivered" if field == "send" else "valid"
    other = "bounce" if field == "send" else "invalid"
    with pytest.raises(ValidationError, match="must be a finite number >= 0"):
        TestOutcomes.model_validate({field: {name: 1.0, other: bad}})


@pytest.mark.parametrize("field", ["send", "verify"])
@pytest.mark.parametrize("count", [3, 0], ids=["all-zero", "empty"])
def test_weights_with_nothing_to_draw_are_refused(field: str, count: int) -> None:
    names = SEND_OUTCOMES if field == "send" else VERIFY_OUTCOMES
    with pytest.raises(ValidationError, match="at least one outcome with a weight above zero"):
        TestOutcomes.model_validate({field: dict.fromkeys(names[:count], 0)})


def test_non_numeric_weights_are_refused() -> None:
    with pytest.raises(ValidationError):
        TestOutcomes.model_validate({"send": {"delivered": "lots"}})
