"""What address verification needs from DNS, SMTP, RDAP and its stores.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.shared.mx import MailRoute
    from postline.suppressions.domain import SuppressionType
    from postline.verification.domain import MailboxProbe, Registration
    from postline.verification.models import Activity
    from postline.verification.proofs import ProofEntry


class MailRoutes(Protocol):
    def route(self, domain: str) -> MailRoute:
        """Where the domain's mail goes, as DNS says (a DNS failure is a route with lookup_error)."""
        ...


class MailboxProber(Protocol):
    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        """RCPT TO the address at the domain's best MX that answers (EHLO, MAIL FROM, RCPT, QUIT; no
        DATA); unless `catch_all` is already known, a random address at the domain too."""
        ...


class Registrations(Protocol):
    def registered_at(self, domain: str) -> Registration:
        """When the registry says the domain was registered (RDAP), or why it does not say."""
        ...


class DomainFacts(Protocol):
    """Per-domain answers worth keeping across calls and functions (TTL-expired)."""

    def catch_all(self, domain: str, now: datetime) -> bool | None: ...

    def remember_catch_all(self, domain: str, catch_all: bool, now: datetime) -> None: ...

    def registration(self, domain: str, now: datetime) -> Registration | None:
        """The registry's answer kept from an earlier check (a date, or that it could not be
        reached), None when nothing unexpired is kept."""
        ...

    def remember_registration(self, domain: str, registration: Registration, now: datetime) -> None:
        """Keeps a date for thirty days and an unreachable registry for an hour (anything else is
        not kept: the registry is asked again)."""
        ...


class ComplaintLists(Protocol):
    """The account's suppression lists as verification reads them (suppressions/store.py)."""

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        """Which of these lower-case addresses are on the account's `kind` list: batched reads
        (BatchGetItem, 100 keys a call), never one read per address."""
        ...


class Credits(Protocol):
    def count_validation(self, account_id: str, window_start: int, *, expires_at: int, route: str = "validate") -> int:
        """Atomically add one call to the account's window of a verification route; the new count."""
        ...

    def consume_verification(
        self, account_id: str, *, month: str, limit: int | None, test: bool, count: int = 1
    ) -> bool:
        """Count `count` verifications against the month (`verify`, or `test_verify` for test keys)
        unless that passes `limit`; False, counting nothing, when it would."""
        ...

    def used_verifications(self, account_id: str, *, month: str) -> int:
        """Live credits the month has used."""
        ...

    def release_verification(self, account_id: str, *, month: str, test: bool) -> None:
        """Give back one counted verification whose checks then failed to run."""
        ...


class ActivityReader(Protocol):
    def activity(self, account_id: str, address: str) -> Activity: ...

    def activities(self, account_id: str, addresses: list[str]) -> dict[str, Activity]:
        """Several lower-case addresses' at once (a bulk chunk's); those never seen are left out."""
        ...


class ResultUpload(Protocol):
    def write(self, data: bytes) -> None: ...

    def complete(self) -> None:
        """Makes the file appear, whole."""
        ...

    def abort(self) -> None: ...


class ResultFiles(Protocol):
    """A bulk job's one result file (verification/proof_store.py)."""

    def upload(self, account_id: str, job_id: str) -> ResultUpload:
        """Starts writing the job's file, discarding what an earlier attempt left unfinished."""
        ...

    def download_url(self, account_id: str, job_id: str, filename: str, expires_in: int) -> str: ...

    def remove(self, account_id: str, job_id: str) -> None: ...


class ProofRegistry(Protocol):
    def get(self, fingerprint: str) -> ProofEntry | None: ...

    def register(self, entry: ProofEntry) -> ProofEntry:
        """Stores the entry, or returns the one its fingerprint has already."""
        ...


class ProofSigner(Protocol):
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        """(kid, Ed25519 signature) by the active platform key."""
        ...

    def public_key(self, kid: str) -> bytes | None:
        """The raw public half of a stored key."""
        ...
