"""In-memory fakes of the content check's ports (`postline/content_checks/ports.py`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from postline.content_checks.domain import SpamReport

if TYPE_CHECKING:
    from postline.content_checks.ports import ComplaintRates, CopyStore, Sealer, SpamScorer


class FixedSpam:
    """spamd answering one report for every message (None: no spamd), counting the questions."""

    def __init__(self, report: SpamReport | None) -> None:
        self.report = report
        self.scored: list[bytes] = []

    def score(self, mime: bytes) -> SpamReport | None:
        self.scored.append(mime)
        return self.report


class FixedComplaints:
    def __init__(self, rate: float | None = None) -> None:
        self.rate = rate

    def complaint_rate(self, account_id: str, domain: str, now: datetime) -> float | None:
        return self.rate


class PlainSealer:
    """Keeps each copy as it is, bound to its name like the vault's AAD: another name cannot open it."""

    def __init__(self) -> None:
        self.sealed: dict[str, bytes] = {}
        self.calls = 0  # the vault's KMS data keys

    def seal_copies(self, items: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
        self.calls += 1
        self.sealed.update(items)
        return [{"name": name} for name, _ in items]

    def open_copy(self, name: str, sealed: dict[str, Any]) -> bytes:
        if sealed.get("name") != name:
            raise ValueError("sealed under another name")
        return self.sealed[name]


class InMemoryCopies:
    def __init__(self) -> None:
        self.kept: dict[str, dict[str, dict[str, Any]]] = {}  # message -> recipient -> sealed
        self.expires: dict[tuple[str, str], int | None] = {}
        self.writes = 0

    def put_copies(self, copies: list[tuple[str, str, dict[str, Any], int | None]]) -> None:
        self.writes += 1
        for message_id, recipient, sealed, expires_at in copies:
            self.kept.setdefault(message_id, {})[recipient] = sealed
            self.expires[(message_id, recipient)] = expires_at

    def copies(self, message_id: str) -> dict[str, dict[str, Any]]:
        return dict(self.kept.get(message_id, {}))


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _spam: SpamScorer = FixedSpam(None)
    _complaints: ComplaintRates = FixedComplaints()
    _sealer: Sealer = PlainSealer()
    _copies: CopyStore = InMemoryCopies()
