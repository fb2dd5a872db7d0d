"""What the TLS-RPT services need: the counts and reports store, and the senders of reports.

Adapters implement these (store.py, senders.py); tests pass fakes or the real adapters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from postline.delivery.tls_sessions import TlsSession
from postline.tlsrpt.domain import ReportKey, Tally


@dataclass
class StoredReport:
    """A domain-day's report, frozen when first built: sent again after a crash, it is the same bytes."""

    report_id: str
    body: bytes  # gzip of the JSON
    rua: tuple[str, ...]  # where it goes; empty: the domain takes no reports
    sent: set[str] = field(default_factory=set)  # rua already delivered to
    attempts: int = 0  # runs that tried and left some rua undelivered
    last_error: str = ""

    @property
    def done(self) -> bool:
        return set(self.rua) <= self.sent


class TlsReportStore(Protocol):
    def record(self, session: TlsSession, day: date, count: int = 1) -> None:
        """Adds `count` sessions like this one to its domain-day (an atomic add), and names the domain
        in the day's index."""
        ...

    def domains(self, day: date) -> list[str]:
        """The policy domains with sessions that day."""
        ...

    def tallies(self, day: date, domain: str) -> list[Tally]: ...

    def report(self, day: date, domain: str) -> StoredReport | None: ...

    def create_report(self, day: date, domain: str, report: StoredReport) -> StoredReport:
        """Stores the report unless one is stored already; returns the one stored."""
        ...

    def take_lease(self, day: date, domain: str, owner: str, *, now: int, until: int) -> bool:
        """The right to send the domain-day's report until `until`, unless another runner holds it."""
        ...

    def settle(self, day: date, domain: str, owner: str, *, sent: set[str], error: str) -> None:
        """Adds the rua delivered to, counts an attempt when `error`, and gives the lease back."""
        ...


class ReportRecords(Protocol):
    def rua(self, domain: str) -> tuple[str, ...]:
        """The reporting URIs the domain publishes at `_smtp._tls` (empty: none); RecordUnavailable
        when DNS did not answer."""
        ...


class RecordUnavailable(RuntimeError):
    """DNS did not answer for the domain's TLS-RPT record: the report waits for the next run."""


class ReportNotDelivered(RuntimeError):
    """A report a rua did not take (this run); the next run tries it again."""


class ReportSender(Protocol):
    def send(self, uri: str, *, domain: str, day: date, report_id: str, body: bytes) -> None:
        """Delivers the gzip'd report at `uri`, or raises ReportNotDelivered."""
        ...


class ReportKeyStore(Protocol):
    """The reporting domain's DKIM keys: the one that signs (active) and one staged by a rotation (next)."""

    def keys(self, domain: str) -> tuple[ReportKey | None, ReportKey | None]:
        """(active, next) of `domain` (a process may cache them for a minute)."""
        ...

    def add(self, key: ReportKey, *, staged: bool, replacing: str | None) -> bool:
        """Stores a new key as the active one (`staged` False: the first key) or as the next one; False
        when the pointer no longer names `replacing` there (another process got there first)."""
        ...

    def promote(self, domain: str, selector: str) -> bool:
        """The next key `selector` becomes the active one; False when it is not the next key any more."""
        ...
