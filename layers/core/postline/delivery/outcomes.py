"""Delivery outcomes, the retry schedule for temporary failures, and the simulator's draw."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

# Waits after each temporary failure (4xx); when they run out the recipient has failed.
# Like an MTA's queue lifetime, shortened: about 12 hours over 8 attempts.
RETRY_DELAYS_SECONDS = (60, 300, 900, 1_800, 3_600, 7_200, 28_800)
MAX_ATTEMPTS = len(RETRY_DELAYS_SECONDS) + 1

SIMULATOR_DOMAIN = "simulator.postline.dev"


class OutcomeKind(StrEnum):
    ACCEPTED = "accepted"  # handed to a relay that reports the rest later (SES): sent only
    DELIVERED = "delivered"  # the recipient's server said 250: sent, then delivered
    DEFERRED = "deferred"  # 4xx or no answer: delayed, retried later
    BOUNCED = "bounced"  # 5xx: bounced
    COMPLAINED = "complained"  # (simulator) delivered, then marked as spam


class BounceType(StrEnum):
    HARD = "hard"
    SOFT = "soft"


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    smtp_response: str | None = None
    bounce_type: BounceType | None = None
    reason: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    provider_id: str | None = None  # the relay's id for the message (SES MessageId, queue id)


def retry_delay(attempt: int) -> int | None:
    """Seconds to wait after failed attempt `attempt` (1-based); None when there is no attempt left."""
    if attempt < 1 or attempt > len(RETRY_DELAYS_SECONDS):
        return None
    return RETRY_DELAYS_SECONDS[attempt - 1]


def next_retry_at(now: datetime, attempt: int) -> datetime | None:
    delay = retry_delay(attempt)
    return None if delay is None else now + timedelta(seconds=delay)


def classify_smtp(code: int, text: str) -> Outcome:
    """An SMTP reply to a recipient or to the message: 2xx delivered, 4xx deferred, 5xx bounced."""
    response = f"{code} {text}".strip()
    if 200 <= code < 300:
        return Outcome(OutcomeKind.DELIVERED, smtp_response=response)
    if 400 <= code < 500:
        return Outcome(OutcomeKind.DEFERRED, smtp_response=response, reason="temporary failure")
    # 5.x.x with a mailbox-full or policy subcode is a soft bounce; the rest are hard.
    soft = any(marker in text for marker in ("5.2.2", "5.2.1", "5.7.1", "5.3.4"))
    return Outcome(
        OutcomeKind.BOUNCED,
        smtp_response=response,
        bounce_type=BounceType.SOFT if soft else BounceType.HARD,
        reason="mailbox full or policy" if soft else "recipient rejected",
    )


def _simulated(outcome: str, attempt: int) -> Outcome:
    if outcome == "bounce":
        return Outcome(
            OutcomeKind.BOUNCED,
            smtp_response="550 5.1.1 Recipient address rejected: user unknown (simulated)",
            bounce_type=BounceType.HARD,
            reason="user unknown",
        )
    if outcome == "soft_bounce":
        return Outcome(
            OutcomeKind.BOUNCED,
            smtp_response="552 5.2.2 Mailbox full (simulated)",
            bounce_type=BounceType.SOFT,
            reason="mailbox full",
        )
    if outcome == "suppressionlist":
        return Outcome(
            OutcomeKind.BOUNCED,
            smtp_response="550 5.1.1 Address on the suppression list (simulated)",
            bounce_type=BounceType.HARD,
            reason="suppressed",
        )
    if outcome == "complaint":
        return Outcome(
            OutcomeKind.COMPLAINED, smtp_response="250 2.0.0 OK (simulated)", data={"complaint_type": "abuse"}
        )
    if outcome == "delayed" and attempt == 1:
        return Outcome(OutcomeKind.DEFERRED, smtp_response="451 4.7.1 Try again later (simulated)", reason="greylisted")
    if outcome == "ooto":
        return Outcome(OutcomeKind.DELIVERED, smtp_response="250 2.0.0 OK (simulated)", data={"auto_reply": "ooto"})
    return Outcome(OutcomeKind.DELIVERED, smtp_response="250 2.0.0 OK (simulated)")


def simulate(message_id: str, recipient: str, weights: dict[str, float] | None, attempt: int) -> Outcome:
    """The simulator's outcome for one recipient. Simulator addresses (delivered@, bounce@, ... at
    simulator.postline.dev) decide it; otherwise the key's weights do. The draw is seeded by
    message and recipient, so a repeated attempt gets the same outcome."""
    local, _, domain = recipient.partition("@")
    if domain.lower() == SIMULATOR_DOMAIN:
        return _simulated(local.lower(), attempt)
    choices = {name: weight for name, weight in (weights or {"delivered": 1.0}).items() if weight > 0}
    seed = int.from_bytes(hashlib.sha256(f"{message_id}|{recipient}".encode()).digest()[:8], "big")
    outcome = random.Random(seed).choices(list(choices), weights=list(choices.values()))[0]
    return _simulated(outcome, attempt)
