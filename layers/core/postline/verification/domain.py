"""Email address verification: what DNS says about a recipient's domain (the results themselves:
results.py), what an SMTP probe of its mailbox answered, the verdict drawn from all of
them (`judge`), and the simulator's draw for test keys. What each way a check can end answers is
a table (ROUTE_RULES, DOMAIN_RULES, MAILBOX_RULES, SIMULATED_RULES); the code only picks the row.

One verdict for both users: POST /v3/validate (every check, the mailbox probe included) and
verify_before_send (the dispatcher: syntax, DNS and the name lists; no probe, since a Lambda
cannot open port 25), so an address is judged by the same rules wherever it is checked.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from postline.shared.addresses import SIMULATOR_DOMAIN, normalize_address
from postline.shared.mx import MailRoute
from postline.shared.verification_results import VerificationResult

# What verify_before_send refuses to send to. Unknown passes: a DNS server that does not answer
# says nothing about the address, and refusing on it would drop good mail.
UNDELIVERABLE = frozenset(
    {VerificationResult.INVALID, VerificationResult.DO_NOT_MAIL, VerificationResult.SPAMTRAP, VerificationResult.ABUSE}
)


@dataclass(frozen=True)
class Verification:
    result: VerificationResult
    reason: str

    @property
    def rejects(self) -> bool:
        return self.result in UNDELIVERABLE

    def as_data(self) -> dict[str, Any]:
        """The event's data.verification."""
        return {"result": self.result.value, "reason": self.reason}


def effective_verify_before_send(key: bool | None, domain: bool | None, account: bool) -> bool:
    """The key's setting when it has one (null = inherit), else the sending domain's, else
    the account's. Sending domains have no setting of their own yet: callers pass None."""
    if key is not None:
        return key
    if domain is not None:
        return domain
    return account


def check_syntax(address: str) -> Verification | None:
    """An invalid result when the address is not one, else None."""
    try:
        normalize_address(address)
    except ValueError as error:
        return Verification(VerificationResult.INVALID, f"invalid syntax: {error}")
    return None


class RouteState(StrEnum):
    """What DNS said of a domain's mail route, in the order the states are told apart."""

    DNS_FAILED = "dns_failed"  # no answer (a timeout, SERVFAIL)
    NO_DOMAIN = "no_domain"  # NXDOMAIN
    NULL_MX = "null_mx"  # MX 0 "."
    MX = "mx"
    OWN_ADDRESS = "own_address"  # no MX, but an A or AAAA record: the domain itself takes mail
    NO_MAIL_HOST = "no_mail_host"  # neither


def route_state(route: MailRoute) -> RouteState:
    if route.lookup_error is not None:
        return RouteState.DNS_FAILED
    if not route.exists:
        return RouteState.NO_DOMAIN
    if route.null_mx:
        return RouteState.NULL_MX
    if route.mx_hosts:
        return RouteState.MX
    return RouteState.OWN_ADDRESS if route.has_address else RouteState.NO_MAIL_HOST


@dataclass(frozen=True)
class RouteRule:
    result: VerificationResult
    reason: str  # str.format: {domain}, {error} (DNS's), {mx} (the best MX)


# The verdict on an address whose syntax is good, by its domain's mail route.
ROUTE_RULES: dict[RouteState, RouteRule] = {
    RouteState.DNS_FAILED: RouteRule(VerificationResult.UNKNOWN, "DNS did not answer for {domain}: {error}"),
    RouteState.NO_DOMAIN: RouteRule(VerificationResult.INVALID, "{domain} does not exist"),
    RouteState.NULL_MX: RouteRule(VerificationResult.INVALID, "{domain} accepts no mail (null MX)"),
    RouteState.MX: RouteRule(VerificationResult.VALID, "{domain} has an MX ({mx})"),
    RouteState.OWN_ADDRESS: RouteRule(VerificationResult.VALID, "{domain} has no MX; its own address takes mail"),
    RouteState.NO_MAIL_HOST: RouteRule(VerificationResult.INVALID, "{domain} has no MX and no A or AAAA record"),
}


def judge_route(domain: str, route: MailRoute) -> Verification:
    """The verdict on an address whose syntax is good, from its domain's mail route."""
    rule = ROUTE_RULES[route_state(route)]
    mx = route.mx_hosts[0] if route.mx_hosts else ""
    return Verification(rule.result, rule.reason.format(domain=domain, error=route.lookup_error, mx=mx))


def simulate_verification(message_id: str, recipient: str, weights: dict[str, float] | None) -> Verification:
    """A test key's verification of one recipient. A simulator address named after a result
    (invalid@, spamtrap@, ... at simulator.postline.dev) gets it; any other address draws from the
    key's verify weights, seeded by message and recipient (apart from the send draw's seed, so the
    two outcomes are independent) so a repeated step draws the same."""
    local, _, domain = recipient.partition("@")
    if domain.lower() == SIMULATOR_DOMAIN and local.lower() in set(VerificationResult):
        result = VerificationResult(local.lower())
        return Verification(result, f"simulated: {result.value} (simulator address)")
    choices = {name: weight for name, weight in (weights or {"valid": 1.0}).items() if weight > 0}
    seed = int.from_bytes(hashlib.sha256(f"verify|{message_id}|{recipient}".encode()).digest()[:8], "big")
    drawn = random.Random(seed).choices(list(choices), weights=list(choices.values()))[0]
    return Verification(VerificationResult(drawn), f"simulated: {drawn}")


# -- the full verdict (POST /v3/validate) ------------------------------------------------------


class Recommendation(StrEnum):
    MAIL = "mail"
    CAUTION = "caution"
    SUPPRESS = "suppress"
    REVIEW = "review"


class Risk(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    UNDELIVERABLE = "undeliverable"


class ProbeOutcome(StrEnum):
    """What the recipient's MX answered to RCPT TO the address."""

    ACCEPTED = "accepted"  # 250/251
    REJECTED = "rejected"  # 5xx: no such mailbox
    TEMPORARY = "temporary"  # 4xx (greylisting, a busy server): says nothing yet
    UNREACHABLE = "unreachable"  # no MX answered (refused, timeout, dropped)
    NOT_RUN = "not_run"  # no probe where this runs (the cloud adapter until the relay answers)


@dataclass(frozen=True)
class MailboxProbe:
    outcome: ProbeOutcome
    catch_all: bool | None = None  # a random address at the domain was accepted too; None: not asked/unclear
    detail: str = ""  # the reply or the failure, for `reason`

    @property
    def decisive_catch_all(self) -> bool:
        """Worth caching per domain: both RCPTs got a final answer."""
        return self.catch_all is not None


@dataclass(frozen=True)
class Registration:
    """What the RDAP registry said of a domain: when it was registered, or why there is no date.
    `unreachable`: the registry could not be asked (no connection, a timeout, a 5xx or a 429), as
    opposed to an answer without a date (404, no registration event)."""

    registered: datetime | None
    note: str | None = None
    unreachable: bool = False


YOUNG_DOMAIN_DAYS = 30  # registered this recently: mail with caution (fresh domains send most spam)


@dataclass(frozen=True)
class Facts:
    """Everything the checks found about one address whose syntax is good."""

    local_part: str
    domain: str
    route: MailRoute
    disposable: bool = False
    free_provider: bool = False
    role: bool = False
    did_you_mean: str | None = None
    probe: MailboxProbe | None = None  # None: the caller asked for no probe (verify_before_send)
    domain_age_days: int | None = None
    domain_age_note: str | None = None  # why domain_age_days is null, when it is
    complained: bool = False  # on the account's own complaints list (a known complainer)


@dataclass(frozen=True)
class Verdict:
    status: VerificationResult
    sub_status: str
    recommendation: Recommendation
    risk: Risk
    confidence: float
    reason: str
    smtp_check: bool | None = None
    is_catch_all: bool = False

    def as_verification(self) -> Verification:
        return Verification(self.status, self.reason)


@dataclass(frozen=True)
class VerdictRule:
    """A verdict but for the words of its reason: `reason` is filled in with str.format from what
    the checks found ({domain}, {detail}, ...; "{reason}": a reason given whole)."""

    status: VerificationResult
    sub_status: str
    recommendation: Recommendation
    risk: Risk
    confidence: float
    reason: str = "{reason}"
    smtp_check: bool | None = None

    def verdict(self, **words: str) -> Verdict:
        return Verdict(
            self.status,
            self.sub_status,
            self.recommendation,
            self.risk,
            self.confidence,
            self.reason.format(**words),
            self.smtp_check,
            is_catch_all=self.status is VerificationResult.CATCH_ALL,
        )


def _by_sub_status(*rules: VerdictRule) -> dict[str, VerdictRule]:
    return {rule.sub_status: rule for rule in rules}


SYNTAX = VerdictRule(VerificationResult.INVALID, "failed_syntax_check", Recommendation.SUPPRESS, Risk.UNDELIVERABLE,
                     0.99, "invalid syntax: {error}")  # fmt: skip

# What ends the check at the domain, by sub_status (judge's order: _judge_domain). {reason}: the
# mail route's (judge_route), with the typo suggestion when there is one.
DOMAIN_RULES = _by_sub_status(
    VerdictRule(VerificationResult.INVALID, "no_dns_entries", Recommendation.SUPPRESS, Risk.UNDELIVERABLE, 0.95),
    VerdictRule(VerificationResult.INVALID, "null_mx", Recommendation.SUPPRESS, Risk.UNDELIVERABLE, 0.95),
    VerdictRule(VerificationResult.INVALID, "possible_typo", Recommendation.SUPPRESS, Risk.UNDELIVERABLE, 0.95),
    VerdictRule(VerificationResult.ABUSE, "known_complainer", Recommendation.SUPPRESS, Risk.HIGH, 0.95,
                "{address} marked this account's mail as spam before (it is on the account's complaints list)"),
    VerdictRule(VerificationResult.UNKNOWN, "dns_unavailable", Recommendation.REVIEW, Risk.MEDIUM, 0.3),
    VerdictRule(VerificationResult.DO_NOT_MAIL, "disposable", Recommendation.SUPPRESS, Risk.HIGH, 0.95,
                "{domain} is a disposable (temporary) mailbox provider"),
)  # fmt: skip

# What the mailbox probe's answer makes of an address whose domain takes mail. {detail}: the
# server's reply or the failure, in parentheses, when there is one.
MAILBOX_RULES: dict[ProbeOutcome, VerdictRule] = {
    ProbeOutcome.NOT_RUN: VerdictRule(VerificationResult.UNKNOWN, "mailbox_not_checked", Recommendation.CAUTION,
                                      Risk.MEDIUM, 0.6, "{domain} takes mail; its mailbox was not checked{detail}"),
    ProbeOutcome.UNREACHABLE: VerdictRule(VerificationResult.UNKNOWN, "smtp_unreachable", Recommendation.REVIEW,
                                          Risk.MEDIUM, 0.4, "no mail server of {domain} answered{detail}"),
    ProbeOutcome.TEMPORARY: VerdictRule(VerificationResult.UNKNOWN, "greylisted", Recommendation.REVIEW, Risk.MEDIUM,
                                        0.4, "{domain}'s mail server deferred the check (greylisting or a temporary "
                                        "failure){detail}"),
    ProbeOutcome.REJECTED: VerdictRule(VerificationResult.INVALID, "mailbox_not_found", Recommendation.SUPPRESS,
                                       Risk.UNDELIVERABLE, 0.95, "{domain}'s mail server refused the mailbox{detail}",
                                       smtp_check=False),
    ProbeOutcome.ACCEPTED: VerdictRule(VerificationResult.VALID, "", Recommendation.MAIL, Risk.LOW, 0.95,
                                       "{domain}'s mail server accepted the mailbox{detail}", smtp_check=True),
}  # fmt: skip
# Accepted, and so was a random address at the domain.
ACCEPTS_ALL = VerdictRule(VerificationResult.CATCH_ALL, "accept_all", Recommendation.CAUTION, Risk.MEDIUM, 0.5,
                          "{domain}'s mail server accepts every address, so this one cannot be confirmed{detail}",
                          smtp_check=True)  # fmt: skip
# No probe asked for (verify_before_send): the domain's verdict stands. {reason}: the mail route's.
NOT_PROBED = VerdictRule(VerificationResult.VALID, "", Recommendation.MAIL, Risk.LOW, 0.7)

# A test key's verdict, by the drawn result: the fields a real check of it would give. {reason}: the draw's.
SIMULATED_RULES: dict[VerificationResult, VerdictRule] = {rule.status: rule for rule in (
    VerdictRule(VerificationResult.VALID, "", Recommendation.MAIL, Risk.LOW, 0.95, smtp_check=True),
    VerdictRule(VerificationResult.INVALID, "mailbox_not_found", Recommendation.SUPPRESS, Risk.UNDELIVERABLE, 0.95,
                smtp_check=False),
    VerdictRule(VerificationResult.CATCH_ALL, "accept_all", Recommendation.CAUTION, Risk.MEDIUM, 0.5, smtp_check=True),
    VerdictRule(VerificationResult.UNKNOWN, "greylisted", Recommendation.REVIEW, Risk.MEDIUM, 0.4),
    VerdictRule(VerificationResult.SPAMTRAP, "spamtrap", Recommendation.SUPPRESS, Risk.HIGH, 0.9),
    VerdictRule(VerificationResult.ABUSE, "abuse", Recommendation.SUPPRESS, Risk.HIGH, 0.9),
    VerdictRule(VerificationResult.DO_NOT_MAIL, "global_suppression", Recommendation.SUPPRESS, Risk.HIGH, 0.9),
)}  # fmt: skip


def syntax_verdict(error: str) -> Verdict:
    return SYNTAX.verdict(error=error)


def judge(facts: Facts) -> Verdict:
    """The verdict on an address whose syntax is good. Order: the domain takes no mail (invalid),
    the address complained about the account's mail (abuse), DNS did not answer (unknown),
    disposable (do_not_mail), then the mailbox probe's answer, then what only lowers confidence (a
    typo suggestion, a role address, a young domain)."""
    verdict = _judge_domain(facts) or _judge_mailbox(facts)
    return _temper(verdict, facts)


def _judge_domain(facts: Facts) -> Verdict | None:
    domain, route = facts.domain, facts.route
    route_verdict = judge_route(domain, route)
    if route_verdict.result is VerificationResult.INVALID:
        sub = "possible_typo" if facts.did_you_mean else "null_mx" if route.null_mx else "no_dns_entries"
        typo = f"; did you mean {facts.did_you_mean}?" if facts.did_you_mean else ""
        return DOMAIN_RULES[sub].verdict(reason=route_verdict.reason + typo)
    if facts.complained:  # known from the account's own complaints list: no need to ask the mailbox
        return DOMAIN_RULES["known_complainer"].verdict(address=f"{facts.local_part}@{domain}")
    if route_verdict.result is VerificationResult.UNKNOWN:
        return DOMAIN_RULES["dns_unavailable"].verdict(reason=route_verdict.reason)
    if facts.disposable:
        return DOMAIN_RULES["disposable"].verdict(domain=domain)
    return None


def _judge_mailbox(facts: Facts) -> Verdict:
    domain, probe = facts.domain, facts.probe
    if probe is None:  # not asked for: the domain's verdict stands (verify_before_send)
        return NOT_PROBED.verdict(reason=judge_route(domain, facts.route).reason)
    accepts_all = probe.outcome is ProbeOutcome.ACCEPTED and probe.catch_all
    rule = ACCEPTS_ALL if accepts_all else MAILBOX_RULES[probe.outcome]
    return rule.verdict(domain=domain, detail=f" ({probe.detail})" if probe.detail else "")


def _temper(verdict: Verdict, facts: Facts) -> Verdict:
    """Flags that leave the status alone but ask for care with a deliverable address."""
    if verdict.status is not VerificationResult.VALID:
        return verdict
    notes: list[str] = []
    sub, recommendation, risk, confidence = verdict.sub_status, verdict.recommendation, verdict.risk, verdict.confidence
    if facts.did_you_mean:
        sub, recommendation, risk = "possible_typo", Recommendation.REVIEW, Risk.MEDIUM
        confidence = min(confidence, 0.5)
        notes.append(f"did you mean {facts.did_you_mean}?")
    if facts.role:
        sub = sub or "role_based"
        recommendation = Recommendation.REVIEW if recommendation is Recommendation.REVIEW else Recommendation.CAUTION
        risk = Risk.MEDIUM
        notes.append("a role address (a team's, not a person's)")
    if facts.domain_age_days is not None and facts.domain_age_days < YOUNG_DOMAIN_DAYS:
        sub = sub or "young_domain"
        recommendation = Recommendation.REVIEW if recommendation is Recommendation.REVIEW else Recommendation.CAUTION
        risk = Risk.MEDIUM
        notes.append(f"{facts.domain} was registered {facts.domain_age_days} days ago")
    if not notes:
        return verdict
    reason = "; ".join([verdict.reason, *notes])
    return Verdict(
        verdict.status, sub, recommendation, risk, confidence, reason, verdict.smtp_check, verdict.is_catch_all
    )


def simulated_verdict(drawn: Verification) -> Verdict:
    """A test key's verdict: the drawn result with the fields a real check of it would give."""
    return SIMULATED_RULES[drawn.result].verdict(reason=drawn.reason)
