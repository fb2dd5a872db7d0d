"""Every verdict in full (status, sub_status, recommendation, risk, confidence, reason, smtp_check,
is_catch_all), one row per way the checks can end: what the API answers for each, word for word."""

from __future__ import annotations

from dataclasses import replace

import pytest

from postline.shared.mx import MailRoute
from postline.shared.verification_results import VerificationResult
from postline.verification.domain import (
    Facts,
    MailboxProbe,
    ProbeOutcome,
    Verdict,
    Verification,
    judge,
    judge_route,
    simulated_verdict,
    syntax_verdict,
)

MX = MailRoute(mx_hosts=("mx.acme.test",))
BASE = Facts(local_part="ada", domain="acme.test", route=MX, probe=MailboxProbe(ProbeOutcome.ACCEPTED, False, "250 OK"))
Row = tuple[str, str, str, str, float, str, bool | None, bool]


def _row(v: Verdict) -> Row:
    return (v.status.value, v.sub_status, v.recommendation.value, v.risk.value, v.confidence, v.reason, v.smtp_check,
            v.is_catch_all)  # fmt: skip


def _probe(outcome: ProbeOutcome, catch_all: bool | None = None, detail: str = "") -> MailboxProbe:
    return MailboxProbe(outcome, catch_all, detail)


JUDGED: list[tuple[str, Facts, Row]] = [
    ("no such domain", replace(BASE, route=MailRoute(exists=False)),
     ("invalid", "no_dns_entries", "suppress", "undeliverable", 0.95, "acme.test does not exist", None, False)),
    ("no such domain, a null MX", replace(BASE, route=MailRoute(exists=False, null_mx=True)),
     ("invalid", "null_mx", "suppress", "undeliverable", 0.95, "acme.test does not exist", None, False)),
    ("null MX", replace(BASE, route=MailRoute(null_mx=True)),
     ("invalid", "null_mx", "suppress", "undeliverable", 0.95, "acme.test accepts no mail (null MX)", None, False)),
    ("no mail host", replace(BASE, route=MailRoute()),
     ("invalid", "no_dns_entries", "suppress", "undeliverable", 0.95, "acme.test has no MX and no A or AAAA record",
      None, False)),
    ("typo of a domain that does not exist", replace(BASE, route=MailRoute(exists=False), did_you_mean="acme.com"),
     ("invalid", "possible_typo", "suppress", "undeliverable", 0.95,
      "acme.test does not exist; did you mean acme.com?", None, False)),
    ("typo of a null MX", replace(BASE, route=MailRoute(null_mx=True), did_you_mean="acme.com"),
     ("invalid", "possible_typo", "suppress", "undeliverable", 0.95,
      "acme.test accepts no mail (null MX); did you mean acme.com?", None, False)),
    ("DNS did not answer", replace(BASE, route=MailRoute(lookup_error="timeout")),
     ("unknown", "dns_unavailable", "review", "medium", 0.3, "DNS did not answer for acme.test: timeout", None, False)),
    ("DNS error with braces", replace(BASE, route=MailRoute(lookup_error="bad {0} reply")),
     ("unknown", "dns_unavailable", "review", "medium", 0.3, "DNS did not answer for acme.test: bad {0} reply", None,
      False)),
    ("known complainer", replace(BASE, complained=True),
     ("abuse", "known_complainer", "suppress", "high", 0.95,
      "ada@acme.test marked this account's mail as spam before (it is on the account's complaints list)", None, False)),
    ("disposable", replace(BASE, disposable=True),
     ("do_not_mail", "disposable", "suppress", "high", 0.95, "acme.test is a disposable (temporary) mailbox provider",
      None, False)),
    ("no probe, an MX", replace(BASE, probe=None),
     ("valid", "", "mail", "low", 0.7, "acme.test has an MX (mx.acme.test)", None, False)),
    ("no probe, its own address", replace(BASE, route=MailRoute(has_address=True), probe=None),
     ("valid", "", "mail", "low", 0.7, "acme.test has no MX; its own address takes mail", None, False)),
    ("probe not run", replace(BASE, probe=_probe(ProbeOutcome.NOT_RUN)),
     ("unknown", "mailbox_not_checked", "caution", "medium", 0.6, "acme.test takes mail; its mailbox was not checked",
      None, False)),
    ("probe not run, with a detail", replace(BASE, probe=_probe(ProbeOutcome.NOT_RUN, None, "no relay")),
     ("unknown", "mailbox_not_checked", "caution", "medium", 0.6,
      "acme.test takes mail; its mailbox was not checked (no relay)", None, False)),
    ("unreachable", replace(BASE, probe=_probe(ProbeOutcome.UNREACHABLE, True, "timeout")),
     ("unknown", "smtp_unreachable", "review", "medium", 0.4, "no mail server of acme.test answered (timeout)", None,
      False)),
    ("temporary", replace(BASE, probe=_probe(ProbeOutcome.TEMPORARY, None, "451 later")),
     ("unknown", "greylisted", "review", "medium", 0.4,
      "acme.test's mail server deferred the check (greylisting or a temporary failure) (451 later)", None, False)),
    ("rejected, even at a catch-all", replace(BASE, probe=_probe(ProbeOutcome.REJECTED, True, "550 5.1.1")),
     ("invalid", "mailbox_not_found", "suppress", "undeliverable", 0.95,
      "acme.test's mail server refused the mailbox (550 5.1.1)", False, False)),
    ("catch-all", replace(BASE, probe=_probe(ProbeOutcome.ACCEPTED, True, "250 OK")),
     ("catch_all", "accept_all", "caution", "medium", 0.5,
      "acme.test's mail server accepts every address, so this one cannot be confirmed (250 OK)", True, True)),
    ("accepted", BASE,
     ("valid", "", "mail", "low", 0.95, "acme.test's mail server accepted the mailbox (250 OK)", True, False)),
    ("accepted, no detail", replace(BASE, probe=_probe(ProbeOutcome.ACCEPTED)),
     ("valid", "", "mail", "low", 0.95, "acme.test's mail server accepted the mailbox", True, False)),
    ("accepted, a typo, a role, a young domain",
     replace(BASE, did_you_mean="acme.com", role=True, domain_age_days=3),
     ("valid", "possible_typo", "review", "medium", 0.5,
      "acme.test's mail server accepted the mailbox (250 OK); did you mean acme.com?; a role address (a team's, not a "
      "person's); acme.test was registered 3 days ago", True, False)),
]  # fmt: skip


@pytest.mark.parametrize(("facts", "expected"), [row[1:] for row in JUDGED], ids=[row[0] for row in JUDGED])
def test_each_way_the_checks_end_is_one_verdict(facts: Facts, expected: Row) -> None:
    assert _row(judge(facts)) == expected


def test_every_mailbox_answer_is_in_the_table() -> None:
    probed = {row[1].probe.outcome for row in JUDGED if row[1].probe is not None and row[1].route == MX}
    assert probed == set(ProbeOutcome)


SIMULATED: dict[VerificationResult, Row] = {
    VerificationResult.VALID: ("valid", "", "mail", "low", 0.95, "simulated: valid", True, False),
    VerificationResult.INVALID:
        ("invalid", "mailbox_not_found", "suppress", "undeliverable", 0.95, "simulated: invalid", False, False),
    VerificationResult.CATCH_ALL:
        ("catch_all", "accept_all", "caution", "medium", 0.5, "simulated: catch_all", True, True),
    VerificationResult.UNKNOWN: ("unknown", "greylisted", "review", "medium", 0.4, "simulated: unknown", None, False),
    VerificationResult.SPAMTRAP: ("spamtrap", "spamtrap", "suppress", "high", 0.9, "simulated: spamtrap", None, False),
    VerificationResult.ABUSE: ("abuse", "abuse", "suppress", "high", 0.9, "simulated: abuse", None, False),
    VerificationResult.DO_NOT_MAIL:
        ("do_not_mail", "global_suppression", "suppress", "high", 0.9, "simulated: do_not_mail", None, False),
}  # fmt: skip


@pytest.mark.parametrize("result", list(VerificationResult))
def test_each_simulated_result_is_one_verdict(result: VerificationResult) -> None:
    assert _row(simulated_verdict(Verification(result, f"simulated: {result.value}"))) == SIMULATED[result]


def test_the_syntax_verdict() -> None:
    assert _row(syntax_verdict("bad")) == (
        "invalid", "failed_syntax_check", "suppress", "undeliverable", 0.99, "invalid syntax: bad", None, False
    )  # fmt: skip


ROUTES: list[tuple[MailRoute, VerificationResult, str]] = [
    (MailRoute(lookup_error="timeout"), VerificationResult.UNKNOWN, "DNS did not answer for acme.test: timeout"),
    (MailRoute(lookup_error="timeout", exists=False), VerificationResult.UNKNOWN,
     "DNS did not answer for acme.test: timeout"),
    (MailRoute(exists=False), VerificationResult.INVALID, "acme.test does not exist"),
    (MailRoute(exists=False, null_mx=True), VerificationResult.INVALID, "acme.test does not exist"),
    (MailRoute(null_mx=True), VerificationResult.INVALID, "acme.test accepts no mail (null MX)"),
    (MailRoute(mx_hosts=("mx1.acme.test", "mx2.acme.test")), VerificationResult.VALID,
     "acme.test has an MX (mx1.acme.test)"),
    (MailRoute(mx_hosts=("mx1.acme.test",), has_address=True), VerificationResult.VALID,
     "acme.test has an MX (mx1.acme.test)"),
    (MailRoute(has_address=True), VerificationResult.VALID, "acme.test has no MX; its own address takes mail"),
    (MailRoute(), VerificationResult.INVALID, "acme.test has no MX and no A or AAAA record"),
]  # fmt: skip


@pytest.mark.parametrize(("route", "result", "reason"), ROUTES)
def test_each_mail_route_is_one_result(route: MailRoute, result: VerificationResult, reason: str) -> None:
    assert judge_route("acme.test", route) == Verification(result, reason)
