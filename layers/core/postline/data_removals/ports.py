"""What data removals need from outside: their jobs, their queue, the keyed hash, the signer, the
organisation, and one `Holding` per kind of stored data the worker erases.

Adapters implement these (data_removals/store.py, data_removals/holdings.py); tests pass fakes.
A new kind of data that names recipients (the uploads area's download records) adds a Holding and
its step (domain.STEPS), nothing else.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry
    from postline.data_removals.domain import Batch, DataRemovalJob


class RemovalJobs(Protocol):
    def create(self, job: DataRemovalJob, audit: AuditEntry) -> None:
        """Stores the new job with its audit entry, in one transaction."""
        ...

    def get(self, account_id: str, removal_id: str) -> DataRemovalJob | None: ...

    def claim(self, job: DataRemovalJob, now: datetime, lease: timedelta) -> DataRemovalJob | None:
        """pending, or processing under a lease that ran out -> processing by the next attempt."""
        ...

    def advance(self, job: DataRemovalJob) -> bool:
        """Saves the job's step, cursor and counts, if its attempt still holds it."""
        ...

    def release(self, job: DataRemovalJob) -> None:
        """Gives the lease back at once, so the job's next message need not wait it out."""
        ...

    def finish(self, job: DataRemovalJob, audit: AuditEntry | None) -> bool:
        """Stores the ended job (done or failed) if its attempt still holds it, with its audit entry."""
        ...

    def erased_before(self, account_id: str, address_hash: str) -> bool:
        """Whether a removal of this address completed in this account before."""
        ...

    def mark_erased(self, account_id: str, address_hash: str, removal_id: str, now: datetime) -> None: ...


class RemovalQueue(Protocol):
    def enqueue(self, job: DataRemovalJob) -> None: ...


class AddressHasher(Protocol):
    def hash(self, account_id: str, address: str) -> str:
        """The keyed hash (hex) of the address in the account (domain.erasure_hash_input)."""
        ...


class ReceiptSigner(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the platform's active key."""
        ...

    def public_key(self, kid: str) -> bytes | None: ...


class Organisation(Protocol):
    def subaccount_ids(self, parent_id: str) -> list[str]:
        """Every subaccount of the parent (not deleted ones)."""
        ...


class Holding(Protocol):
    """One kind of stored data that may name the address. A batch is two calls: `find` reads (with
    strongly consistent reads) what one bounded page will erase and counts it, without changing
    anything; the worker saves that batch with the counts; `apply` erases it, and does nothing more
    when repeated. So a run that dies anywhere neither loses a count nor counts anything twice."""

    def find(self, account_id: str, address: str, address_hash: str, cursor: dict[str, Any] | None) -> Batch:
        """The batch from `cursor` (None: the start)."""
        ...

    def apply(self, account_id: str, address: str, address_hash: str, work: dict[str, Any]) -> None:
        """Erases the batch's `work`; where a field must stay, the address becomes
        domain.erasure_token(address_hash). Idempotent."""
        ...
