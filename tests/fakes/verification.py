"""In-memory fakes of the verification area's ports (`postline/verification/ports.py`): mail routes, the
prober, registrations, domain facts, credits, activity and the complaint lists."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from postline.shared.mx import MailRoute
from postline.suppressions.domain import SuppressionType
from postline.verification.domain import MailboxProbe, ProbeOutcome, Registration
from postline.verification.models import Activity

if TYPE_CHECKING:
    from postline.verification.ports import (
        ActivityReader,
        ComplaintLists,
        Credits,
        DomainFacts,
        MailboxProber,
        MailRoutes,
        Registrations,
    )


class StaticRoutes:
    """MailRoutes from a table: domain -> MailRoute; unknown domains do not exist (NXDOMAIN).
    Remembers the domains asked, in order."""

    def __init__(self, routes: dict[str, MailRoute] | None = None) -> None:
        self._routes = dict(routes or {})
        self.asked: list[str] = []

    def route(self, domain: str) -> MailRoute:
        self.asked.append(domain)
        return self._routes.get(domain, MailRoute(exists=False))


class ScriptedProber:
    """MailboxProber: a fixed answer per domain (default: accepted, not a catch-all); remembers each
    probe as (address, hosts, catch_all known)."""

    def __init__(self, answers: dict[str, MailboxProbe] | None = None) -> None:
        self._answers = dict(answers or {})
        self.probes: list[tuple[str, tuple[str, ...], bool | None]] = []

    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        self.probes.append((address, mx_hosts, catch_all))
        return self._answers.get(domain, MailboxProbe(ProbeOutcome.ACCEPTED, False, "250 OK"))


class FixedRegistrations:
    """Registrations: domain -> registration date; others unreachable. Remembers the domains asked."""

    def __init__(self, dates: dict[str, datetime] | None = None) -> None:
        self._dates = dict(dates or {})
        self.asked: list[str] = []

    def registered_at(self, domain: str) -> Registration:
        self.asked.append(domain)
        if domain in self._dates:
            return Registration(self._dates[domain])
        return Registration(None, "the RDAP registry could not be reached (test)", unreachable=True)


class InMemoryDomainFacts:
    def __init__(self) -> None:
        self.catch_alls: dict[str, bool] = {}
        self.registrations: dict[str, tuple[Registration, datetime]] = {}  # domain -> (answer, kept until)

    def catch_all(self, domain: str, now: datetime) -> bool | None:
        return self.catch_alls.get(domain)

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None:
        self.catch_alls[domain] = catch_all

    def registration(self, domain: str, now: datetime) -> Registration | None:
        kept = self.registrations.get(domain)
        return kept[0] if kept is not None and kept[1] > now else None

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        if registration.registered is not None:
            self.registrations[domain] = (registration, now + timedelta(days=30))
        elif registration.unreachable:
            self.registrations[domain] = (registration, now + timedelta(hours=1))


class InMemoryVerificationCounters:
    def __init__(self) -> None:
        self.windows: dict[tuple[str, str, int], int] = {}
        self.used: dict[tuple[str, str, bool], int] = {}

    def count_validation(self, account_id: str, window_start: int, *, expires_at: int, route: str = "validate") -> int:
        window = (account_id, route, window_start)
        self.windows[window] = self.windows.get(window, 0) + 1
        return self.windows[window]

    def consume_verification(
        self, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
    ) -> bool:
        used = self.used.get((account_id, month, test), 0)
        if limit is not None and used + count > limit:
            return False
        self.used[account_id, month, test] = used + count
        return True

    def used_verifications(self, account_id: str, *, month: str) -> int:
        return self.used.get((account_id, month, False), 0)

    def release_verification(self, account_id: str, *, month: str, test: bool) -> None:
        self.used[account_id, month, test] -= 1


class StaticActivity:
    def __init__(self, known: dict[tuple[str, str], Activity] | None = None) -> None:
        self._known = dict(known or {})

    def activity(self, account_id: str, address: str) -> Activity:
        return self._known.get((account_id, address), Activity())

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        return {a: self._known[(account_id, a)] for a in addresses if (account_id, a) in self._known}


class InMemoryComplaintLists:
    """ComplaintLists: (account, lower-case address) pairs on the complaints list; counts its reads."""

    def __init__(self, *entries: tuple[str, str]) -> None:
        self.entries = {(account_id, address.lower()) for account_id, address in entries}
        self.reads = 0

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        self.reads += 1
        if kind is not SuppressionType.COMPLAINTS:
            return set()
        return {email for email in emails if (account_id, email) in self.entries}


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _routes: MailRoutes = StaticRoutes()
    _prober: MailboxProber = ScriptedProber()
    _registrations: Registrations = FixedRegistrations()
    _facts: DomainFacts = InMemoryDomainFacts()
    _credits: Credits = InMemoryVerificationCounters()
    _activity: ActivityReader = StaticActivity()
    _complaints: ComplaintLists = InMemoryComplaintLists()
