"""Delivery outcomes, the retry schedule for temporary failures, and the simulator's draw (its
outcomes: the SIMULATED table)."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from postline.shared.addresses import SIMULATOR_DOMAIN

# Waits after each temporary failure (4xx); when they run out the recipient has failed.
# Like an MTA's queue lifetime, shortened: about 12 hours over 8 attempts.
RETRY_DELAYS_SECONDS = (60, 300, 900, 1_800, 3_600, 7_200, 28_800)
MAX_ATTEMPTS = len(RETRY_DELAYS_SECONDS) + 1


class OutcomeKind(StrEnum):
    ACCEPTED = "accepted"  # handed to a relay that reports the rest later (SES): sent only
    DELIVERED = "delivered"  # the recipient's server said 250: sent, then delivered
    DEFERRED = "deferred"  # 4xx or no answer: delayed, retried later
    BOUNCED = "bounced"  # 5xx: bounced
    COMPLAINED = "complained"  # (simulator) delivered, then marked as spam


class BounceType(StrEnum):
    HARD = "hard"
    SOFT = "soft"


class BounceClass(StrEnum):
    """What a bounce says about the address, for metrics and `data.bounce_class` on bounce events."""

    HARD = "hard"  # the address or its domain does not exist or takes no mail: do not send again
    SOFT = "soft"  # the address exists but did not take this message (full, too big, policy, transient)
    SUPPRESSED = "suppressed"  # refused because the address is on a suppression list (ours or the relay's)
    UNDETERMINED = "undetermined"  # no enhanced status code, or one that does not tell


# RFC 3463 enhanced status code: class.subject.detail, anywhere in the reply text.
_ENHANCED = re.compile(r"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
# Permanent (5.x.x) codes by subject (RFC 3463 section 3): addressing (x.1.x) is about the address
# itself, as is "unable to route" (x.4.4, no MX or A for the domain); mailbox (x.2.x), mail system
# (x.3.x), network (x.4.x), content (x.6.x) and policy (x.7.x) statuses are about this message or
# this moment; protocol errors (x.5.x) and the "other or undefined" details (x.y.0 outside
# addressing) say nothing about the address.
_HARD_CODES = {(4, 4)}
_SOFT_SUBJECTS = {2, 3, 4, 6, 7}


def enhanced_code(text: str | None) -> str | None:
    """The first RFC 3463 enhanced status code in an SMTP reply or diagnostic, e.g. "5.1.1"."""
    found = _ENHANCED.search(text or "")
    return ".".join(found.groups()) if found else None


def classify_bounce(text: str | None) -> BounceClass:
    """hard / soft / undetermined from the enhanced status code in a bounce's reply (RFC 3463);
    suppression is not in the code: whoever refused for that reason says so."""
    code = enhanced_code(text)
    if code is None:
        return BounceClass.UNDETERMINED
    klass, subject, detail = (int(part) for part in code.split("."))
    if klass == 4:
        return BounceClass.SOFT  # transient: the same message may be taken later
    if klass != 5:
        return BounceClass.UNDETERMINED
    if subject == 1 or (subject, detail) in _HARD_CODES:
        return BounceClass.HARD
    if subject in _SOFT_SUBJECTS and detail != 0:
        return BounceClass.SOFT
    return BounceClass.UNDETERMINED


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    smtp_response: str | None = None
    bounce_type: BounceType | None = None
    reason: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    provider_id: str | None = None  # the relay's id for the message (SES MessageId, queue id)
    bounce_class: BounceClass | None = None  # set on every bounce (see classify_bounce)


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
    # A status about this message (full, too big, policy, ...) is a soft bounce; the rest are hard,
    # and so suppressed (an undetermined 5xx too: a server that says no and not why means no).
    bounce_class = classify_bounce(text)
    soft = bounce_class is BounceClass.SOFT
    return Outcome(
        OutcomeKind.BOUNCED,
        smtp_response=response,
        bounce_type=BounceType.SOFT if soft else BounceType.HARD,
        reason="mailbox full or policy" if soft else "recipient rejected",
        bounce_class=bounce_class,
    )


@dataclass(frozen=True)
class Simulated:
    """What the simulator answers for one of its outcomes, as a fresh Outcome each time."""

    kind: OutcomeKind
    smtp_response: str
    bounce_type: BounceType | None = None
    reason: str | None = None
    bounce_class: BounceClass | None = None
    data: tuple[tuple[str, str], ...] = ()  # the Outcome's data, as pairs (an Outcome's dict is its own)
    first_attempt_only: bool = False  # later attempts are delivered (greylisting: the retry is taken)

    def outcome(self, attempt: int) -> Outcome:
        if self.first_attempt_only and attempt != 1:
            return SIMULATED_DELIVERY.outcome(attempt)
        return Outcome(
            self.kind,
            smtp_response=self.smtp_response,
            bounce_type=self.bounce_type,
            reason=self.reason,
            data=dict(self.data),
            bounce_class=self.bounce_class,
        )


_OK = "250 2.0.0 OK (simulated)"
SIMULATED_DELIVERY = Simulated(OutcomeKind.DELIVERED, _OK)  # "delivered", and any name not in the table

# The simulator's outcomes by name: a simulator address's local part (bounce@simulator.postline.dev),
# or the outcome a test key's weights drew (keys/domain.py SEND_OUTCOMES).
SIMULATED: dict[str, Simulated] = {
    "delivered": SIMULATED_DELIVERY,
    "bounce": Simulated(
        OutcomeKind.BOUNCED,
        "550 5.1.1 Recipient address rejected: user unknown (simulated)",
        BounceType.HARD,
        "user unknown",
        BounceClass.HARD,
    ),
    "soft_bounce": Simulated(
        OutcomeKind.BOUNCED, "552 5.2.2 Mailbox full (simulated)", BounceType.SOFT, "mailbox full", BounceClass.SOFT
    ),
    "suppressionlist": Simulated(
        OutcomeKind.BOUNCED,
        "550 5.1.1 Address on the suppression list (simulated)",
        BounceType.HARD,
        "suppressed",
        BounceClass.SUPPRESSED,
    ),
    "complaint": Simulated(OutcomeKind.COMPLAINED, _OK, data=(("complaint_type", "abuse"),)),
    "delayed": Simulated(
        OutcomeKind.DEFERRED, "451 4.7.1 Try again later (simulated)", reason="greylisted", first_attempt_only=True
    ),
    "ooto": Simulated(OutcomeKind.DELIVERED, _OK, data=(("auto_reply", "ooto"),)),
}


def simulate(message_id: str, recipient: str, weights: dict[str, float] | None, attempt: int) -> Outcome:
    """The simulator's outcome for one recipient. Simulator addresses (delivered@, bounce@, ... at
    simulator.postline.dev) decide it; otherwise the key's weights do. The draw is seeded by
    message and recipient, so a repeated attempt gets the same outcome."""
    local, _, domain = recipient.partition("@")
    if domain.lower() == SIMULATOR_DOMAIN:
        return SIMULATED.get(local.lower(), SIMULATED_DELIVERY).outcome(attempt)
    choices = {name: weight for name, weight in (weights or {"delivered": 1.0}).items() if weight > 0}
    seed = int.from_bytes(hashlib.sha256(f"{message_id}|{recipient}".encode()).digest()[:8], "big")
    outcome = random.Random(seed).choices(list(choices), weights=list(choices.values()))[0]
    return SIMULATED.get(outcome, SIMULATED_DELIVERY).outcome(attempt)
