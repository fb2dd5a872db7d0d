"""What sending, delivery and the suppressions routes need from the suppression lists, and what
imports need from their job table, files and queue (suppressions/import_service.py).

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry
    from postline.shared.csv_files import CountedLines
    from postline.suppressions.domain import Suppression, SuppressionSource, SuppressionType
    from postline.suppressions.imports import SuppressionImport
    from postline.suppressions.models import SuppressionFilters


class Suppressions(Protocol):
    def suppressed(self, account_id: str, addresses: list[str]) -> set[str]:
        """The addresses (lowercased) on a bounces, unsubscribes or complaints list, minus allowlisted
        ones: batched reads, never one read per address."""
        ...

    def add(
        self,
        account_id: str,
        address: str,
        kind: SuppressionType,
        now: datetime,
        *,
        reason: str | None = None,
        source: SuppressionSource | None = None,
    ) -> bool:
        """Puts the address on a list; True when it was not on it yet (adding again changes nothing)."""
        ...


class SuppressionStore(Protocol):
    """The lists as the API sees them: entries by id and by (type, email), pages, bulk writes."""

    def get(self, account_id: str, suppression_id: str) -> Suppression | None: ...

    def find(self, account_id: str, kind: SuppressionType, email: str) -> Suppression | None: ...

    def list_page(
        self, account_id: str, filters: SuppressionFilters, *, page: int, per_page: int
    ) -> tuple[list[Suppression], int]:
        """One page of the matching entries and their total: newest first, or by address when
        filtered by an address prefix."""
        ...

    def create(self, entry: Suppression, audit: AuditEntry) -> Suppression | None:
        """Stores the entry with its audit entry; None (nothing written) when it is on the list already."""
        ...

    def remove(self, entry: Suppression, audit: AuditEntry) -> bool:
        """Deletes the entry with its audit entry; False when it was gone already."""
        ...

    def stream(self, account_id: str, kind: SuppressionType | None) -> Iterator[Suppression]:
        """Every entry of one list (or all), newest first, read a page at a time."""
        ...

    def present(self, account_id: str, kind: SuppressionType, emails: list[str]) -> set[str]:
        """Which of the (normalized) addresses are on the list: batched reads."""
        ...

    def put_many(self, entries: list[Suppression]) -> None:
        """Writes entries known to be absent: batched writes, no condition (ids are derived, so a
        racing writer of the same entry writes the same id)."""
        ...

    def delete_many(self, account_id: str, kind: SuppressionType, emails: list[str]) -> None:
        """Deletes the entries of these addresses: batched writes."""
        ...


class BulkWindow(Protocol):
    """The per-account minute window the bulk routes share (counters table)."""

    def count_bulk_call(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        """Adds one call to the window; returns the calls counted in it, this one included."""
        ...

    def take_bulk_entries(
        self, account_id: str, window_start: int, count: int, *, limit: int, expires_at: int, call: str
    ) -> bool:
        """Adds `count` entries to the window for the call `call` (domain.bulk_call_digest) unless that
        passes `limit`; False (nothing added) then. True without adding when `call` was charged in
        this window already: a retry of the same call is not charged twice."""
        ...


class ImportJobs(Protocol):
    def create(self, job: SuppressionImport) -> None: ...

    def get(self, account_id: str, import_id: str) -> SuppressionImport | None: ...

    def claim(self, job: SuppressionImport, now: datetime, lease: timedelta) -> SuppressionImport | None: ...

    def save(self, job: SuppressionImport) -> bool: ...

    def release(self, job: SuppressionImport) -> None: ...

    def uploaded(self, job: SuppressionImport, size_bytes: int) -> SuppressionImport | None: ...

    def abandon(self, job: SuppressionImport) -> SuppressionImport | None: ...


class ImportFiles(Protocol):
    def store(self, account_id: str, import_id: str, data: bytes) -> None: ...

    def upload_url(self, account_id: str, import_id: str, expires_in: int) -> str: ...

    def size(self, job: SuppressionImport) -> int | None: ...

    def lines(self, job: SuppressionImport) -> CountedLines: ...


class ImportQueue(Protocol):
    def enqueue(self, job: SuppressionImport) -> None: ...
