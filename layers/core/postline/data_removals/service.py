"""Data removals: POST /v3/data-removals, GET /v3/data-removals/{id}, and the worker that erases.

The request stores one job per address (pending, audited in the same transaction) and queues it.
The worker walks the job's steps (domain.STEPS) for each account it covers, one bounded batch at a
time, saving step, cursor and counts after each batch under its lease. When its time runs low it
queues the job again and gives the lease back: a removal of an address with millions of events is
many short runs. A run that dies between a batch and its save repeats that batch, and every
Holding counts only what it changed, so nothing is counted twice. At the end the counts, the
keyed hash of the address and the time are signed (the receipt), the plaintext address is dropped
from the job, and the completion is audited.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from datetime import timedelta

from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.data_removals.domain import (
    MAX_ATTEMPTS,
    STEPS,
    DataRemovalJob,
    RemovalStatus,
    canonical,
    mask,
    receipt_payload,
)
from postline.data_removals.models import (
    DataRemoval,
    DataRemovalAccepted,
    DataRemovalBatchAccepted,
    DataRemovalRequest,
    removal_view,
)
from postline.data_removals.ports import (
    AddressHasher,
    Holding,
    Organisation,
    ReceiptSigner,
    RemovalJobs,
    RemovalQueue,
)
from postline.keys.identity import Principal
from postline.shared.errors import Forbidden, NotFound
from postline.shared.ports import Clock, IdFactory

LEASE = timedelta(minutes=16)  # longer than one worker run (the queue's visibility timeout)
MARGIN_SECONDS = 20.0  # stop this long before the Lambda's end: one batch and its save fit in it
REQUESTED = "data_removal.requested"
COMPLETED = "data_removal.completed"
FAILED = "data_removal.failed"


class RemovalBusyError(Exception):
    """Another attempt holds the removal's lease: the message is retried after its visibility timeout."""


class LeaseLostError(Exception):
    """This attempt's lease ran out and another attempt took the removal over: this one stops."""


class DataRemovalService:
    def __init__(
        self,
        *,
        jobs: RemovalJobs,
        queue: RemovalQueue,
        hasher: AddressHasher,
        organisation: Organisation,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._jobs = jobs
        self._queue = queue
        self._hasher = hasher
        self._organisation = organisation
        self._ids = ids
        self._clock = clock

    def request(
        self, principal: Principal, request: DataRemovalRequest
    ) -> DataRemovalAccepted | DataRemovalBatchAccepted:
        account = principal.account
        accounts = [account.id]
        if request.include_subaccounts:
            if account.parent_account_id is not None:
                raise Forbidden(
                    "Only an organisation's parent account can erase across subaccounts.", code="not_a_parent"
                )
            accounts += self._organisation.subaccount_ids(account.id)
        now = self._clock.now()
        accepted = []
        for address in request.addresses():
            hashes = {account_id: self._hasher.hash(account_id, address) for account_id in accounts}
            job = DataRemovalJob(
                id=self._ids.new_id(),
                account_id=account.id,
                email=address,
                masked=mask(address),
                address_hash=hashes[account.id],
                accounts=accounts,
                hashes=hashes,
                created_at=now,
            )
            entry = new_audit_entry(self._ids, principal.actor(), account.id, REQUESTED, job.id, now=now)
            self._jobs.create(job, entry)
            self._queue.enqueue(job)
            accepted.append(DataRemovalAccepted(removal_id=job.id, status=job.status))
        return accepted[0] if request.email is not None else DataRemovalBatchAccepted(items=accepted)

    def get(self, principal: Principal, removal_id: str) -> DataRemoval:
        job = self._jobs.get(principal.account.id, removal_id)
        if job is None:
            raise NotFound(f"No data removal {removal_id} in this account.")
        return removal_view(job)


class DataRemovalWorker:
    def __init__(
        self,
        *,
        jobs: RemovalJobs,
        queue: RemovalQueue,
        holdings: Mapping[str, Holding],
        signer: ReceiptSigner,
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        missing = set(STEPS) - set(holdings)
        if missing:
            raise ValueError(f"no holding for the steps {sorted(missing)}")
        self._jobs = jobs
        self._queue = queue
        self._holdings = holdings
        self._signer = signer
        self._ids = ids
        self._clock = clock

    def run(
        self, account_id: str, removal_id: str, *, receive_count: int, time_left: Callable[[], float]
    ) -> DataRemovalJob | None:
        """One run: batches until the removal is done or the time runs low (then it is queued
        again). Raises RemovalBusyError while another attempt holds it. The job as left, or None
        when there is nothing to do."""
        job = self._jobs.get(account_id, removal_id)
        if job is None or job.status in (RemovalStatus.DONE, RemovalStatus.FAILED):
            return job
        now = self._clock.now()
        claimed = self._jobs.claim(job, now, LEASE)
        if claimed is None:
            raise RemovalBusyError(removal_id)
        job = claimed
        if receive_count > MAX_ATTEMPTS:
            return self._fail(job, f"gave up after {MAX_ATTEMPTS} attempts")
        first = job.step == 0 and job.cursor is None and not job.counts.already_erased
        if first and self._jobs.erased_before(job.account_id, job.address_hash):
            job = job.model_copy(update={"counts": job.counts.model_copy(update={"already_erased": True})})
        try:
            while job.step < job.total_steps:
                if time_left() < MARGIN_SECONDS:
                    self._jobs.release(job)  # the next run goes on from the saved position
                    self._queue.enqueue(job)
                    return job
                job = self._batch(job)
                if not self._jobs.advance(job):
                    return None  # the lease was lost to another attempt: it carries on
        except LeaseLostError:
            return None
        except RemovalBusyError:
            raise
        except Exception:
            if receive_count >= MAX_ATTEMPTS:
                return self._fail(job, "the removal failed; the operator has been alerted")
            raise
        return self._complete(job)

    def _batch(self, job: DataRemovalJob) -> DataRemovalJob:
        """One batch: found and counted, saved with its counts, erased; the job after it (saved by
        the caller). A batch saved by a run that died is erased again first (idempotent), never
        counted again."""
        email = job.email
        assert email is not None, "a running removal keeps its address"
        account_id, step = job.position()
        address_hash = job.hashes.get(account_id, job.address_hash)
        holding = self._holdings[step]
        batch = job.pending
        if batch is None:
            batch = holding.find(account_id, email, address_hash, job.cursor)
            job = job.model_copy(update={"pending": batch, "counts": job.counts.plus(batch.tally)})
            if not self._jobs.advance(job):
                raise LeaseLostError(job.id)
        holding.apply(account_id, email, address_hash, batch.work)
        if batch.next is None:
            return job.model_copy(update={"step": job.step + 1, "cursor": None, "pending": None})
        return job.model_copy(update={"cursor": batch.next, "pending": None})

    def _complete(self, job: DataRemovalJob) -> DataRemovalJob:
        now = self._clock.now()
        payload = canonical(receipt_payload(job, now))
        kid, signature = self._signer.sign(payload, now)
        public = self._signer.public_key(kid) or b""
        receipt = {
            "payload": payload.decode(),
            "alg": "EdDSA",
            "kid": kid,
            "public_key": base64.urlsafe_b64encode(public).rstrip(b"=").decode(),
            "signature": base64.b64encode(signature).decode(),
        }
        for account_id in job.accounts:
            self._jobs.mark_erased(account_id, job.hashes.get(account_id, job.address_hash), job.id, now)
        done = job.model_copy(
            update={"status": RemovalStatus.DONE, "email": None, "receipt": receipt, "completed_at": now}
        )
        entry = new_audit_entry(self._ids, Actor.system(), job.account_id, COMPLETED, job.id, now=now)
        if self._jobs.finish(done, entry):
            return done
        return job

    def _fail(self, job: DataRemovalJob, reason: str) -> DataRemovalJob:
        now = self._clock.now()
        failed = job.model_copy(
            update={"status": RemovalStatus.FAILED, "email": None, "error": reason, "completed_at": now}
        )
        entry = new_audit_entry(self._ids, Actor.system(), job.account_id, FAILED, job.id, now=now)
        self._jobs.finish(failed, entry)
        return failed
