"""verify_before_send's decision (verification/domain.py, verification/service.py): which setting
wins, what a domain's mail route says about an address, and the test keys' simulated draw."""

from __future__ import annotations

from collections import Counter

import pytest

from postline.delivery.outcomes import simulate
from postline.shared.mx import MailRoute
from postline.shared.verification_results import VerificationResult
from postline.verification.domain import (
    UNDELIVERABLE,
    Verification,
    check_syntax,
    effective_verify_before_send,
    judge_route,
    simulate_verification,
)
from postline.verification.service import Verifier
from tests.fakes.verification import StaticRoutes

CHI_SQUARE_1DF_P001 = 10.83


# -- which setting wins -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "domain", "account", "effective"),
    [
        (None, None, False, False),
        (None, None, True, True),  # a key with null inherits the account's
        (False, None, True, False),  # the key's own setting wins
        (True, None, False, True),
        (None, True, False, True),  # the sending domain's, once domains have one, before the account's
        (None, False, True, False),
        (False, True, True, False),
    ],
)
def test_the_key_wins_then_the_domain_then_the_account(
    key: bool | None, domain: bool | None, account: bool, effective: bool
) -> None:
    assert effective_verify_before_send(key, domain, account) is effective


# -- the verdict ------------------------------------------------------------------------------------


def test_which_results_reject() -> None:
    assert {r.value for r in UNDELIVERABLE} == {"invalid", "do_not_mail", "spamtrap", "abuse"}
    for result in VerificationResult:
        assert Verification(result, "x").rejects is (result in UNDELIVERABLE)


@pytest.mark.parametrize(
    ("route", "result", "words"),
    [
        (MailRoute(mx_hosts=("mx1.example.com", "mx2.example.com")), "valid", "mx1.example.com"),
        (MailRoute(has_address=True), "valid", "own address"),
        (MailRoute(), "invalid", "no MX and no A or AAAA"),
        (MailRoute(null_mx=True), "invalid", "null MX"),
        (MailRoute(exists=False), "invalid", "does not exist"),
        (MailRoute(lookup_error="timed out"), "unknown", "timed out"),
    ],
)
def test_a_domains_mail_route_decides(route: MailRoute, result: str, words: str) -> None:
    verdict = judge_route("example.com", route)
    assert verdict.result.value == result
    assert words in verdict.reason and "example.com" in verdict.reason


def test_bad_syntax_is_invalid_and_good_syntax_is_no_verdict() -> None:
    verdict = check_syntax("not an address")
    assert verdict is not None and verdict.result is VerificationResult.INVALID and "syntax" in verdict.reason
    assert check_syntax("ann@example.com") is None


def test_the_event_data_is_result_and_reason() -> None:
    assert Verification(VerificationResult.INVALID, "why").as_data() == {"result": "invalid", "reason": "why"}


def test_the_verifier_looks_each_domain_up_once_and_skips_bad_syntax() -> None:
    routes = StaticRoutes({"example.com": MailRoute(mx_hosts=("mx.example.com",))})
    results = Verifier(routes).verify(["a@example.com", "b@example.com", "c@gone.example", "not an address"])
    assert {address: v.result.value for address, v in results.items()} == {
        "a@example.com": "valid",
        "b@example.com": "valid",
        "c@gone.example": "invalid",
        "not an address": "invalid",
    }
    assert routes.asked == ["example.com", "gone.example"]


# -- test keys: the simulator ------------------------------------------------------------------------


@pytest.mark.parametrize("result", list(VerificationResult))
def test_simulator_addresses_force_their_result(result: VerificationResult) -> None:
    weights = {"valid": 1.0}
    verdict = simulate_verification("msg_1", f"{result.value}@simulator.postline.dev", weights)
    assert verdict.result is result and "simulat" in verdict.reason


def test_other_simulator_addresses_and_real_ones_draw_from_the_weights() -> None:
    for address in ("bounce@simulator.postline.dev", "ann@example.com"):
        assert simulate_verification("msg_1", address, {"spamtrap": 1.0}).result is VerificationResult.SPAMTRAP


def test_no_weights_mean_valid() -> None:
    assert simulate_verification("msg_1", "ann@example.com", None).result is VerificationResult.VALID


def test_the_draw_is_the_same_for_the_same_message_and_recipient() -> None:
    weights = {"valid": 1.0, "invalid": 1.0}
    for n in range(100):
        first = simulate_verification(f"msg_{n}", "ann@example.com", weights)
        assert simulate_verification(f"msg_{n}", "ann@example.com", dict(weights)) == first


def test_draws_follow_the_weights() -> None:
    weights = {"valid": 0.8, "invalid": 0.2}
    draws = 20_000
    observed = Counter(simulate_verification(f"msg_{n:08d}", "ann@example.com", weights).result for n in range(draws))
    expected = {VerificationResult.VALID: 0.8 * draws, VerificationResult.INVALID: 0.2 * draws}
    chi_square = sum((observed[result] - count) ** 2 / count for result, count in expected.items())
    assert chi_square < CHI_SQUARE_1DF_P001, (observed, chi_square)


def test_the_verify_draw_is_independent_of_the_send_draw() -> None:
    """Seeded apart: with 50/50 on both, the four combinations come out about equally often."""
    pairs = Counter(
        (
            simulate_verification(f"msg_{n:08d}", "ann@example.com", {"valid": 1.0, "invalid": 1.0}).result,
            simulate(f"msg_{n:08d}", "ann@example.com", {"delivered": 1.0, "bounce": 1.0}, 1).kind,
        )
        for n in range(4_000)
    )
    assert len(pairs) == 4
    assert all(800 < count < 1_200 for count in pairs.values()), pairs


def test_domains_left_when_the_time_budget_is_spent_are_unknown_and_not_looked_up() -> None:
    ticks = iter([0.0, 1.0, 11.0, 12.0])  # the start, then one reading before each new domain
    routes = StaticRoutes({"a.example": MailRoute(mx_hosts=("mx.a.example",))})
    verifier = Verifier(routes, budget_seconds=10.0, monotonic=lambda: next(ticks))
    results = verifier.verify(["x@a.example", "y@b.example", "z@c.example"])
    assert [results[a].result.value for a in ("x@a.example", "y@b.example", "z@c.example")] == [
        "valid",
        "unknown",
        "unknown",
    ]
    assert routes.asked == ["a.example"]
    assert "budget" in results["y@b.example"].reason
