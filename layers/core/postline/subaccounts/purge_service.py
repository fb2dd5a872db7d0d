"""A deleted subaccount's purge, in bounded, resumable steps (the subaccount_purge worker, every 5
minutes). Deleting a subaccount (service.py) trashes its account and revokes its keys at once, and
stores a PurgeJob in the same transaction; each step then removes at most STEP things of the job's
phase (subaccounts/domain.py PurgePhase: keys, domains, list members, suppressions, upload files,
then the rest of its partition), and the step that finds the phase empty records the move to the
next, so a run cut short resumes where it stopped, and a step repeated removes nothing twice. The
last step writes `subaccount.purged`, with what each phase removed, in the organisation's log.

What a phase removes is counted as it begins, before it removes anything, and recorded with the
move into it: nothing is added to a trashed account, so that count is exact, where adding up what
each step removed lost a step's count when its run died between the removal and the record of it
(a deleted domain, then nothing left to count).

Kept: the trashed account item (its id stays 404 and its keys refused; its slug is free already).
Not purged here: its messages, events and webhook delivery history, which expire by its retention.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.shared.errors import NotFound
from postline.shared.ports import Clock, IdFactory
from postline.subaccounts.domain import PurgeJob, PurgePhase, next_phase
from postline.subaccounts.ports import AccountData, DomainPurge, PurgeJobs, SubaccountKeys

STEP = 25  # at most this many removed per step (one BatchWriteItem, one DeleteObjects page)
JOBS_PER_RUN = 10
RESERVE_SECONDS = 20.0  # a run stops stepping with this much of its time left


class PurgeService:
    def __init__(
        self,
        *,
        jobs: PurgeJobs,
        keys: SubaccountKeys,
        domains: DomainPurge,
        data: AccountData,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._jobs = jobs
        self._keys = keys
        self._domains = domains
        self._data = data
        self._ids = ids
        self._clock = clock

    def run(self, time_left: Callable[[], float], *, max_jobs: int = JOBS_PER_RUN) -> int:
        """Steps the due jobs while time is left; how many steps it took."""
        steps = 0
        for job in self._jobs.due_purges(max_jobs):
            current: PurgeJob | None = job
            while current is not None and time_left() > RESERVE_SECONDS:
                current = self.step(current)
                steps += 1
        return steps

    def step(self, job: PurgeJob) -> PurgeJob | None:
        """Counts the job's phase if it has not yet, else removes up to STEP things of it, moving to
        the next phase (counted) once one removes nothing; records the count and the move. None once
        the job is finished."""
        if job.phase.value not in job.removed:  # its first step: the phase's count, before any removal
            counted = job.model_copy(update={"removed": {**job.removed, job.phase.value: self._count(job)}})
            self._jobs.save_purge(counted)
            return counted
        if self._remove(job.phase, job.account_id):
            return job  # counted as the phase began: nothing to record until it is empty
        following = next_phase(job.phase)
        if following is None:
            self._finish(job)
            return None
        moved = job.model_copy(update={"phase": following})
        updated = moved.model_copy(update={"removed": {**job.removed, following.value: self._count(moved)}})
        self._jobs.save_purge(updated)
        return updated

    def _count(self, job: PurgeJob) -> int:
        """What the job's phase will remove: all there is of it (nothing is added to a trashed account)."""
        phase, account_id = job.phase, job.account_id
        if phase is PurgePhase.KEYS:
            return len(self._keys.list_keys(account_id))
        if phase is PurgePhase.DOMAINS:
            return self._domains.count_domains(account_id)
        if phase is PurgePhase.LIST_MEMBERS:
            return self._data.count_list_members(account_id)
        if phase is PurgePhase.SUPPRESSIONS:
            return self._data.count_suppressions(account_id)
        if phase is PurgePhase.UPLOADS:
            return self._data.count_upload_files(account_id)
        return self._data.count_items(account_id)

    def _remove(self, phase: PurgePhase, account_id: str) -> int:
        if phase is PurgePhase.KEYS:
            return self._revoke_keys(account_id)
        if phase is PurgePhase.DOMAINS:
            return self._domains.purge_domains(account_id, STEP)
        if phase is PurgePhase.LIST_MEMBERS:
            return self._data.delete_list_members(account_id, STEP)
        if phase is PurgePhase.SUPPRESSIONS:
            return self._data.delete_suppressions(account_id, STEP)
        if phase is PurgePhase.UPLOADS:
            return self._data.delete_upload_files(account_id, STEP)
        return self._data.delete_items(account_id, STEP)

    def _revoke_keys(self, account_id: str) -> int:
        revoked = 0
        for api_key in self._keys.list_keys(account_id)[:STEP]:
            audit = new_audit_entry(
                self._ids, Actor.system(), account_id, "key.deleted", api_key.id, "revoked: subaccount deleted",
                now=self._clock.now(),
            )  # fmt: skip
            with contextlib.suppress(NotFound):  # deleted meanwhile
                self._keys.delete_key(api_key, audit)
                revoked += 1
        return revoked

    def _finish(self, job: PurgeJob) -> None:
        done = ", ".join(f"{count} {phase}" for phase, count in job.removed.items() if count) or "nothing stored"
        audit = new_audit_entry(
            self._ids, Actor.system(), job.parent_account_id, "subaccount.purged", job.account_id,
            f"{job.slug}: removed {done}", now=self._clock.now(),
        )  # fmt: skip
        self._jobs.finish_purge(job, audit)
