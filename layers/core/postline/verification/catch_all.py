"""Scoring a bulk job's catch-all results (the job's `catch_all_processing` phase, bulk_service.py).

A catch-all domain accepts every RCPT TO, so the SMTP dialogue cannot tell a real mailbox from a
made-up one: the mailbox checks answer `catch_all` (accept_all, caution, confidence 0.5). Once
every address of a job has its result, and before its file is written, the job's catch-all
results are scored with the one evidence the account has of each mailbox: its own history with
the address (the activity counters the events stream keeps), read afresh then (a job can run for
weeks when its credits ran out; its file should say what is known when it is written):

    opened or clicked   a person reads it      sub_status accept_all_engaged, mail,     low,  0.85
    bounced, never      the domain accepted     sub_status accept_all_bounced, suppress, high, 0.80
      opened/clicked    it, then bounced it
    anything else       nothing to go on        unchanged (accept_all, caution, medium, 0.5)

The status stays `catch_all` (the summary does not move); `recommendation` decides what `suppress`
adds to the bounces list. Scoring depends only on the status and the history, so scoring a scored
result again gives the same result (a phase cut short is run again whole).
"""

from __future__ import annotations

from postline.shared.verification_results import VerificationResult
from postline.verification.domain import Recommendation, Risk
from postline.verification.models import Activity, ValidationResult

ENGAGED = "accept_all_engaged"
BOUNCED = "accept_all_bounced"
_BASE = "accept_all"


def score_catch_all(result: ValidationResult, activity: Activity) -> ValidationResult:
    """A catch-all result scored with the account's history of the address; any other unchanged."""
    if result.status is not VerificationResult.CATCH_ALL or result.sub_status not in (_BASE, ENGAGED, BOUNCED):
        return result
    reason = result.reason.split("; scored: ")[0]  # as the mailbox checks said it, before any scoring
    update: dict[str, object] = {"activity": activity, "reason": reason}
    if activity.opened or activity.clicked:
        update |= {
            "sub_status": ENGAGED,
            "recommendation": Recommendation.MAIL,
            "risk": Risk.LOW,
            "confidence": 0.85,
            "reason": f"{reason}; scored: the account's mail to it was opened {activity.opened} and clicked "
            f"{activity.clicked} times, so a person reads it",
        }
    elif activity.bounced:
        update |= {
            "sub_status": BOUNCED,
            "recommendation": Recommendation.SUPPRESS,
            "risk": Risk.HIGH,
            "confidence": 0.8,
            "reason": f"{reason}; scored: the domain accepts every address, but the account's mail to this one "
            f"bounced {activity.bounced} times and was never opened",
        }
    elif result.sub_status in (ENGAGED, BOUNCED):  # scored before, with history that has changed since
        update |= {"sub_status": _BASE, "recommendation": Recommendation.CAUTION, "risk": Risk.MEDIUM,
                   "confidence": 0.5}  # fmt: skip
    return result.model_copy(update=update)
