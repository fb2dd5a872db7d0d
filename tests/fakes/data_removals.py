"""In-memory fakes of the data_removals area's ports (`postline/data_removals/ports.py`)."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from nacl.signing import SigningKey

from postline.audit.domain import AuditEntry
from postline.data_removals.domain import Batch, DataRemovalJob, RemovalStatus, erasure_hash_input

if TYPE_CHECKING:
    from postline.data_removals.ports import (
        AddressHasher,
        Holding,
        Organisation,
        ReceiptSigner,
        RemovalJobs,
        RemovalQueue,
    )


class InMemoryRemovalJobs:
    """RemovalJobs with the adapter's lease semantics (shared/jobs.py): a claim takes a pending job,
    or a processing one whose lease ran out, as the next attempt; writes need that attempt."""

    def __init__(self) -> None:
        self.jobs: dict[tuple[str, str], DataRemovalJob] = {}
        self.leases: dict[tuple[str, str], datetime] = {}
        self.markers: dict[tuple[str, str], str] = {}
        self.audits: list[AuditEntry] = []

    def create(self, job: DataRemovalJob, audit: AuditEntry) -> None:
        if (job.account_id, job.id) in self.jobs:
            raise ValueError(f"removal {job.id} exists")
        self.jobs[(job.account_id, job.id)] = job
        self.audits.append(audit)

    def get(self, account_id: str, removal_id: str) -> DataRemovalJob | None:
        return self.jobs.get((account_id, removal_id))

    def claim(self, job: DataRemovalJob, now: datetime, lease: timedelta) -> DataRemovalJob | None:
        stored = self.jobs.get((job.account_id, job.id))
        if stored is None:
            return None
        expired = self.leases.get((job.account_id, job.id), now) <= now
        if stored.status is RemovalStatus.PENDING or (stored.status is RemovalStatus.PROCESSING and expired):
            claimed = stored.model_copy(update={"status": RemovalStatus.PROCESSING, "attempt": stored.attempt + 1})
            self.jobs[(job.account_id, job.id)] = claimed
            self.leases[(job.account_id, job.id)] = now + lease
            return claimed
        return None

    def _holds(self, job: DataRemovalJob) -> bool:
        stored = self.jobs.get((job.account_id, job.id))
        return stored is not None and stored.status is RemovalStatus.PROCESSING and stored.attempt == job.attempt

    def advance(self, job: DataRemovalJob) -> bool:
        if not self._holds(job):
            return False
        stored = self.jobs[(job.account_id, job.id)]
        self.jobs[(job.account_id, job.id)] = stored.model_copy(
            update={"step": job.step, "cursor": job.cursor, "pending": job.pending, "counts": job.counts}
        )
        return True

    def release(self, job: DataRemovalJob) -> None:
        if self._holds(job):
            self.leases[(job.account_id, job.id)] = datetime.min.replace(tzinfo=job.created_at.tzinfo)

    def finish(self, job: DataRemovalJob, audit: AuditEntry | None) -> bool:
        if not self._holds(job):
            return False
        self.jobs[(job.account_id, job.id)] = job
        self.leases.pop((job.account_id, job.id), None)
        if audit is not None:
            self.audits.append(audit)
        return True

    def erased_before(self, account_id: str, address_hash: str) -> bool:
        return (account_id, address_hash) in self.markers

    def mark_erased(self, account_id: str, address_hash: str, removal_id: str, now: datetime) -> None:
        self.markers[(account_id, address_hash)] = removal_id


class ListRemovalQueue:
    def __init__(self) -> None:
        self.queued: list[tuple[str, str]] = []

    def enqueue(self, job: DataRemovalJob) -> None:
        self.queued.append((job.account_id, job.id))


class HmacAddressHasher:
    """The adapter's keyed hash under a fixed pepper."""

    def __init__(self, pepper: bytes = b"test pepper") -> None:
        self._pepper = pepper

    def hash(self, account_id: str, address: str) -> str:
        return hmac.new(self._pepper, erasure_hash_input(account_id, address).encode(), hashlib.sha256).hexdigest()


class Ed25519Signer:
    """A real Ed25519 key, as the platform's signing keys sign."""

    def __init__(self, kid: str = "ed25519-test") -> None:
        self.kid = kid
        self.key = SigningKey.generate()

    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        return self.kid, self.key.sign(content).signature

    def public_key(self, kid: str) -> bytes | None:
        return bytes(self.key.verify_key) if kid == self.kid else None


class FixedOrganisation:
    def __init__(self, subaccounts: dict[str, list[str]] | None = None) -> None:
        self.subaccounts = subaccounts or {}

    def subaccount_ids(self, parent_id: str) -> list[str]:
        return list(self.subaccounts.get(parent_id, []))


class InMemoryHolding:
    """Items naming addresses, per account: a page is the first `page` items still there (erased
    ones are gone), counted under `count`; applying a page removes its items (again: nothing)."""

    def __init__(self, count: str, page: int = 2) -> None:
        self.count = count
        self.page = page
        self.items: dict[tuple[str, str], list[str]] = {}

    def hold(self, account_id: str, address: str, *items: str) -> None:
        self.items.setdefault((account_id, address.lower()), []).extend(items)

    def held(self, account_id: str, address: str) -> list[str]:
        return list(self.items.get((account_id, address.lower()), []))

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        left = self.held(account_id, address)
        found = left[: self.page]
        more = len(left) > len(found)
        return Batch(
            work={"items": found},
            tally={self.count: len(found)} if found else {},
            next={"more": True} if more else None,
        )

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        left = self.items.get((account_id, address.lower()), [])
        self.items[(account_id, address.lower())] = [item for item in left if item not in work["items"]]


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _jobs: RemovalJobs = InMemoryRemovalJobs()
    _queue: RemovalQueue = ListRemovalQueue()
    _hasher: AddressHasher = HmacAddressHasher()
    _signer: ReceiptSigner = Ed25519Signer()
    _organisation: Organisation = FixedOrganisation()
    _holding: Holding = InMemoryHolding("events")
