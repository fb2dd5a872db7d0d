"""The content check's use cases: score a rendered copy; keep test-mode copies and their check."""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING

from postline.content_checks.domain import ContentCheck, Draft, check_draft

if TYPE_CHECKING:
    from postline.content_checks.ports import ComplaintRates, CopyStore, Sealer, SpamScorer
    from postline.domains.domain import SendingDomain
    from postline.shared.ports import Clock

logger = logging.getLogger(__name__)


_REUSED = 256  # checks remembered per container, by batch


class ContentChecker:
    def __init__(self, *, spam: SpamScorer, complaints: ComplaintRates, clock: Clock) -> None:
        self._spam = spam
        self._complaints = complaints
        self._clock = clock
        self._reused: OrderedDict[str, ContentCheck] = OrderedDict()

    def check(
        self, draft: Draft, *, account_id: str, domain: SendingDomain | None, reuse: str | None = None
    ) -> ContentCheck:
        """`domain`: the account's verified domain of the From address (None: not verified). `reuse`:
        a key the caller gives drafts that check the same (the dispatcher: a batch's id and a digest
        of the rendered content, delivery/copies.py check_basis), so the first one's check stands for
        the rest (a 5,000-recipient batch whose vars change nothing the check reads asks spamd once
        per container, not 5,000 times)."""
        if reuse is not None and reuse in self._reused:
            self._reused.move_to_end(reuse)
            return self._reused[reuse]
        result = self._check(draft, account_id=account_id, domain=domain)
        if reuse is not None:
            self._reused[reuse] = result
            if len(self._reused) > _REUSED:
                self._reused.popitem(last=False)
        return result

    def _check(self, draft: Draft, *, account_id: str, domain: SendingDomain | None) -> ContentCheck:
        report = self._spam.score(draft.mime)
        rate = None
        if domain is not None:
            try:
                rate = self._complaints.complaint_rate(account_id, domain.domain, self._clock.now())
            except Exception:  # the roll-ups are late or slow: the check goes on without the rate
                logger.warning("complaint rate of %s unavailable", domain.domain, exc_info=True)
        return check_draft(draft, spam=report, domain=domain, complaint_rate=rate)


class KeptCopies:
    """Test-mode messages' copies, each sealed under its own data key (AAD: message id and recipient).
    `keep` collects; `flush` seals what was collected in one call (one KMS data key for a queue batch)
    and writes it together."""

    def __init__(self, *, sealer: Sealer, store: CopyStore) -> None:
        self._sealer = sealer
        self._store = store
        self._pending: list[tuple[str, str, bytes, int | None]] = []

    def keep(self, message_id: str, recipient: str, mime: bytes, expires_at: int | None) -> None:
        self._pending.append((message_id, recipient, mime, expires_at))

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        sealed = self._sealer.seal_copies([(copy_name(m, r), mime) for m, r, mime, _ in pending])
        self._store.put_copies(
            [(m, r, record, expires) for (m, r, _, expires), record in zip(pending, sealed, strict=True)]
        )

    def read(self, message_id: str) -> dict[str, bytes]:
        """recipient -> the copy as it was handed over; {} when none was kept (live, or expired)."""
        return {
            recipient: self._sealer.open_copy(copy_name(message_id, recipient), sealed)
            for recipient, sealed in self._store.copies(message_id).items()
        }


def copy_name(message_id: str, recipient: str) -> str:
    """What a copy's ciphertext is bound to: it cannot be moved to another message or recipient."""
    return f"{message_id}/copy/{recipient}"
