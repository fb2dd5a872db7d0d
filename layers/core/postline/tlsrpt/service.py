"""TLS-RPT use cases: counting the relay's sessions, and the daily run that reports them.

The daily run (EventBridge Scheduler puts a `tls_reports` job on the relay queue at 01:30 UTC; the
`postline tlsrpt` command puts one by hand) reports the day before the scheduled time, and retries
the two days before it whose reports some rua has not taken yet. Per domain-day:
1. the report is built from the day's counts once and stored (a conditional put): a second runner,
   or a later run, sends the stored bytes, never a rebuilt report with another count;
2. a lease on it is taken, so two runners never send it at the same time;
3. it is sent to each rua not yet delivered to, and those delivered to are recorded.
A runner that dies between a delivery and its record sends that one again after the lease ends: the
same report with the same report-id, which is what receivers deduplicate on (RFC 8460 section 4.4).

Mailed reports carry a DKIM signature of the reporting domain (section 3), by `ReportKeyService`'s
key: minted and printed by the operator's `postline tlsrpt dkim show` (they publish it), rotated by
staging a next key beside it (`rotate`) that signs once DNS serves it (`promote`). Without a key,
mailed reports wait (pending, retried by the next runs).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import dkim

from postline.delivery.tls_sessions import TlsSession
from postline.domains.domain import RecordType
from postline.domains.ports import DkimKeys, RecordLookup
from postline.shared.errors import Conflict, ValidationFailed
from postline.shared.ports import Clock
from postline.tlsrpt.domain import (
    DKIM_SIGNED_HEADERS,
    ReportKey,
    build_report,
    compress,
    day_bounds,
    published_key,
    report_id,
    report_selector,
)
from postline.tlsrpt.ports import (
    RecordUnavailable,
    ReportKeyStore,
    ReportNotDelivered,
    ReportRecords,
    ReportSender,
    StoredReport,
    TlsReportStore,
)

logger = logging.getLogger(__name__)
RETRY_DAYS = 3  # a report some rua did not take is tried again on the next runs, for three days
LEASE_SECONDS = 600  # longer than sending one report to every rua takes (timeouts included)


FLUSH_EVERY = 500  # buffered sessions: past this many, they are written at once
FLUSH_SECONDS = 30.0  # and at least this often (a report runs 90 minutes after its day ends)


class TlsSessionRecorder:
    """What the SMTP transport tells each session's TLS outcome to: counted in memory per domain-day
    and outcome, and written as one atomic ADD per distinct outcome, every FLUSH_EVERY sessions or
    FLUSH_SECONDS (a timer thread), before a report run in this process, and on close (the relay's
    SIGTERM). A busy relay writes a few items a minute instead of one per session.

    What a crash can lose: a process killed without close (SIGKILL, an OOM kill, a host failure)
    loses the sessions counted since its last flush, at most FLUSH_EVERY or FLUSH_SECONDS' worth. TLS-RPT
    reports are statistics and best effort (RFC 8460 section 4), so this is accepted and not recovered.
    A failed write keeps its count for the next flush (never dropped for a DynamoDB error; a write
    that timed out after DynamoDB applied it may count twice). A failure to count never fails the
    delivery."""

    def __init__(
        self,
        store: TlsReportStore,
        clock: Clock,
        *,
        every: int = FLUSH_EVERY,
        seconds: float = FLUSH_SECONDS,
    ) -> None:
        self._store = store
        self._clock = clock
        self._every = every
        self._seconds = seconds
        self._counts: dict[tuple[date, TlsSession], int] = {}
        self._pending = 0
        self._lock = threading.Lock()  # the counts
        self._flushing = threading.Lock()  # one flush at a time, so a count is never written twice
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    def record(self, session: TlsSession) -> None:
        entry = (self._clock.now().date(), session)
        with self._lock:
            self._counts[entry] = self._counts.get(entry, 0) + 1
            self._pending += 1
            due = self._pending >= self._every
            start = self._timer is None and not self._stop.is_set()
            if start:
                self._timer = threading.Thread(target=self._tick, name="tlsrpt-sessions", daemon=True)
        if start and self._timer is not None:
            self._timer.start()
        if due:
            self.flush()

    def flush(self) -> int:
        """Writes what is counted; the number of sessions written."""
        with self._flushing:
            with self._lock:
                batch, self._counts, self._pending = self._counts, {}, 0
            written = 0
            failed: dict[tuple[date, TlsSession], int] = {}
            for (day, session), count in batch.items():
                try:
                    self._store.record(session, day, count)
                    written += count
                except Exception:
                    logger.warning(
                        "could not count %d TLS sessions for %s", count, session.policy_domain, exc_info=True
                    )
                    failed[(day, session)] = count
            if failed:
                with self._lock:
                    for entry, count in failed.items():
                        self._counts[entry] = self._counts.get(entry, 0) + count
                        self._pending += count
            return written

    def close(self) -> None:
        """Stops the timer and writes what is left (the relay task's shutdown)."""
        self._stop.set()
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.join(timeout=5.0)
        self.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self._seconds):
            try:
                self.flush()
            except Exception:  # the timer outlives any one failure
                logger.warning("TLS session flush failed", exc_info=True)


@dataclass(frozen=True)
class ReporterIdentity:
    organization: str  # organization-name
    contact: str  # contact-info, and the From of mailed reports
    submitter: str  # the reporting domain (the contact's)
    sending_ip: str = ""  # the relay's source address (EGRESS_IP); empty: not said


@dataclass
class RunSummary:
    days: list[str]
    sent: int = 0  # reports this run delivered to every rua left
    done_before: int = 0  # reports earlier runs had delivered (nothing sent)
    pending: int = 0  # reports some rua has not taken (tried again on the next run)
    without_rua: int = 0  # domains that publish no TLS-RPT record
    busy: int = 0  # reports another runner is sending


class TlsReportService:
    def __init__(
        self,
        *,
        store: TlsReportStore,
        records: ReportRecords,
        senders: Mapping[str, ReportSender],  # by URI scheme: "https", "mailto"
        identity: ReporterIdentity,
        clock: Clock,
        owner: str,
        sessions: TlsSessionRecorder | None = None,
    ) -> None:
        """sessions: this process's buffered counts, written before a run builds any report."""
        self._store = store
        self._records = records
        self._senders = senders
        self._identity = identity
        self._clock = clock
        self._owner = owner
        self._sessions = sessions

    def run(self, *, scheduled_at: datetime | None = None, day: date | None = None) -> RunSummary:
        """Reports `day`, or the day before `scheduled_at` (default: now) and retries the days before;
        only days that are over (a report covers a whole UTC day, and is never rebuilt)."""
        if day is not None:
            days = [day]
        else:
            last = (scheduled_at or self._clock.now()).date() - timedelta(days=1)
            days = [last - timedelta(days=back) for back in range(RETRY_DAYS)]
        if self._sessions is not None:
            self._sessions.flush()
        now = self._clock.now()
        days = [each for each in days if day_bounds(each)[1] <= now]  # a day still going is not reported yet
        summary = RunSummary(days=[d.isoformat() for d in days])
        for each in days:
            for domain in self._store.domains(each):
                self._report(each, domain, summary)
        return summary

    def _report(self, day: date, domain: str, summary: RunSummary) -> None:
        report = self._store.report(day, domain)
        if report is None:
            try:
                built = self._build(day, domain)
            except RecordUnavailable as error:
                logger.info("no TLS-RPT record answer for %s: %s", domain, error)
                summary.pending += 1
                return
            report = self._store.create_report(day, domain, built)
        if not report.rua:
            summary.without_rua += 1
            return
        if report.done:
            summary.done_before += 1
            return
        now = int(self._clock.now().timestamp())
        if not self._store.take_lease(day, domain, self._owner, now=now, until=now + LEASE_SECONDS):
            summary.busy += 1
            return
        sent, errors = set(), []
        try:
            report = self._store.report(day, domain) or report  # what was sent before the lease was ours
            for uri in report.rua:
                if uri in report.sent:
                    continue
                sender = self._senders.get(uri.partition(":")[0].lower())
                if sender is None:
                    errors.append(f"{uri}: no sender for this scheme")
                    continue
                try:
                    sender.send(uri, domain=domain, day=day, report_id=report.report_id, body=report.body)
                    sent.add(uri)
                except ReportNotDelivered as error:
                    errors.append(f"{uri}: {error}")
        finally:
            self._store.settle(day, domain, self._owner, sent=sent, error="; ".join(errors)[:1000])
        if errors:
            logger.info("TLS report %s not taken by every rua: %s", report.report_id, errors)
            summary.pending += 1
        else:
            summary.sent += 1

    def _build(self, day: date, domain: str) -> StoredReport:
        rua = self._records.rua(domain)  # RecordUnavailable: nothing is stored, the next run asks again
        if not rua:
            return StoredReport(report_id=report_id(day, domain, self._identity.submitter), body=b"", rua=())
        document = build_report(
            organization=self._identity.organization,
            contact=self._identity.contact,
            submitter=self._identity.submitter,
            domain=domain,
            day=day,
            tallies=self._store.tallies(day, domain),
            sending_ip=self._identity.sending_ip,
        )
        return StoredReport(report_id=str(document["report-id"]), body=compress(document), rua=rua)


class CachedReportRecords:
    """`_smtp._tls` answers, kept for `ttl` seconds (one lookup per domain per run, at most)."""

    def __init__(
        self, lookup: Callable[[str], tuple[str, ...]], ttl: float = 3600.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._lookup = lookup
        self._ttl = ttl
        self._clock = clock
        self._cache: dict[str, tuple[float, tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def rua(self, domain: str) -> tuple[str, ...]:
        now = self._clock()
        with self._lock:
            cached = self._cache.get(domain)
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        answer = self._lookup(domain)
        with self._lock:
            if len(self._cache) >= 100_000:
                self._cache.clear()
            self._cache[domain] = (now, answer)
        return answer


class ReportKeyService:
    """The reporting domain's DKIM key: which one signs mailed reports, and its rotation."""

    def __init__(
        self, *, store: ReportKeyStore, keys: DkimKeys, records: RecordLookup, clock: Clock, domain: str
    ) -> None:
        self._store = store
        self._keys = keys
        self._records = records
        self._clock = clock
        self._domain = domain.lower()

    def published(self) -> dict[str, ReportKey]:
        """What DNS must serve: the active key (minted on the first call: the operator's command, so the
        relay, which only reads keys, never signs with a key nobody was shown), and a staged next key."""
        active, staged = self._store.keys(self._domain)
        if active is None:
            self._store.add(self._new(), staged=False, replacing=None)  # False: another process minted it
            active, staged = self._store.keys(self._domain)
            assert active is not None, "a key was just stored, here or by another process"
        return {"active": active, **({"next": staged} if staged is not None else {})}

    def rotate(self) -> ReportKey:
        """Stages a new key under a new selector (replacing a staged one not promoted): the operator
        publishes it beside the current one, which keeps signing until `promote`."""
        staged = self.published().get("next")
        new = self._new()
        if not self._store.add(new, staged=True, replacing=staged.selector if staged else None):
            raise Conflict("another rotation of the report key ran at the same time; run it again")
        return new

    def promote(self) -> ReportKey:
        """The staged key signs from now on, once DNS serves its record (a report signed by a key
        receivers cannot find is dropped: section 3). The old record may go after a few days."""
        _, staged = self._store.keys(self._domain)
        if staged is None:
            raise ValidationFailed("no report key is staged: run rotate first")  # again, the same answer
        answer = self._records.lookup(staged.record_name, RecordType.TXT)
        if answer.error or not published_key(answer.values, staged.public_key):
            found = answer.error or (", ".join(answer.values) or "no TXT record")
            raise Conflict(f"{staged.record_name} does not serve the staged key yet ({found})")
        if not self._store.promote(self._domain, staged.selector):
            raise Conflict("the staged key changed meanwhile; run it again")
        return staged

    def sign(self, mime: bytes) -> bytes:
        """The message with a DKIM-Signature of the reporting domain on top (never an l= tag);
        ReportNotDelivered while there is no key (the report waits for the next run)."""
        key, _ = self._store.keys(self._domain)
        if key is None:
            raise ReportNotDelivered(
                f"{self._domain} has no DKIM key for reports yet: `postline tlsrpt dkim show` makes one"
            )
        lowered = mime.lower()
        signature = dkim.sign(
            mime,
            key.selector.encode(),
            key.domain.encode(),
            key.private_key.encode(),
            include_headers=[name for name in DKIM_SIGNED_HEADERS if name + b":" in lowered],
            tlsrpt=True,
        )
        return bytes(signature) + mime

    def _new(self) -> ReportKey:
        now = self._clock.now()
        private_key, public_key = self._keys.new_key()
        return ReportKey(self._domain, report_selector(now, secrets.token_hex(4)), private_key, public_key, now)
