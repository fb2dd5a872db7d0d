"""Verifying addresses for real: the one verifier behind POST /v3/validate and verify_before_send.

`Verifier.verify` (the dispatcher) checks syntax, DNS and the name lists, each domain looked up
once per call within a shared time budget (domains left when it is spent are `unknown`, which
sends, as a DNS timeout does). `ValidationService.validate` (the API) runs the same checks on one
address plus the mailbox probe and the domain's age, after the route's rate window and the
account's credits; a test key's answer is drawn from its verify weights with no network at all.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from email_validator import EmailNotValidError

from postline.auth import ratelimit
from postline.keys.access import Environment
from postline.keys.identity import Principal
from postline.shared.addresses import checked_address, domain_of
from postline.shared.errors import PaymentRequired, RateLimited
from postline.shared.mx import MailRoute
from postline.shared.ports import Clock, IdFactory
from postline.shared.verification_results import VerificationResult
from postline.suppressions.domain import SuppressionType
from postline.usage.domain import billing_period, month_key
from postline.verification import domain_lists as lists
from postline.verification.catch_all import score_catch_all
from postline.verification.domain import (
    Facts,
    MailboxProbe,
    ProbeOutcome,
    Registration,
    Verdict,
    Verification,
    check_syntax,
    judge,
    simulate_verification,
    simulated_verdict,
    syntax_verdict,
)
from postline.verification.models import Activity, ValidateRequest, ValidationResult
from postline.verification.ports import (
    ActivityReader,
    ComplaintLists,
    Credits,
    DomainFacts,
    MailboxProber,
    MailRoutes,
    Registrations,
)

BUDGET_SECONDS = 10.0
VALIDATE_LIMIT_PER_MINUTE = 100  # the interface's limit of POST /v3/validate, per account
SIMULATION_SEED = "validate"  # test keys: the same address always draws the same outcome


def name_facts(local_part: str, domain: str, route: MailRoute) -> Facts:
    """The checks that need no network beyond the route: the name lists and the typo matcher."""
    return Facts(
        local_part=local_part,
        domain=domain,
        route=route,
        disposable=lists.is_disposable(domain),
        free_provider=lists.is_free_provider(domain),
        role=lists.is_role(local_part),
        did_you_mean=lists.did_you_mean(domain),
    )


class CachedRoutes:
    """MailRoutes that asks DNS once per domain for `ttl_seconds` (a bulk worker's process checks
    thousands of addresses at a few hundred domains); a DNS failure is not kept."""

    def __init__(
        self, routes: MailRoutes, *, ttl_seconds: float = 300.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._routes = routes
        self._ttl = ttl_seconds
        self._monotonic = monotonic
        self._known: dict[str, tuple[float, MailRoute]] = {}
        self._lock = threading.Lock()
        self._pending: dict[str, threading.Lock] = {}  # a domain being looked up -> its lookup's lock

    def route(self, domain: str) -> MailRoute:
        known = self._fresh(domain)
        if known is not None:
            return known
        with self._lock:
            pending = self._pending.setdefault(domain, threading.Lock())
        with pending:  # one lookup of a domain at a time: concurrent chunks wait for its answer
            try:
                known = self._fresh(domain)
                return known if known is not None else self._lookup(domain)
            finally:
                with self._lock:
                    self._pending.pop(domain, None)

    def _fresh(self, domain: str) -> MailRoute | None:
        known = self._known.get(domain)
        return known[1] if known is not None and self._monotonic() - known[0] < self._ttl else None

    def _lookup(self, domain: str) -> MailRoute:
        now = self._monotonic()
        route = self._routes.route(domain)
        if route.lookup_error is None:
            if len(self._known) >= 50_000:  # bounded: a long-lived process forgets the oldest half
                for stale in list(self._known)[:25_000]:
                    del self._known[stale]
            self._known[domain] = (now, route)
        return route


class CachedDomainFacts:
    """DomainFacts read once per domain per process for `ttl_seconds` (a bulk worker's chunk holds
    a hundred addresses of a few domains: without it each address read its domain's catch-all and
    registration facts from DynamoDB, two of its four calls). What this process learns (remember_*)
    is kept at once; what another process learns is seen within the TTL (meanwhile a few more
    probes, as with DNS). A miss is kept too: the checks then ask the server or registry as before.
    An unreachable registry is not kept here but read from the store each time, which holds it for
    its own hour by the runtime's clock (a process's copy could outlive it)."""

    def __init__(
        self, facts: DomainFacts, *, ttl_seconds: float = 300.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._facts = facts
        self._ttl = ttl_seconds
        self._monotonic = monotonic
        self._known: dict[tuple[str, str], tuple[float, object]] = {}
        self._lock = threading.Lock()

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        found = self._fresh(("catch_all", domain))
        if found is _MISSING:
            value = self._facts.catch_all(domain, now)
            self._keep(("catch_all", domain), value)
            return value
        return found if isinstance(found, bool) else None

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self._facts.remember_catch_all(domain, catch_all, now)
        self._keep(("catch_all", domain), catch_all)

    def registration(self, domain: str, now: datetime) -> Registration | None:
        found = self._fresh(("registered", domain))
        if found is _MISSING:
            value = self._facts.registration(domain, now)
            if value is None or not value.unreachable:
                self._keep(("registered", domain), value)
            return value
        return found if isinstance(found, Registration) else None

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        self._facts.remember_registration(domain, registration, now)
        if registration.registered is not None:
            self._keep(("registered", domain), registration)
        else:
            with self._lock:
                self._known.pop(("registered", domain), None)

    def _fresh(self, fact: tuple[str, str]) -> object:
        known = self._known.get(fact)
        return known[1] if known is not None and self._monotonic() - known[0] < self._ttl else _MISSING

    def _keep(self, fact: tuple[str, str], value: object) -> None:
        with self._lock:
            if len(self._known) >= 50_000:  # bounded: a long-lived process forgets the oldest half
                for stale in list(self._known)[:25_000]:
                    del self._known[stale]
            self._known[fact] = (self._monotonic(), value)


_MISSING = object()


class Verifier:
    """verify_before_send's checks (no mailbox probe: the dispatcher is a Lambda, port 25 is shut)."""

    def __init__(
        self,
        routes: MailRoutes,
        *,
        budget_seconds: float = BUDGET_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._routes = routes
        self._budget = budget_seconds
        self._monotonic = monotonic

    def verify(self, addresses: list[str]) -> dict[str, Verification]:
        deadline = self._monotonic() + self._budget
        routes: dict[str, MailRoute] = {}
        results: dict[str, Verification] = {}
        for address in addresses:
            invalid = check_syntax(address)
            if invalid is not None:
                results[address] = invalid
                continue
            domain = domain_of(address)
            if domain not in routes:
                in_time = self._monotonic() < deadline
                routes[domain] = (
                    self._routes.route(domain)
                    if in_time
                    else MailRoute(lookup_error="not looked up: time budget spent")
                )
            local_part = address.rpartition("@")[0]
            results[address] = judge(name_facts(local_part, domain, routes[domain])).as_verification()
        return results


@dataclass(frozen=True)
class Known:
    """What the account already knows of a chunk's addresses (lower-case), read in one go (known()):
    their history, and which of them are on its complaints list."""

    activity: Mapping[str, Activity]
    complained: frozenset[str]


class ValidationService:
    def __init__(
        self,
        *,
        routes: MailRoutes,
        prober: MailboxProber,
        registrations: Registrations,
        facts: DomainFacts,
        credits: Credits,
        activity: ActivityReader,
        complaints: ComplaintLists,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._routes = routes
        self._prober = prober
        self._registrations = registrations
        self._facts = facts
        self._credits = credits
        self._activity = activity
        self._complaints = complaints
        self._ids = ids
        self._clock = clock

    def validate(self, principal: Principal, request: ValidateRequest) -> ValidationResult:
        """429 past the route's window, then one credit (402 without one; a test key draws from the
        test allowance instead, 429 when spent), then the checks. Checks that fail unexpectedly give
        the credit back."""
        now = self._clock.now()
        account = principal.account
        self._admit(account.id, now)
        test = principal.env is Environment.TEST
        month = month_key(now)
        limit = account.limits.test_allowance if test else account.limits.verify_credits
        if not self._credits.consume_verification(account.id, month=month, limit=limit, test=test):
            raise self._refusal(test, limit, now)
        try:
            if test:
                weights = principal.key.test_outcomes.verify if principal.key and principal.key.test_outcomes else None
                return self.simulate_address(account.id, request.email, weights)
            return self.check_address(account.id, request.email, now)
        except BaseException:
            self._credits.release_verification(account.id, month=month, test=test)
            raise

    def _admit(self, account_id: str, now: datetime) -> None:
        refusal = window_refusal(
            self._credits, account_id, now, route="validate", limit=VALIDATE_LIMIT_PER_MINUTE, what="POST /v3/validate"
        )
        if refusal is not None:
            raise refusal

    @staticmethod
    def _refusal(test: bool, limit: int | None, now: datetime) -> PaymentRequired | RateLimited:
        if test:
            return allowance_refusal(limit, now, what="This check")
        reset = billing_period(now).end
        return PaymentRequired(
            f"No verification credits left this period ({limit}); they reset at {reset.isoformat()}. "
            "Nothing was checked."
        )

    # -- live -----------------------------------------------------------------------------------

    def known(self, account_id: str, addresses: list[str]) -> Known:
        """What the account knows of these addresses (a bulk chunk's) in two batched reads, keyed
        as check_address looks them up; an address that is not one is left out."""
        keys = [f"{parsed[0]}@{parsed[1]}".lower() for parsed in map(_parse, addresses) if isinstance(parsed, tuple)]
        history = self._activity.activities(account_id, keys)
        complained = self._complaints.present(account_id, SuppressionType.COMPLAINTS, keys) if keys else set()
        return Known({address: history.get(address, Activity()) for address in keys}, frozenset(complained))

    def check_address(
        self, account_id: str, address: str, now: datetime, known: Known | None = None
    ) -> ValidationResult:
        """Every check of one address; `known`: what the account knows of it, read beforehand (known())."""
        parsed = _parse(address)
        if isinstance(parsed, Verdict):
            return self._syntax_result(address, parsed)
        local, domain = parsed
        lowered = f"{local}@{domain}".lower()
        if known is None:
            known = self.known(account_id, [lowered])
        route = self._routes.route(domain)
        facts = replace(name_facts(local, domain, route), complained=lowered in known.complained)
        if judge(facts).status is VerificationResult.VALID:  # the domain takes mail: ask its server
            facts = self._probed(facts, f"{local}@{domain}", now)
        if route.exists and route.lookup_error is None:
            facts = self._aged(facts, now)
        verdict = judge(facts)
        if facts.domain_age_days is None and facts.domain_age_note:
            verdict = _with_note(verdict, facts.domain_age_note)
        return self._result(
            address,
            local,
            domain,
            verdict,
            facts,
            route,
            known.activity.get(lowered) or Activity(),
        )

    def score_catch_all(self, account_id: str, result: ValidationResult) -> ValidationResult:
        """A bulk job's catch-all result scored with the account's history of the address, read now."""
        return score_catch_all(result, self._activity.activity(account_id, f"{result.account}@{result.domain}".lower()))

    def _probed(self, facts: Facts, address: str, now: datetime) -> Facts:
        hosts = facts.route.mx_hosts or (facts.domain,)  # no MX: the domain's own address (RFC 5321 5.1)
        known = self._facts.catch_all(facts.domain, now)
        if known:
            probe = MailboxProbe(
                ProbeOutcome.ACCEPTED, True, "known from an earlier check of the domain, cached for a day"
            )
        else:
            probe = self._prober.probe(address, facts.domain, hosts, catch_all=known)
            if known is None and probe.decisive_catch_all:
                self._facts.remember_catch_all(facts.domain, bool(probe.catch_all), now)
        return _replace(facts, probe=probe)

    def _aged(self, facts: Facts, now: datetime) -> Facts:
        """The domain's age from the registry (RDAP), or why it is unknown. A date is kept for thirty
        days and an unreachable registry for an hour (DomainFacts), so neither is asked each check."""
        name = lists.registrable_domain(facts.domain)
        known = self._facts.registration(name, now)
        if known is None:
            known = self._registrations.registered_at(name)
            if known.registered is not None or known.unreachable:
                self._facts.remember_registration(name, known, now)
        if known.registered is None:
            return _replace(facts, domain_age_note=f"domain age unknown: {known.note or 'no registration date'}")
        return _replace(facts, domain_age_days=max(0, (now - known.registered).days))

    # -- test keys ------------------------------------------------------------------------------

    def simulate_address(self, account_id: str, address: str, weights: dict[str, float] | None) -> ValidationResult:
        """Syntax for real (no network), the lists (in-process), the rest drawn: no DNS, no SMTP."""
        parsed = _parse(address)
        if isinstance(parsed, Verdict):
            return self._syntax_result(address, parsed)
        local, domain = parsed
        verdict = simulated_verdict(simulate_verification(SIMULATION_SEED, f"{local}@{domain}", weights))
        facts = name_facts(local, domain, MailRoute())
        return self._result(address, local, domain, verdict, facts, None, None)

    def _syntax_result(self, address: str, verdict: Verdict) -> ValidationResult:
        local, _, domain = address.strip().rpartition("@")
        return self._result(address, local, domain.lower(), verdict, None, None, None)

    def _result(
        self,
        address: str,
        local: str,
        domain: str,
        verdict: Verdict,
        facts: Facts | None,
        route: MailRoute | None,
        activity: Activity | None,
    ) -> ValidationResult:
        mx_record = route.mx_hosts[0] if route and route.mx_hosts else None
        if route is None and facts is not None:  # simulated: the drawn status says whether mail has a way in
            mx_found = verdict.status is not VerificationResult.INVALID
        else:
            mx_found = bool(route and (route.mx_hosts or route.has_address))
        return ValidationResult(
            verification_id=self._ids.new_id("ver_"),
            address=address,
            is_valid=verdict.status is VerificationResult.VALID,
            result=verdict.status,
            status=verdict.status,
            sub_status=verdict.sub_status,
            recommendation=verdict.recommendation,
            confidence=verdict.confidence,
            risk=verdict.risk,
            reason=verdict.reason,
            did_you_mean=f"{local}@{facts.did_you_mean}" if facts and facts.did_you_mean else None,
            account=local,
            domain=domain,
            mx_provider=lists.mx_provider(mx_record),
            mx_record=mx_record,
            mx_found=mx_found,
            is_catch_all=verdict.is_catch_all,
            is_disposable=bool(facts and facts.disposable),
            is_role_address=bool(facts and facts.role),
            is_free_provider=bool(facts and facts.free_provider),
            smtp_check=verdict.smtp_check,
            domain_age_days=facts.domain_age_days if facts else None,
            activity=activity or Activity(),
        )


def _parse(address: str) -> tuple[str, str] | Verdict:
    """(local part, lower-case ASCII domain) by email-validator, or the syntax verdict."""
    try:
        checked = checked_address(address)
    except EmailNotValidError as error:
        return syntax_verdict(str(error))
    return checked.local_part, checked.ascii_domain.lower()


def window_refusal(
    credits: Credits, account_id: str, now: datetime, *, route: str, limit: int, what: str
) -> RateLimited | None:
    """Counts the call in the account's per-minute window of a verification route; the 429 past it."""
    start = ratelimit.window_start(now)
    used = credits.count_validation(account_id, start, expires_at=start + 2 * ratelimit.WINDOW_SECONDS, route=route)
    decision = ratelimit.decide(limit=limit, used=used, now=now)
    if decision.allowed:
        return None
    return RateLimited(
        f"{what} takes {limit} a minute per account; retry in {decision.reset_seconds}s.",
        retry_after=decision.reset_seconds,
    )


def allowance_refusal(allowance: int | None, now: datetime, *, what: str) -> RateLimited:
    """429 rate_limit_exceeded: the monthly test-mode allowance is spent (Retry-After: its reset)."""
    reset = billing_period(now).end
    return RateLimited(
        f"{what} would pass the test-mode allowance of {allowance} verifications this month; it resets at "
        f"{reset.isoformat()}.",
        code="rate_limit_exceeded",
        retry_after=max(1, math.ceil((reset - now.astimezone(UTC)).total_seconds())),
    )


def _replace(facts: Facts, **changes: object) -> Facts:
    return replace(facts, **changes)  # type: ignore[arg-type]


def _with_note(verdict: Verdict, note: str) -> Verdict:
    return replace(verdict, reason=f"{verdict.reason}; {note}")
