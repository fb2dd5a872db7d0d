"""An address check's results (the interface's `result`): apart from the checks themselves
(verification/), so the API keys' simulator weights (keys/domain.py, below verification on the
ladder) name them without loading the checks' rules and the message models."""

from __future__ import annotations

from enum import StrEnum


class VerificationResult(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    CATCH_ALL = "catch_all"
    UNKNOWN = "unknown"
    SPAMTRAP = "spamtrap"
    ABUSE = "abuse"
    DO_NOT_MAIL = "do_not_mail"
