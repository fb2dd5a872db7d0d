"""judge(): every classification path of a ValidationResult, from the facts the checks found."""

from __future__ import annotations

from dataclasses import replace

import pytest

from postline.shared.mx import MailRoute
from postline.shared.verification_results import VerificationResult
from postline.verification.domain import (
    Facts,
    MailboxProbe,
    ProbeOutcome,
    Recommendation,
    Risk,
    Verification,
    judge,
    simulated_verdict,
    syntax_verdict,
)

MX = MailRoute(mx_hosts=("mx.acme.test",))
ACCEPTED = MailboxProbe(ProbeOutcome.ACCEPTED, False, "250 OK")


def facts(route: MailRoute = MX, **changes: object) -> Facts:
    base = Facts(local_part="ada", domain="acme.test", route=route, probe=ACCEPTED)
    return replace(base, **changes)  # type: ignore[arg-type]


def shape(f: Facts) -> tuple[str, str, str, str, bool | None, bool]:
    v = judge(f)
    return (v.status.value, v.sub_status, v.recommendation.value, v.risk.value, v.smtp_check, v.is_catch_all)


def test_syntax() -> None:
    v = syntax_verdict("There must be something before the @-sign.")
    assert (v.status, v.sub_status, v.recommendation, v.risk) == (
        VerificationResult.INVALID,
        "failed_syntax_check",
        Recommendation.SUPPRESS,
        Risk.UNDELIVERABLE,
    )


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        (MailRoute(exists=False), ("invalid", "no_dns_entries", "suppress", "undeliverable", None, False)),
        (MailRoute(null_mx=True), ("invalid", "null_mx", "suppress", "undeliverable", None, False)),
        (MailRoute(), ("invalid", "no_dns_entries", "suppress", "undeliverable", None, False)),
        (MailRoute(lookup_error="timeout"), ("unknown", "dns_unavailable", "review", "medium", None, False)),
    ],
)
def test_domains_that_take_no_mail_or_do_not_answer(route: MailRoute, expected: tuple[object, ...]) -> None:
    assert shape(facts(route, probe=None)) == expected


def test_a_domain_with_no_mx_but_an_address_takes_mail() -> None:
    assert shape(facts(MailRoute(has_address=True))) == ("valid", "", "mail", "low", True, False)


def test_a_typo_of_a_domain_that_takes_no_mail_says_so() -> None:
    v = judge(facts(MailRoute(exists=False), did_you_mean="gmail.com"))
    assert (v.status, v.sub_status) == (VerificationResult.INVALID, "possible_typo")
    assert "did you mean gmail.com?" in v.reason


def test_disposable_is_do_not_mail_before_any_probe() -> None:
    assert shape(facts(disposable=True)) == ("do_not_mail", "disposable", "suppress", "high", None, False)


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        (MailboxProbe(ProbeOutcome.ACCEPTED, False), ("valid", "", "mail", "low", True, False)),
        (MailboxProbe(ProbeOutcome.ACCEPTED, None), ("valid", "", "mail", "low", True, False)),
        (MailboxProbe(ProbeOutcome.ACCEPTED, True), ("catch_all", "accept_all", "caution", "medium", True, True)),
        (
            MailboxProbe(ProbeOutcome.REJECTED, False, "550 5.1.1"),
            ("invalid", "mailbox_not_found", "suppress", "undeliverable", False, False),
        ),
        (MailboxProbe(ProbeOutcome.TEMPORARY, None, "451"), ("unknown", "greylisted", "review", "medium", None, False)),
        (MailboxProbe(ProbeOutcome.UNREACHABLE), ("unknown", "smtp_unreachable", "review", "medium", None, False)),
        (MailboxProbe(ProbeOutcome.NOT_RUN), ("unknown", "mailbox_not_checked", "caution", "medium", None, False)),
    ],
)
def test_the_mailbox_probe_decides_a_deliverable_domain(probe: MailboxProbe, expected: tuple[object, ...]) -> None:
    assert shape(facts(probe=probe)) == expected


def test_a_known_complainer_is_abuse_whatever_the_probe_or_dns_would_say() -> None:
    complained = judge(facts(complained=True))
    assert (complained.status, complained.sub_status, complained.recommendation, complained.risk) == (
        VerificationResult.ABUSE,
        "known_complainer",
        Recommendation.SUPPRESS,
        Risk.HIGH,
    )
    assert complained.reason == (
        "ada@acme.test marked this account's mail as spam before (it is on the account's complaints list)"
    )
    assert shape(facts(MailRoute(lookup_error="timeout"), complained=True))[:2] == ("abuse", "known_complainer")
    assert shape(facts(complained=True, disposable=True, role=True))[:2] == ("abuse", "known_complainer")
    # a domain that takes no mail is undeliverable first: that is the more useful answer
    assert shape(facts(MailRoute(null_mx=True), complained=True))[:2] == ("invalid", "null_mx")


def test_without_a_probe_a_domain_that_takes_mail_is_valid() -> None:
    """verify_before_send: no probe asked for, so the domain's verdict stands (as before)."""
    assert shape(facts(probe=None)) == ("valid", "", "mail", "low", None, False)


def test_a_role_address_is_mailed_with_caution() -> None:
    v = judge(facts(role=True))
    assert (v.status, v.sub_status, v.recommendation, v.risk) == (
        VerificationResult.VALID,
        "role_based",
        Recommendation.CAUTION,
        Risk.MEDIUM,
    )


def test_a_possible_typo_of_a_deliverable_domain_is_for_review() -> None:
    v = judge(facts(did_you_mean="gmail.com"))
    assert (v.status, v.sub_status, v.recommendation) == (
        VerificationResult.VALID,
        "possible_typo",
        Recommendation.REVIEW,
    )
    assert v.confidence <= 0.5


def test_a_young_domain_is_mailed_with_caution() -> None:
    v = judge(facts(domain_age_days=3))
    assert (v.sub_status, v.recommendation, v.risk) == ("young_domain", Recommendation.CAUTION, Risk.MEDIUM)
    assert "registered 3 days ago" in v.reason
    assert judge(facts(domain_age_days=400)).sub_status == ""


def test_flags_do_not_soften_an_undeliverable_verdict() -> None:
    v = judge(facts(role=True, probe=MailboxProbe(ProbeOutcome.REJECTED, False)))
    assert (v.status, v.sub_status) == (VerificationResult.INVALID, "mailbox_not_found")


@pytest.mark.parametrize("result", list(VerificationResult))
def test_every_simulated_result_has_its_fields(result: VerificationResult) -> None:
    v = simulated_verdict(Verification(result, f"simulated: {result.value}"))
    assert v.status is result
    assert v.is_catch_all is (result is VerificationResult.CATCH_ALL)
    assert (v.smtp_check is False) is (result is VerificationResult.INVALID)
    assert v.reason == f"simulated: {result.value}"
