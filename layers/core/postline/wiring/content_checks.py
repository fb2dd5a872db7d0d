"""The content check's composition root (content_checks, and the message_content routes above it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Messages, SpamCheck
from postline.wiring import domains, metrics, sending, tracking
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.content_checks.service import ContentChecker, KeptCopies
    from postline.content_checks.store import DynamoCopyStore
    from postline.message_content.service import MessageContentService


@built_once()
def checker() -> ContentChecker:
    """spamd (SpamdAddress; empty: unavailable) and the domain's complaint rate from the roll-ups. One
    per container: it remembers a batch's check for the batch's other messages."""
    from postline.content_checks.service import ContentChecker
    from postline.content_checks.spamd import SpamdScorer
    from postline.metrics.complaints import RollupComplaintRates

    return ContentChecker(
        spam=SpamdScorer(settings(SpamCheck).spamd),
        complaints=RollupComplaintRates(metrics.rollups()),
        clock=clock(),
    )


def copy_store() -> DynamoCopyStore:
    from postline.content_checks.store import DynamoCopyStore

    return DynamoCopyStore(client("dynamodb"), settings(Messages).table)


def kept_copies() -> KeptCopies:
    from postline.content_checks.service import KeptCopies
    from postline.delivery.copies import VaultSealer

    return KeptCopies(sealer=VaultSealer(sending.vault()), store=copy_store())


def message_content_service() -> MessageContentService:
    from postline.message_content.service import MessageContentService

    return MessageContentService(
        previews=sending.send_service(),
        messages=sending.message_store(),
        bodies=copy_store(),
        vault=sending.vault(),
        domains=domains.organisation_domains(),
        links=tracking.links,
        checker=checker(),
        copies=kept_copies(),
        clock=clock(),
    )
