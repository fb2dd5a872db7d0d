"""Reputation, evaluated by the roll-up consumer (metrics/reputation.py has the score).

Why the consumer and not a schedule: it knows which accounts just sent, bounced or drew complaints,
so an idle account costs nothing, where a schedule would read every account's 30 days on every run.
After a batch is counted, each account (and mode) with such events in it is evaluated at most once
per EVERY (a conditional write on its snapshot item: the throttle), at most PER_BATCH accounts a
batch (the rest at their next batch). An evaluation reads the 30 days of its `sending_domain` and
`sending_ip` series (one Query per UTC day: the two sort next to each other; a closed day is one
packed item per series), scores each domain, pool and address, and saves the snapshot the domain
and pool routes read.

The danger line (reputation.py DANGER_LINE): a domain or one of the account's own pools whose score
reaches it and was not in danger at the last evaluation crosses it: an audit entry
(`domain.reputation_danger` / `ip_pool.reputation_danger`, actor system) written with the snapshot
in one transaction, then a notice to the owner (live mail only: test mode's simulated complaints
raise the audit entry alone, so a test key exercises the alert without mailing the owner). Once per
crossing: the snapshot keeps what is in danger, so the next evaluations raise nothing until it
comes back above the line, and a later fall raises again. Two consumers evaluating one account at
once cannot both raise: the save is conditional on the snapshot's version read.

An evaluation never fails the batch: the roll-ups are committed before it, and what fails is
logged and tried again at the account's next batch past the throttle.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from postline.audit.domain import Actor, AuditEntry
from postline.audit.service import new_audit_entry
from postline.metrics.domain import floor_quarter, utc_days
from postline.metrics.ports import OwnerNotices, PoolNames, ReputationStore, Rollups
from postline.metrics.reputation import DANGER_LINE, SCORED_SPAN, WINDOW, Snapshot, scores_of
from postline.metrics.service import quarter_tallies
from postline.shared.ports import Clock, IdFactory

logger = logging.getLogger(__name__)

EVERY = timedelta(minutes=5)
PER_BATCH = 5
BUDGET_SECONDS = 10.0  # an evaluation's reads


class ReputationService:
    def __init__(
        self,
        *,
        rollups: Rollups,
        store: ReputationStore,
        pools: PoolNames,
        notices: OwnerNotices,
        ids: IdFactory,
        clock: Clock,
        every: timedelta = EVERY,
        per_batch: int = PER_BATCH,
    ) -> None:
        self._rollups = rollups
        self._store = store
        self._pools = pools
        self._notices = notices
        self._ids = ids
        self._clock = clock
        self._every = every
        self._per_batch = per_batch

    def after_batch(self, touched: Iterable[tuple[str, str]]) -> int:
        """Evaluates the (account, mode) pairs of a counted batch that are due; returns how many.
        Never raises."""
        evaluated = 0
        for account_id, mode in dict.fromkeys(touched):
            if evaluated >= self._per_batch:
                break
            try:
                if self._store.claim(account_id, mode, self._clock.now(), self._every):
                    self.evaluate(account_id, mode)
                    evaluated += 1
            except Exception:
                logger.exception("reputation of %s (%s) not evaluated", account_id, mode)
        return evaluated

    def evaluate(self, account_id: str, mode: str) -> Snapshot:
        """Scores the account's domains, pools and addresses over the last 30 days, saves them, and
        raises an alert for each domain or own pool that crossed the danger line since last time."""
        now = self._clock.now()
        since = floor_quarter(now - WINDOW)
        items = self._rollups.read(
            account_id, mode, utc_days(since, now), span=SCORED_SPAN, budget_seconds=BUDGET_SECONDS
        )
        tallies = ((series, tally) for (series, start), tally in quarter_tallies(items).items() if start >= since)
        scores = scores_of(tallies)
        own = {pool.id: pool.name for pool in self._pools.list_pools(account_id)}
        before = self._store.snapshot(account_id, mode) or Snapshot()
        after = Snapshot.of(scores, own_pools=set(own), version=before.version + 1)
        crossed = sorted(after.danger - before.danger)
        audits = [self._audit(account_id, mode, crossing, after, own) for crossing in crossed]
        expires = int((now + WINDOW).timestamp())
        if not self._store.save(
            account_id, mode, after, read_version=before.version, audits=audits, expires_at=expires
        ):
            logger.info("reputation of %s (%s) saved meanwhile by another evaluation", account_id, mode)
            return before
        if mode == "live":
            for crossing in crossed:
                subject, text = _notice(crossing, after, own)
                self._notices.email_owner(account_id, subject, text)
        return after

    def _audit(self, account_id: str, mode: str, crossing: str, after: Snapshot, own: dict[str, str]) -> AuditEntry:
        kind, _, name = crossing.partition(":")
        if kind == "domain":
            action, value = "domain.reputation_danger", after.domains.get(name)
        else:
            action, value = "ip_pool.reputation_danger", after.pools.get(name)
        label = f"{own.get(name, name)} " if kind == "pool" else ""
        details = f"{label}reputation {value} (danger line {DANGER_LINE}){' in test mode' if mode == 'test' else ''}"
        return new_audit_entry(self._ids, Actor.system(), account_id, action, name, details, now=self._clock.now())


def _notice(crossing: str, after: Snapshot, own: dict[str, str]) -> tuple[str, str]:
    kind, _, name = crossing.partition(":")
    if kind == "domain":
        what, value = f"Sending domain {name}", after.domains.get(name)
    else:
        what, value = f"IP pool {own.get(name, name)} ({name})", after.pools.get(name)
    return (
        f"{what}: reputation {value}, past the danger line",
        f"{what} scores {value} of 100 on its last 30 days of mail, at or below the danger line of "
        f"{DANGER_LINE}: its complaint rate has reached 0.3% (Gmail's and Yahoo's limit) or its bounce "
        f"rate 7.5% (SES reviews accounts at 5% and 0.1%, and may pause them at 10% and 0.5%).\n"
        f"Look at GET /v3/metrics/breakdown?dimension=complaint_type and ?dimension=bounce_code, remove "
        f"addresses that bounce or complain, and send only to recipients who asked for the mail.",
    )
