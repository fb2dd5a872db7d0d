"""What the content check needs from outside: spamd, the domain's complaint rate, and where test-mode
copies and checks are kept. Adapters implement these; tests pass fakes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from postline.content_checks.domain import SpamReport


class SpamScorer(Protocol):
    def score(self, mime: bytes) -> SpamReport | None:
        """spamd's report of the message; None when no spamd answers (the part is `unavailable`)."""
        ...


class ComplaintRates(Protocol):
    def complaint_rate(self, account_id: str, domain: str, now: datetime) -> float | None:
        """complained/sent of the domain's live mail over the last 30 days; None without sends."""
        ...


class Sealer(Protocol):
    """Seals bytes as message bodies are sealed (sending/vault.py): one data key each, AAD the name."""

    def seal_copies(self, items: list[tuple[str, bytes]]) -> list[dict[str, Any]]: ...

    def open_copy(self, name: str, sealed: dict[str, Any]) -> bytes: ...


class CopyStore(Protocol):
    """A message's kept copies (one per recipient, sealed), beside the message item (the check goes on
    the message item itself, with the dispatcher's record of the recipient: sending/store.py)."""

    def put_copies(self, copies: list[tuple[str, str, dict[str, Any], int | None]]) -> None:
        """(message id, recipient, sealed copy, expires_at) each, written together."""
        ...

    def copies(self, message_id: str) -> dict[str, dict[str, Any]]:
        """recipient -> its sealed copy, in the order kept."""
        ...
